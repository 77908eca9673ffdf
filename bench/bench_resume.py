"""Ingest resume cost: a SIGKILLed ingest resumed, against the uninterrupted one.

Real content: the WARC files of ``warc/derived_minicrawl`` and ``warc/dolma`` in
the shared data (real pages; 7 files of very different sizes).  Each run is a
``corpus-pipeline ingest`` process of its own (JVM start included), on
``local[2]``, one file per committed batch (``ingest.files_per_commit=1``):

1. uninterrupted ingest -> wall seconds, per-stage seconds from its log;
2. the same ingest killed (SIGKILL of the driver and its JVM) as soon as the
   first extraction batch is committed;
3. the same command again: wall seconds, and the number of files it read
   (from the recorded progress: the batches it committed), and whether its
   pages equal the uninterrupted run's.

Wall clock on a shared machine: compare the rows with each other, not with
other benchmarks.  ``BENCH_RESUME_MASTER`` changes the master (default local[2]).
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _inputs() -> list[str]:
    base = Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")) / "warc"
    files = sorted(glob.glob(str(base / "derived_minicrawl" / "*.warc.gz")) + glob.glob(str(base / "dolma" / "*.warc.gz")))
    if not files:
        raise SystemExit(f"no WARC files under {base} (set CORPUS_PIPELINE_DATA)")
    return files


def _args(files: list[str], run: str) -> list[str]:
    master = os.environ.get("BENCH_RESUME_MASTER", "local[2]")
    return [sys.executable, "-m", "corpus_pipeline", "ingest", "--input", *files, "--run", run,
            "--set", f'spark.master="{master}"', "--set", "ingest.files_per_commit=1",
            "--set", "ingest.extract_timeout_s=120",    # a loaded machine must not time pages out in one run only
            "--set", 'spark.conf={"spark.ui.enabled" = "false", "spark.ui.showConsoleProgress" = "false"}']


def _env() -> dict:
    return {**os.environ, "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),
            "SPARK_LOCAL_IP": "127.0.0.1"}


def _batches(run: str) -> dict[str, list[str]]:
    out = {}
    for m in sorted(glob.glob(os.path.join(run, "ingest", "extract", "batch=*", "_COMMIT.json"))):
        out[os.path.basename(os.path.dirname(m))] = json.loads(Path(m).read_text())["counts"]["files"]
    return out


def _timed_run(files: list[str], run: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(_args(files, run), env=_env(), capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    return wall, p.stdout


def _stage_seconds(log: str) -> str:
    m = re.search(r"seconds per stage: (.*)", log)
    return m.group(1) if m else "?"


def _pages(run: str) -> list[tuple]:
    import pyarrow.parquet as pq

    from corpus_pipeline.runfolder import committed_data

    t = pq.read_table(committed_data(os.path.join(run, "pages")), columns=["page_id", "text"])
    return sorted(zip(t.column("page_id").to_pylist(), t.column("text").to_pylist()))


def main() -> None:
    files = _inputs()
    tmp = tempfile.mkdtemp(prefix="bench_resume_")
    try:
        straight = os.path.join(tmp, "straight")
        full_wall, full_log = _timed_run(files, straight)

        killed = os.path.join(tmp, "killed")
        t0 = time.perf_counter()
        proc = subprocess.Popen(_args(files, killed), env=_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        while not _batches(killed) and proc.poll() is None and time.perf_counter() - t0 < 1200:
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        kill_wall = time.perf_counter() - t0
        before = _batches(killed)
        done = {f for fs in before.values() for f in fs}

        resume_wall, resume_log = _timed_run(files, killed)
        after = _batches(killed)
        reread = sorted(f for b, fs in after.items() if b not in before for f in fs)
        same = _pages(killed) == _pages(straight)
        n = len(_pages(straight))

        print(f"{len(files)} real WARC files, {n} pages kept; master {os.environ.get('BENCH_RESUME_MASTER', 'local[2]')}")
        print()
        print("| run | wall s | files read | ratio to uninterrupted |")
        print("|---|---:|---:|---:|")
        print(f"| uninterrupted ingest | {full_wall:.1f} | {len(files)} | 1.00 |")
        print(f"| killed after the first committed batch | {kill_wall:.1f} | {len(done)} finished | "
              f"{kill_wall / full_wall:.2f} |")
        print(f"| resumed | {resume_wall:.1f} | {len(reread)} | {resume_wall / full_wall:.2f} |")
        print()
        print(f"resumed pages equal the uninterrupted run's: {same}; files re-read that were finished: "
              f"{len(set(reread) & done)}")
        print(f"uninterrupted, seconds per stage: {_stage_seconds(full_log)}")
        print(f"resumed, seconds per stage: {_stage_seconds(resume_log)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
