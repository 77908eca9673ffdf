"""Spark Connect against classic Spark: the whole loop on an 800-page mini-crawl, side by side.

Two ``corpus-pipeline run`` processes with the same arguments and the same two cores:

* classic: ``spark.master = local[2]`` (the command starts its own JVM);
* Connect: ``--remote sc://127.0.0.1:PORT`` against a Spark Connect server (driver ``local[2]``)
  started beforehand (:class:`corpus_pipeline.spark.cluster.LocalConnectServer`); the client
  process has no JVM, the product's code reaches the server's Python workers as an artifact.

Session start is measured apart from the loop: the time from the process start to its ``[spark]``
line (JVM start and session for classic; the gRPC session and the artifact upload for Connect), and
the server's own start.  ``loop`` is the rest, to the process's exit.  The two run folders are
compared table by table (``bench.compare_commits.compare``).  ``BENCH_CONNECT_PAGES`` changes the
crawl size (default 800).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGES = int(os.environ.get("BENCH_CONNECT_PAGES", "800"))


def timed_run(args: list[str], env: dict) -> dict:
    """Run ``python -m corpus_pipeline ARGS``: seconds to its ``[spark]`` line, then to its exit."""
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "corpus_pipeline", *args], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    session_s, tail = None, []
    for line in p.stdout:
        if session_s is None and line.startswith("[spark] "):
            session_s = time.monotonic() - t0
        tail = (tail + [line])[-40:]
    code = p.wait()
    total = time.monotonic() - t0
    if code != 0 or session_s is None:
        raise RuntimeError(f"run failed (exit {code}):\n" + "".join(tail))
    return {"session_s": session_s, "loop_s": total - session_s, "total_s": total}


def main() -> None:
    from bench.compare_commits import compare
    from corpus_pipeline.spark.cluster import LocalConnectServer

    env = {**os.environ, "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),
           "SPARK_LOCAL_IP": "127.0.0.1"}
    with tempfile.TemporaryDirectory(prefix="bench_connect_") as tmp:
        d = Path(tmp)
        subprocess.run([sys.executable, "-m", "corpus_pipeline", "minicrawl", "--out", str(d / "crawl"),
                        "--pages", str(PAGES), "--random-seed", "7"], env=env, check=True, capture_output=True)
        common = ["--input", str(d / "crawl" / "warc" / "*.warc.gz"), "--labels", str(d / "crawl" / "labels.jsonl"),
                  "--benchmarks", str(d / "crawl" / "benchmarks"), "--annotate", "auto",
                  "--set", "ingest.extract_timeout_s=120", "--set", "spark.shuffle_partitions=4",
                  "--set", 'spark.conf={"spark.ui.enabled" = "false"}']
        classic = timed_run(["run", "--run", str(d / "classic"), "--set", 'spark.master="local[2]"', *common], env)
        with LocalConnectServer(cores=2, memory="2g", work_dir=str(d / "server"), timeout_s=180) as server:
            connect = timed_run(["run", "--run", str(d / "connect"), "--remote", server.url,
                                 "--set", "ingest.shared_local_paths=true", *common], env)
            connect["server_s"] = server.timings["server_start_s"]
        rows = compare(d / "classic", d / "connect")
        same = sum(r["ok"] for r in rows)
    print(f"{PAGES}-page mini-crawl, whole loop, 2 cores (one run each)")
    print(f"{'':10} {'server start':>12} {'session':>8} {'loop':>8}")
    print(f"{'classic':10} {'-':>12} {classic['session_s']:7.1f}s {classic['loop_s']:7.1f}s")
    print(f"{'Connect':10} {connect['server_s']:11.1f}s {connect['session_s']:7.1f}s {connect['loop_s']:7.1f}s")
    print(f"Connect / classic, loop: {connect['loop_s'] / classic['loop_s']:.2f}x (target <= 1.2x)")
    print(f"committed stages the same: {same} of {len(rows)}"
          + "".join(f"\n  {r['stage']}: {r['why']}" for r in rows if not r["ok"]))


if __name__ == "__main__":
    main()
