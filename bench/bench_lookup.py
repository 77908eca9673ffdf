"""Look-ups without a JVM: ``corpus-pipeline inspect RUN`` read with pyarrow against the same command
read with Spark (``--spark``), side by side on one run folder, each a process of its own (what a user
waits for: interpreter, imports, and for Spark the JVM start).

The run folder: ``BENCH_LOOKUP_RUN`` (for example the demo's ``demo_out/run``), else one built here
from a 600-page mini-crawl (one iteration, with its planted benchmark, so every section has rows).
Rounds alternate the two paths (A B A B ...) so that a loaded machine slows both alike; the outputs
of the two paths are compared (they must be the same text).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = int(os.environ.get("BENCH_LOOKUP_ROUNDS", "3"))
CLI = [sys.executable, "-m", "corpus_pipeline"]
SETTINGS = ["--set", 'spark.master="local[2]"', "--set", 'spark.conf={"spark.ui.enabled" = "false"}']


def _env() -> dict:
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}


def _build(tmp: Path) -> str:
    crawl, run = tmp / "crawl", tmp / "run"
    subprocess.run(CLI + ["minicrawl", "--out", str(crawl), "--pages", "600", "--random-seed", "7"], check=True,
                   env=_env(), capture_output=True)
    subprocess.run(CLI + ["run", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run), "--benchmarks",
                          str(crawl / "benchmarks"), "--max-iterations", "1", *SETTINGS], check=True, env=_env(),
                   capture_output=True)
    return str(run)


def _timed(argv: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(CLI + argv, env=_env(), capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr[-2000:]}")
    return dt, p.stdout


def main() -> None:
    run = os.environ.get("BENCH_LOOKUP_RUN")
    tmp = None
    if not run:
        tmp = tempfile.TemporaryDirectory(prefix="bench_lookup_")
        run = _build(Path(tmp.name))
    host = "askmaths.net"
    cases = [("inspect RUN", ["inspect", run]),
             (f"inspect RUN --host {host}", ["inspect", run, "--host", host, "--show", "pages"])]
    print(f"run folder: {run}; {ROUNDS} rounds, pyarrow and Spark alternating (machine shared: compare the "
          f"two columns of a row)")
    print(f"{'look-up':<34} {'pyarrow (s)':>12} {'Spark (s)':>10} {'Spark / pyarrow':>16}  same output")
    for name, argv in cases:
        a, b = [], []
        same = True
        for _ in range(ROUNDS):
            ta, oa = _timed(argv)
            tb, ob = _timed(argv + ["--spark", *SETTINGS])
            a.append(ta)
            b.append(tb)
            same = same and oa == ob
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{name:<34} {ma:>12.2f} {mb:>10.2f} {mb / ma:>15.1f}x  {'yes' if same else 'NO'}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
