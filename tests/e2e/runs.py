"""The CLI invocations the end-to-end tests share.

Two ways to run a command:

* :func:`cli` calls ``corpus_pipeline.cli.main`` in this process, against the test session's
  SparkSession (``get_spark`` returns the active session): the same argument parsing, config,
  commands, commits and exit codes as a user's process, without a JVM start per call.
* :func:`cli_process` runs ``python -m corpus_pipeline`` in its own process and JVM: where the
  process itself is what is tested (a SIGKILL of driver and JVM, a server stopped by a signal,
  Spark settings that only a new JVM applies).

The session fixtures in conftest.py build the shared mini-crawl and runs from these argument lists,
so every test that copies one reruns with exactly the arguments that made it.
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "corpus_pipeline"]
ENV = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
# small and quick: the loop's logic is what is tested here; the demo-size run is test_demo_e2e.py.
# The per-page extraction limit is generous: on a loaded machine the 5 s default could time a page
# out in one run and not in another that is compared with it.
SETTINGS = ["--set", "spark.master=\"local[2]\"", "--set", "spark.conf={\"spark.ui.enabled\" = \"false\"}",
            "--set", "ingest.extract_timeout_s=120"]


def run_args(crawl: Path, run: Path, *extra: str) -> list[str]:
    """The loop on the shared mini-crawl, with its labels, at most 3 iterations."""
    return ["run", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run),
            "--labels", str(crawl / "labels.jsonl"), "--max-iterations", "3", *SETTINGS, *extra]


def manual_args(crawl: Path, run: Path, *extra: str) -> list[str]:
    # never stop on saturation before iteration 2's worksheet (overlap 1.0 only)
    return run_args(crawl, run, "--annotate", "manual", "--set", "loop.saturation=1.0", *extra)


def cli(args: list[str]) -> subprocess.CompletedProcess:
    """``corpus-pipeline ARGS`` in this process: exit code, stdout and stderr as a process has them."""
    from corpus_pipeline.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["corpus-pipeline", *args], code, out.getvalue(), err.getvalue())


def cli_process(args: list[str], timeout: int = 900, **kw) -> subprocess.CompletedProcess:
    """``python -m corpus_pipeline ARGS`` in its own process (and JVM)."""
    return subprocess.run(CLI + list(args), env=ENV, capture_output=True, text=True, timeout=timeout, **kw)


def ok(p: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p


def run_ok(args: list[str]) -> subprocess.CompletedProcess:
    return ok(cli(args))


@contextlib.contextmanager
def renames_refused(run: Path):
    """Every ``os.rename`` / ``os.replace`` (which LocalFS.rename and any temporary-file-then-rename
    write go through) inside ``run`` raises while the block runs; checked to be active first."""
    root = os.path.realpath(run)
    real = {"rename": os.rename, "replace": os.replace}

    def guard(name):
        def refuse(src, dst, *a, **k):
            for p in (src, dst):
                q = os.path.realpath(os.fsdecode(p))
                if q == root or q.startswith(root + os.sep):
                    raise OSError(f"{name} refused inside the run folder: {src} -> {dst}")
            return real[name](src, dst, *a, **k)
        return refuse

    os.rename, os.replace = guard("rename"), guard("replace")
    try:
        os.makedirs(root, exist_ok=True)
        probe = os.path.join(root, ".probe")
        open(probe, "w").close()
        try:
            os.replace(probe, probe + "2")
            raise AssertionError("the rename guard is not active")
        except OSError:
            os.remove(probe)
        yield
    finally:
        os.rename, os.replace = real["rename"], real["replace"]


def copy_ingest(src: Path, dst: Path) -> None:
    """A new run folder holding only ``src``'s committed ingest (a loop started on it reuses the pages)."""
    import shutil

    dst.mkdir(parents=True)
    for name in ("run.json", "ingest", "pages", "pages_skips", "pages_duplicates"):
        (shutil.copytree if (src / name).is_dir() else shutil.copy)(src / name, dst / name)
