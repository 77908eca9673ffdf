"""What the loop and its commands say around a person's step, and the seed-unchanged stop (no Spark)."""
from __future__ import annotations

from corpus_pipeline import annotate as A
from corpus_pipeline.cli import main
from corpus_pipeline.runfolder import RunFolder

ROWS = [{"host": "askmaths.net", "prefix": "/questions/", "depth": 1, "pages": 40, "collected": 30,
         "fraction": 0.75, "examples": "[]"}]


def applied_run(tmp_path, mode: str) -> RunFolder:
    run = RunFolder(str(tmp_path / "run"))
    adir = run.path("iter=002", "annotations")
    marks = [A.Mark("askmaths.net", "/questions/", mode == "auto" and "proposer" or "person", "", "", 2)]
    A.write_worksheet(adir, ROWS, marks, 2)
    run.commit_in_place(adir, {"marks": 1}, config={"mode": mode})
    return run


def test_serve_on_an_auto_run_says_a_persons_step_needs_manual_mode(tmp_path, capsys):
    run = applied_run(tmp_path, "auto")
    assert main(["annotate", run.uri, "--serve", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "--annotate auto" in err and "--annotate manual" in err           # how to get a person's step
    assert f"corpus-pipeline annotate {run.uri}`" in err and A.MARKED in err   # how to review the proposer's marks
    assert err.count("\n") == 1


def test_serve_on_a_manual_run_already_applied(tmp_path, capsys):
    run = applied_run(tmp_path, "manual")
    assert main(["annotate", run.uri, "--serve", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "already applied" in err and "--annotate auto" not in err


def test_a_run_waiting_for_marks_says_so_once_and_names_the_page():
    from corpus_pipeline.report.markdown import render_markdown

    s = {"run": "/r", "iterations": [], "stopped_because": "awaiting_annotation",
         "marked_file": "/r/iter=001/annotations/marked_paths.txt",
         "final": {"pages": None, "tokens": None, "pages_removed_by_decontamination": None,
                   "segments_removed": None}}
    md = render_markdown(s)
    assert "final corpus" not in md and "None pages" not in md
    assert md.lower().count("waiting for annotation") == 1
    assert "`corpus-pipeline annotate /r --serve`" in md and "/r/iter=001/annotations/marked_paths.txt" in md
    done = render_markdown({**s, "marked_file": None, "final": {**s["final"], "pages": 3, "tokens": 40}})
    assert "final corpus (final/corpus/): 3 pages, 40 tokens" in done and "waiting for annotation" not in done


def test_seed_unchanged_is_the_stop_rule():
    from corpus_pipeline.pipeline.iteration import seed_unchanged

    assert seed_unchanged({"seed_positives": 40, "seed_added": 0})
    assert seed_unchanged({"seed_positives": 40})
    assert not seed_unchanged({"seed_positives": 41, "seed_added": 1})
