"""The report flags an iteration whose collection grew while its seed did not (no Spark)."""
from __future__ import annotations

from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.report.markdown import render_markdown
from corpus_pipeline.report.summary import build_summary
from corpus_pipeline.runfolder import RunFolder


def _commit(run, path, counts):
    run.stage(path, lambda s: counts, log=lambda m: None)


def test_drift_warning_when_collection_grows_with_the_same_seed(tmp_path):
    run = RunFolder(tmp_path / "run")
    view = RunView(run)
    # seed 10 -> 12 -> 12 -> 12; collected 5 -> 8 (seed grew) -> 9 (seed did not: drift) -> 9
    for i, (seed, n) in enumerate([(10, 5), (12, 8), (12, 9), (12, 9)], 1):
        _commit(run, view.location("seed", i), {"seed_positives": seed, "seed_added": 0,
                                                "seed_added_precision": 0.5 if i == 2 else None})
        _commit(run, view.location("collected", i), {"collected_pages": n, "collected_tokens": n,
                                                     "overlap_with_previous": None, "new_pages": 1})
    s = build_summary(run)
    assert [it["drift_warning"] for it in s["iterations"]] == [False, False, True, False]
    assert s["iterations"][0]["seed_added_precision"] == 0.5      # of the pages added to iteration 2's seed
    md = render_markdown(s)
    assert "drift warning: iteration 3 " in md and "iteration 2 collected" not in md
