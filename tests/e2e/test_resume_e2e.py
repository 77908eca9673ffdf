"""Resumable, rename-free, settings-aware runs through the CLI (each command its own
process and JVM, as a user runs it): a SIGKILLed ingest resumes reading only the
files it had not finished; the whole loop commits every stage when every rename
inside the run folder fails; a changed result-shaping setting is refused (exit 2)
and redone with --recompute; a Spark tuning setting changes nothing."""
from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from corpus_pipeline.runfolder import MARKER, committed_data

pytestmark = [pytest.mark.spark, pytest.mark.slow]

CLI = [sys.executable, "-m", "corpus_pipeline"]
ENV = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
SETTINGS = ["--set", "spark.master=\"local[2]\"",
            "--set", "spark.conf={\"spark.ui.enabled\" = \"false\", \"spark.ui.showConsoleProgress\" = \"false\"}",
            # on a loaded machine the 5 s default would time some page out in one run and not the other
            "--set", "ingest.extract_timeout_s=120"]

# Run the CLI with every rename (os.rename / os.replace, which LocalFS.rename and any
# temporary-file-then-rename write go through) refused inside the run folder.
NO_RENAME = r'''
import os, sys
run = os.path.realpath(sys.argv[1])
def guard(name, real):
    def refuse(src, dst, *a, **k):
        for p in (src, dst):
            q = os.path.realpath(os.fsdecode(p))
            if q == run or q.startswith(run + os.sep):
                raise OSError(f"{name} refused inside the run folder: {src} -> {dst}")
        return real(src, dst, *a, **k)
    return refuse
os.rename = guard("rename", os.rename)
os.replace = guard("replace", os.replace)
try:
    os.makedirs(run, exist_ok=True); open(os.path.join(run, ".probe"), "w").close()
    os.replace(os.path.join(run, ".probe"), os.path.join(run, ".probe2"))
    sys.exit("the rename guard is not active")
except OSError:
    os.remove(os.path.join(run, ".probe"))
from corpus_pipeline.cli import main
sys.exit(main(sys.argv[2:]))
'''


def cli(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + args, env=ENV, capture_output=True, text=True, timeout=1800, **kw)


def ok(p: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p


def table(stage: Path) -> list[dict]:
    return pq.read_table(committed_data(str(stage))).to_pylist()


def pages(run: Path) -> list[tuple]:
    return sorted((r["page_id"], r["url"], r["text"], r["warc_file"], r["warc_offset"]) for r in table(run / "pages"))


def marker(stage: Path) -> dict:
    return json.loads((stage / MARKER).read_text())


def batches(run: Path) -> dict[str, list[str]]:
    """The recorded progress: committed batch -> the input files it holds."""
    out = {}
    for m in sorted(glob.glob(str(run / "ingest" / "extract" / "batch=*" / MARKER))):
        out[Path(m).parent.name] = json.loads(Path(m).read_text())["counts"]["files"]
    return out


# ------------------------------------------------------------------ ingest: kill and resume
@pytest.fixture(scope="module")
def crawl4(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("crawl4")
    ok(cli(["minicrawl", "--out", str(d), "--pages", "1200", "--random-seed", "11"]))
    assert len(list((d / "warc").glob("*.warc.gz"))) >= 3      # several files: some finish before others
    return d


def ingest_args(crawl: Path, run: Path) -> list[str]:
    return ["ingest", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run),
            "--set", "ingest.files_per_commit=1", *SETTINGS]


def test_killed_ingest_rereads_only_unfinished_files_and_gives_the_same_pages(crawl4, tmp_path):
    straight = tmp_path / "straight"
    ok(cli(ingest_args(crawl4, straight)))

    run = tmp_path / "killed"
    proc = subprocess.Popen(CLI + ingest_args(crawl4, run), env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 600
    try:
        while not batches(run) and proc.poll() is None and time.time() < deadline:
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)       # the driver and its JVM, mid-extraction
        proc.wait()
    before = batches(run)
    done = {f for files in before.values() for f in files}
    inputs = sorted(str(p) for p in (crawl4 / "warc").glob("*.warc.gz"))
    assert 0 < len(done) < len(inputs), f"kill came too late or too early: {before}"
    assert not (run / "pages" / MARKER).exists()
    attempts = {b: marker(run / "ingest" / "extract" / b)["attempt"] for b in before}

    ok(cli(ingest_args(crawl4, run)))
    after = batches(run)
    new = {b: files for b, files in after.items() if b not in before}
    reread = sorted(f for files in new.values() for f in files)
    assert reread == sorted(set(inputs) - done)               # only the unfinished files were read
    for b in before:                                          # finished batches untouched
        assert after[b] == before[b] and marker(run / "ingest" / "extract" / b)["attempt"] == attempts[b]
    assert marker(run / "ingest" / "extract")["counts"]["files_extracted_now"] == len(reread)

    assert pages(run) == pages(straight)
    for name in ("pages_duplicates", "pages_skips"):
        key = lambda r: tuple(sorted((k, str(v)) for k, v in r.items()))   # noqa: E731
        assert sorted(map(key, table(run / name))) == sorted(map(key, table(straight / name)))
    a, b = marker(run / "pages")["counts"], marker(straight / "pages")["counts"]
    a.pop("cpu_ms"), b.pop("cpu_ms")
    assert a == b and a["pages"] == len(pages(run))


# ------------------------------------------------------------------ the loop: no renames, settings
# `crawl`: the session's 600-page mini-crawl with its small planted benchmark (conftest.py)
def loop_args(crawl: Path, run: Path, *extra: str) -> list[str]:
    return ["run", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run),
            "--labels", str(crawl / "labels.jsonl"), "--benchmarks", str(crawl / "benchmarks"),
            "--max-iterations", "2", *SETTINGS, *extra]


