"""The whole loop through the CLI, on a small mini-crawl: resume after a kill,
manual annotation, bad inputs.  Commands run in this process against the session's SparkSession
(``runs.cli``), except the run that is killed: a process of its own, SIGKILLed with its JVM."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from runs import ENV, CLI, cli, copy_ingest, manual_args, run_args, run_ok

pytestmark = [pytest.mark.spark, pytest.mark.slow]

# the mini-crawl (`crawl`), the uninterrupted run (`straight_run`) and the paused manual run
# (`paused_run`) are session fixtures in conftest.py, shared with the other end-to-end files


def run_loop(crawl: Path, run: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_ok(run_args(crawl, run, *extra))


def table(stage: Path):
    """A committed stage's table, read from the attempt folder its marker names."""
    from corpus_pipeline.runfolder import committed_data

    return pq.read_table(committed_data(str(stage)))


def corpus(run: Path) -> list[tuple]:
    t = table(run / "final" / "corpus")
    return sorted(zip(t.column("page_id").to_pylist(), t.column("text").to_pylist(),
                      t.column("first_iteration").to_pylist()))


def summary(run: Path) -> dict:
    return json.loads((run / "report" / "summary.json").read_text())


def test_uninterrupted_run_reports_the_contract(straight_run):
    s = summary(straight_run)
    assert s["stopped_because"] in ("saturated", "max_iterations")
    its = s["iterations"]
    assert its and its[0]["iteration"] == 1 and its[0]["overlap_with_previous"] is None
    for it in its:
        assert it["collected_pages"] > 0
        assert 0 <= it["true_precision"] <= 1 and 0 <= it["true_recall"] <= 1
        assert set(it["classifier"]) == {"precision", "recall", "f1"}
    for prev, cur in zip(its, its[1:]):
        assert cur["seed_positives"] == prev["seed_positives"] + prev["seed_added"]
    assert s["final"]["pages"] == len(corpus(straight_run)) == its[-1]["collected_pages"]
    assert s["final"]["pages_removed_by_decontamination"] is None       # no --benchmarks
    # final.extractor (trafilatura) re-extracted the corpus from the bulk pass (resiliparse): one
    # outcome per page, counted
    assert sum(s["reextraction"].values()) == s["final"]["pages"]
    assert s["reextraction"]["reextracted"] >= 0.9 * s["final"]["pages"]
    page = (straight_run / "report" / "index.html").read_text()
    assert "<svg" in page and "True precision" in page


def test_rerun_of_a_finished_run_changes_nothing(crawl, straight_run):
    before = corpus(straight_run), summary(straight_run)
    p = run_loop(crawl, straight_run)
    assert "already committed" in p.stdout
    assert (corpus(straight_run), summary(straight_run)) == before


def test_killed_run_resumes_to_the_same_corpus(crawl, straight_run, tmp_path):
    # the loop's own process, started on the shared run's committed pages (a killed ingest is
    # test_resume_e2e.py's), killed with its JVM in iteration 2, then resumed
    run = tmp_path / "run"
    copy_ingest(straight_run, run)
    proc = subprocess.Popen(CLI + run_args(crawl, run), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    target = run / "iter=002" / "model" / "_COMMIT.json"
    deadline = time.time() + 600
    try:
        while not target.exists() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.2)
        assert target.exists(), "the run never reached iteration 2"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)       # the driver and its JVM, mid-iteration
        proc.wait()
    assert not (run / "final" / "corpus" / "_COMMIT.json").exists()
    run_loop(crawl, run)
    assert corpus(run) == corpus(straight_run)
    a, b = summary(run), summary(straight_run)
    assert a["stopped_because"] == b["stopped_because"] and a["final"] == b["final"]

    def counts(s):   # everything but timings (training seconds differ between any two runs)
        return [{k: v for k, v in it.items() if k != "classifier_detail"} for it in s["iterations"]]

    assert counts(a) == counts(b)                  # no stage counted twice
    assert a["ingest"]["pages"] == b["ingest"]["pages"]


