"""The CLI invocations the end-to-end tests share (each `run` its own process and JVM, as a user
runs it).  The session fixtures in conftest.py build the shared mini-crawl and runs from these, so
every test that copies one runs with exactly the arguments that made it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "corpus_pipeline"]
ENV = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
# small and quick: the loop's logic is what is tested here; the demo-size run is test_demo_e2e.py
SETTINGS = ["--set", "spark.master=\"local[2]\"", "--set", "spark.conf={\"spark.ui.enabled\" = \"false\"}"]


def run_args(crawl: Path, run: Path, *extra: str) -> list[str]:
    """The loop on the shared mini-crawl, with its labels, at most 3 iterations."""
    return CLI + ["run", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run),
                  "--labels", str(crawl / "labels.jsonl"), "--max-iterations", "3", *SETTINGS, *extra]


def manual_args(crawl: Path, run: Path, *extra: str) -> list[str]:
    # never stop on saturation before iteration 2's worksheet (overlap 1.0 only)
    return run_args(crawl, run, "--annotate", "manual", "--set", "loop.saturation=1.0", *extra)


def run_ok(args: list[str], timeout: int = 900) -> subprocess.CompletedProcess:
    p = subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p