def committed_stages(run: Path) -> dict[str, str]:
    """Every committed stage folder -> its attempt token ('' for in-place commits)."""
    out = {}
    for m in glob.glob(str(run / "**" / MARKER), recursive=True):
        rel = str(Path(m).parent.relative_to(run))
        out[rel] = json.loads(Path(m).read_text()).get("attempt") or ""
    return out


@pytest.fixture(scope="module")
def norename_run(crawl, tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("norename") / "run"
    script = run.parent / "no_rename.py"
    script.write_text(NO_RENAME)
    p = subprocess.run([sys.executable, str(script), str(run), *loop_args(crawl, run)], env=ENV,
                       capture_output=True, text=True, timeout=1800)
    ok(p)
    return run


def corpus(run: Path) -> list[tuple]:
    return sorted((r["page_id"], r["text"], r["first_iteration"]) for r in table(run / "final" / "corpus"))


def summary(run: Path) -> dict:
    return json.loads((run / "report" / "summary.json").read_text())


def iteration_counts(s: dict) -> list[dict]:
    return [{k: v for k, v in it.items() if k != "classifier_detail"} for it in s["iterations"]]


def test_loop_commits_every_stage_when_every_rename_fails(norename_run):
    stages = committed_stages(norename_run)
    s = summary(norename_run)
    last = s["iterations"][-1]["iteration"]
    expected = {"pages", "pages_skips", "pages_duplicates", "ingest/extract", "ingest/url_dedup",
                "ingest/exact_dedup", "ingest/near_dedup", "final/corpus", "final/contamination"}
    for i in range(1, last + 1):
        expected |= {f"iter={i:03d}/{n}" for n in ("seed", "model", "scores", "collected", "eval", "domains")}
    assert expected <= set(stages), sorted(expected - set(stages))
    for rel, token in stages.items():                   # the data sits in the attempt the marker names
        if token:
            assert (norename_run / rel / f"attempt={token}").is_dir()
            assert [p.name for p in (norename_run / rel).iterdir() if p.name.startswith("attempt=")] == \
                [f"attempt={token}"]                    # no leftover attempt
    assert s["final"]["pages"] == len(corpus(norename_run)) > 0
    assert not list(norename_run.rglob("*.inprogress-*"))


def test_changed_setting_is_refused_then_recomputed_like_a_fresh_run(crawl, norename_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(norename_run, run)
    before = committed_stages(run)

    p = cli(loop_args(crawl, run, "--set", "select.threshold=0.9"))
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    assert "select.threshold" in p.stderr and "iter=001/collected" in p.stderr and "--recompute" in p.stderr
    assert committed_stages(run) == before                # refused: nothing touched

    p = ok(cli(loop_args(crawl, run, "--set", "select.threshold=0.9", "--recompute")))
    after = committed_stages(run)
    for rel in ("pages", "ingest/near_dedup", "iter=001/seed", "iter=001/model", "iter=001/scores"):
        assert after[rel] == before[rel], rel             # before the first changed stage: reused
    assert after["iter=001/collected"] != before["iter=001/collected"]

    # a fresh loop started with the new setting, on the same committed pages (ingest, which the
    # setting does not shape, as asserted above, is not run a third time)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for name in ("run.json", "ingest", "pages", "pages_skips", "pages_duplicates"):
        (shutil.copytree if (norename_run / name).is_dir() else shutil.copy)(norename_run / name, fresh / name)
    p = ok(cli(loop_args(crawl, fresh, "--set", "select.threshold=0.9")))
    assert "recompute" not in p.stdout.lower()
    assert corpus(run) == corpus(fresh)
    a, b = summary(run), summary(fresh)
    assert iteration_counts(a) == iteration_counts(b) and a["final"] == b["final"]
    assert a["stopped_because"] == b["stopped_because"]


def test_spark_tuning_change_recomputes_nothing(crawl, norename_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(norename_run, run)
    before = committed_stages(run)
    p = ok(cli(loop_args(crawl, run, "--set", "spark.shuffle_partitions=3", "--set", "ingest.files_per_task=2",
                         "--set", "classifier.score_batch_size=64")))
    assert "recompute" not in p.stdout.lower()
    assert committed_stages(run) == before
    assert corpus(run) == corpus(norename_run)