def test_manual_annotation_pauses_and_resumes_with_the_marks(crawl, paused_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(paused_run, run)
    s = summary(run)
    assert s["stopped_because"] == "awaiting_annotation"
    assert s["marked_file"] == str(paused_run / "iter=001" / "annotations" / "marked_paths.txt")
    marked = run / "iter=001" / "annotations" / "marked_paths.txt"   # the copy's: a run folder can move
    assert marked.exists()
    assert not (run / "iter=002" / "seed").exists()

    # a person marks the candidate with the most collected pages: uncomment its line
    lines = marked.read_text().splitlines()
    cands = [(k, ln) for k, ln in enumerate(lines) if ln.startswith("# ") and "/" in ln.split()[1]
             and "collected" in ln]
    assert cands, "the worksheet lists no candidate prefix"

    def collected(ln):
        return int(ln.split("pages, ")[1].split(" collected")[0])

    k, line = max(cands, key=lambda kl: collected(kl[1]))
    path = line[2:].split()[0]
    lines[k] = path + "   # person: looks like maths"
    marked.write_text("\n".join(lines) + "\n")

    run_ok(manual_args(crawl, run))
    seed = table(run / "iter=002" / "seed").to_pylist()
    sources = {r["source"] for r in seed}
    assert f"path:{path}" in sources
    ann = json.loads((run / "iter=001" / "annotations" / "_COMMIT.json").read_text())
    assert ann["counts"]["decided_by"].get("person", 0) >= 1
    assert path in ann["counts"]["marked"]


def test_invalid_marked_file_is_rejected_without_side_effects(crawl, paused_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(paused_run, run)
    marked = run / "iter=001" / "annotations" / "marked_paths.txt"
    marked.write_text(marked.read_text() + "not a path line\n")
    p = cli(manual_args(crawl, run))
    assert p.returncode == 2
    assert str(marked) in p.stderr
    assert not (run / "iter=001" / "annotations" / "_COMMIT.json").exists()
    assert not (run / "iter=002").exists()


def test_bad_labels_file_fails_before_any_work(crawl, tmp_path):
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"url": "http://a/", "label": "math"}\nnot json\n')
    run = tmp_path / "run"
    p = cli(["run", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run), "--labels", str(bad)])
    assert p.returncode == 2 and f"{bad}:2" in p.stderr
    assert not run.exists()


def test_rerun_with_benchmarks_decontaminates_the_final_corpus(crawl, straight_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(straight_run, run)
    rows = table(run / "final" / "corpus").to_pylist()
    # a benchmark item that is one line of a collected page (>= 10 words): that line must go
    page = next(r for r in sorted(rows, key=lambda r: r["page_id"])
                if any(len(ln.split()) >= 14 for ln in r["text"].splitlines()))
    line = next(ln for ln in page["text"].splitlines() if len(ln.split()) >= 14)
    bench = tmp_path / "benchmarks" / "gsm8k"
    bench.mkdir(parents=True)
    (bench / "test.jsonl").write_text(json.dumps({"question": line.upper(), "answer": "1", "cot": "x"}) + "\n")
    before = summary(run)
    p = run_loop(crawl, run, "--benchmarks", str(tmp_path / "benchmarks"))
    after = summary(run)
    assert after["iterations"] == before["iterations"]             # only the final stage was redone
    assert after["final"]["segments_removed"] >= 1
    assert after["final"]["pages_removed_by_decontamination"] is not None
    out = {r["page_id"]: r["text"] for r in table(run / "final" / "corpus").to_pylist()}
    assert page["page_id"] not in out or line not in out[page["page_id"]]
    contam = table(run / "final" / "contamination").to_pylist()
    assert any(r["page_id"] == page["page_id"] and r["benchmark"] == "gsm8k" for r in contam)
    assert "already committed" in p.stdout
