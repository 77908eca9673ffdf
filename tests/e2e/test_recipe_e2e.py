"""A stage added from outside the package: one class and one list insertion, and the loop runs with it.
The settings check notices the insertion like a changed setting (refused, or redone with --recompute)."""
from __future__ import annotations

import shutil

import pytest

from corpus_pipeline import schemas
from corpus_pipeline.pipeline.stage import INGEST, TableStage

pytestmark = [pytest.mark.spark]

MIN_CHARS = 1500


class MinLength(TableStage):
    """A quality filter between dedup and classification: pages with at least MIN_CHARS characters."""

    name, path, scope, schema = "min_length", "min_length", INGEST, schemas.PAGES
    provides, cached, reads = "pages", True, ("pages",)
    about = f"pages of at least {MIN_CHARS} characters"

    def table(self, ctx):
        return ctx.read("pages").where(f"length(text) >= {MIN_CHARS}")

    def count(self, ctx, df):
        return {"pages": df.count()}


def test_a_toy_stage_between_dedup_and_classification(spark, crawl, straight_run, tmp_path):
    from corpus_pipeline.config import load_config
    from corpus_pipeline.errors import UsageError
    from corpus_pipeline.loop import Loop, LoopInputs
    from corpus_pipeline.pipeline.recipe import default_recipe
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.io import read_table

    recipe = default_recipe()
    recipe.insert_after("pages", MinLength())                      # the one list insertion

    run = tmp_path / "run"
    shutil.copytree(straight_run, run)
    cfg = load_config(overrides=["ingest.extract_timeout_s=120"])  # the shared run's settings (runs.SETTINGS)
    inputs = LoopInputs(inputs=[str(crawl / "warc" / "*.warc.gz")], run=str(run),
                        labels=str(crawl / "labels.jsonl"), max_iterations=1)
    with pytest.raises(UsageError) as e:                            # the committed iterations had no filter
        Loop(spark, inputs, cfg, log=lambda m: None, recipe=recipe).execute()
    assert "recipe.upstream" in str(e.value) and "stage prepared" in str(e.value)   # the first stage after it

    inputs.recompute = True
    outcome = Loop(spark, inputs, cfg, log=lambda m: None, recipe=recipe).execute()
    assert outcome.iterations == 1 and outcome.stopped_because == "max_iterations"

    rf = RunFolder(str(run), spark)
    view = RunView(RunFolder(str(run)))              # the stages by name, from run.json's stage list
    ingested = view.location("pages", exact=True)    # the pages stage's own folder (min_length provides "pages")
    kept = read_table(spark, rf.data(rf.path("min_length")), schemas.PAGES)
    n_kept, n_pages = rf.counts(rf.path("min_length"))["pages"], rf.counts(ingested)["pages"]
    assert kept.count() == n_kept and 0 < n_kept < n_pages
    assert kept.where(f"length(text) < {MIN_CHARS}").count() == 0
    scores = read_table(spark, rf.data(view.location("scores", 1)), schemas.SCORES)
    assert scores.count() == n_kept                                 # the classifier saw the filtered pages only
    assert scores.join(kept, "page_id", "left_anti").count() == 0
    assert rf.marker(rf.path("prepared"))["settings"]["recipe.upstream"][-1] == "min_length"
    assert "min_length" in rf.marker(view.location("seed", 1))["settings"]["recipe.upstream"]
    assert rf.counts(view.location("corpus"))["pages"] <= n_kept

    # the run view (built from run.json's stage list) reads the inserted stage as "pages": inspect's
    # look-ups and the report see the filtered pages, the ingest counts stay the pages stage's own
    from corpus_pipeline import arrowrun
    from corpus_pipeline.report.summary import build_summary

    assert [s["name"] for s in view.stages].index("min_length") == [s["name"] for s in view.stages].index("pages") + 1
    assert view.location("pages") == rf.path("min_length") and view.location("pages", exact=True) == rf.path("pages")
    before = {r["host"]: r["count"] for r in read_table(spark, rf.data(ingested), schemas.PAGES)
              .groupBy("host").count().collect()}
    after = {r["host"]: r["count"] for r in kept.groupBy("host").count().collect()}
    host = max((h for h in after if h and after[h] < before[h]), key=lambda h: (after[h], h))   # the filter cut it
    assert arrowrun.pages_of(view, None, host, None, 3)["pages"] == after[host] < before[host]
    s = build_summary(RunFolder(str(run)))
    assert s["ingest"] == rf.counts(ingested) and s["ingest"]["pages"] == n_pages
