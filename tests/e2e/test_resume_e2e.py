"""Resumable, rename-free, settings-aware runs through the CLI: a SIGKILLed ingest (its own
process and JVM) resumes reading only the files it had not finished; the whole loop commits every
stage when every rename inside the run folder fails; a changed result-shaping setting is refused
(exit 2) and redone with --recompute; a Spark tuning setting changes nothing (a process of its own:
only a new JVM applies it).  Other commands run in this process (``runs.cli``)."""
from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from runs import CLI, ENV, SETTINGS, cli, cli_process, copy_ingest, ok, run_args

from corpus_pipeline.runfolder import MARKER, committed_data

pytestmark = [pytest.mark.spark, pytest.mark.slow]


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


def test_killed_ingest_rereads_only_unfinished_files_and_gives_the_same_pages(spark, crawl4, tmp_path):
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
# `crawl`: the session's 600-page mini-crawl with its small planted benchmark; `decontaminated_run`:
# the uninterrupted loop on it, rerun with that benchmark, every rename refused (conftest.py)
def loop_args(crawl: Path, run: Path, *extra: str) -> list[str]:
    """The arguments that made ``decontaminated_run``."""
    return run_args(crawl, run, "--benchmarks", str(crawl / "benchmarks"), *extra)


def committed_stages(run: Path) -> dict[str, str]:
    """Every committed stage folder -> its attempt token ('' for in-place commits)."""
    out = {}
    for m in glob.glob(str(run / "**" / MARKER), recursive=True):
        rel = str(Path(m).parent.relative_to(run))
        out[rel] = json.loads(Path(m).read_text()).get("attempt") or ""
    return out


def corpus(run: Path) -> list[tuple]:
    return sorted((r["page_id"], r["text"], r["first_iteration"]) for r in table(run / "final" / "corpus"))


def summary(run: Path) -> dict:
    return json.loads((run / "report" / "summary.json").read_text())


def iteration_counts(s: dict) -> list[dict]:
    return [{k: v for k, v in it.items() if k != "classifier_detail"} for it in s["iterations"]]


def test_loop_commits_every_stage_when_every_rename_fails(decontaminated_run):
    norename_run = decontaminated_run
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
    assert not (norename_run / "_checkpoints").exists()      # near dedup removed its checkpoints once committed


def test_changed_setting_is_refused_then_recomputed_like_a_fresh_run(crawl, decontaminated_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(decontaminated_run, run)
    before = committed_stages(run)

    p = cli(loop_args(crawl, run, "--set", "select.threshold=0.9"))
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    assert "select.threshold" in p.stderr and "iter=001/collected" in p.stderr and "--recompute" in p.stderr
    assert committed_stages(run) == before                # refused: nothing touched

    # (one iteration shows the behaviour; when to stop is not a result-shaping setting)
    p = ok(cli(loop_args(crawl, run, "--set", "select.threshold=0.9", "--recompute", "--max-iterations", "1")))
    after = committed_stages(run)
    for rel in ("pages", "ingest/near_dedup", "iter=001/seed", "iter=001/model", "iter=001/scores"):
        assert after[rel] == before[rel], rel             # before the first changed stage: reused
    assert after["iter=001/collected"] != before["iter=001/collected"]

    # a fresh loop started with the new setting, on the same committed pages (ingest, which the
    # setting does not shape, as asserted above, is not run a third time)
    fresh = tmp_path / "fresh"
    copy_ingest(decontaminated_run, fresh)
    p = ok(cli(loop_args(crawl, fresh, "--set", "select.threshold=0.9", "--max-iterations", "1")))
    assert "recompute" not in p.stdout.lower()
    assert corpus(run) == corpus(fresh)
    a, b = summary(run), summary(fresh)
    assert iteration_counts(a) == iteration_counts(b) and a["final"] == b["final"]
    assert a["stopped_because"] == b["stopped_because"]


def test_ingest_command_checks_the_ingest_stages_only(crawl, decontaminated_run, tmp_path):
    """`ingest` on a finished run: the loop's own settings (a threshold, the seed the run trained on)
    are not its business; a changed extraction setting is refused as the loop refuses it."""
    run = tmp_path / "run"
    shutil.copytree(decontaminated_run, run)
    before = committed_stages(run)
    base = ["ingest", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run), *SETTINGS]
    p = ok(cli(base + ["--set", "select.threshold=0.9"]))
    assert "recompute" not in p.stdout.lower() and committed_stages(run) == before
    p = cli(base + ["--set", "ingest.min_text_chars=400"])
    assert p.returncode == 2 and "ingest.min_text_chars" in p.stderr and "ingest/extract" in p.stderr
    assert committed_stages(run) == before


def test_spark_tuning_change_recomputes_nothing(crawl, decontaminated_run, tmp_path):
    norename_run = decontaminated_run
    run = tmp_path / "run"
    shutil.copytree(norename_run, run)
    before = committed_stages(run)
    p = ok(cli_process(loop_args(crawl, run, "--set", "spark.shuffle_partitions=3", "--set", "ingest.files_per_task=2",
                                 "--set", "classifier.score_batch_size=64")))
    assert "recompute" not in p.stdout.lower()
    assert committed_stages(run) == before
    assert corpus(run) == corpus(norename_run)
