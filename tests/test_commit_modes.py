"""The one commit path: whatever a stage declares as ``commit_mode`` (a new attempt, in place, batches),
the runner skips it when committed and writes its marker (counts, config, settings); without Spark."""
import json

import pytest

from corpus_pipeline import fs as fsmod
from corpus_pipeline.config import load_config
from corpus_pipeline.loop import LoopInputs
from corpus_pipeline.pipeline.recipe import Recipe
from corpus_pipeline.pipeline import settings as st
from corpus_pipeline.pipeline.runner import UPSTREAM, Runner
from corpus_pipeline.pipeline.stage import BATCHES, IN_PLACE, INGEST, NEW_ATTEMPT, Stage, StopLoop
from corpus_pipeline.runfolder import RunFolder
from corpus_pipeline.errors import UsageError


class Calls(Stage):
    scope, keys = INGEST, ("dedup.bands",)

    def __init__(self):
        self.calls = 0


class Attempted(Calls):
    name, path, commit_mode = "attempted", "attempted", NEW_ATTEMPT

    def build(self, ctx, staging):
        self.calls += 1
        ctx.run.fs.write_text(fsmod.join(staging, "out.txt"), "x")
        return {"rows": 1}

    def record(self, ctx):
        return {"kind": "attempt"}


class InPlace(Calls):
    name, path, commit_mode = "in_place", "in_place", IN_PLACE
    stop = False

    def write(self, ctx, location):
        self.calls += 1
        ctx.run.fs.mkdirs(location)
        ctx.run.fs.write_text(fsmod.join(location, "sheet.txt"), "edit me")
        if self.stop:
            raise StopLoop("awaiting")
        return {"marks": 2}, {"kind": "in place"}


class Batched(Calls):
    name, path, commit_mode = "batched", "batched", BATCHES

    def batches(self, run):
        base = self.location(run)
        return [fsmod.join(base, e) for e in run.fs.listdir(base) if e.startswith("batch=")]

    def write(self, ctx, location):
        self.calls += 1
        for k in range(2):
            ctx.commit_batch(fsmod.join(location, f"batch={k:05d}"), lambda a: {"files": [f"f{k}"]},
                             config=lambda: {"batch": k})
        return {"batches": 2}, {"batches": ["batch=00000", "batch=00001"]}


def _runner(tmp_path, recipe, log):
    run = RunFolder(tmp_path / "run")
    return Runner(None, run, load_config(), recipe, LoopInputs(inputs=[], run=str(run.uri)), log=log)


@pytest.mark.parametrize("cls", [Attempted, InPlace, Batched])
def test_the_runner_commits_and_skips_every_commit_mode(tmp_path, cls):
    stage = cls()
    lines = []
    runner = _runner(tmp_path, Recipe(ingest=[stage]), lines.append)
    run = runner.run
    res = runner.ensure(stage)
    assert stage.calls == 1 and not res.skipped
    m = run.marker(stage.location(run))
    assert m["stage"] == stage.path and m["counts"] == res.counts
    assert m["settings"] == {"dedup.bands": 14, UPSTREAM: []} == runner.settings(stage)
    assert m["config"] == res.config
    if cls is Attempted:                     # the data in the attempt the marker names
        assert m["config"] == {"kind": "attempt"} and m["attempt"]
        assert run.fs.read_text(fsmod.join(run.data(stage.location(run)), "out.txt")) == "x"
    else:                                    # the data in the stage folder itself
        assert "attempt" not in m and run.data(stage.location(run)) == stage.location(run)
    if cls is Batched:                       # each batch committed on its own, with the stage's settings
        for b in stage.batches(run):
            bm = run.marker(b)
            assert bm["attempt"] and bm["settings"] == m["settings"] and bm["counts"]["files"]

    again = runner.ensure(stage)
    assert stage.calls == 1 and again.skipped and again.counts == res.counts
    skip = f"[skip] {stage.path} already committed"
    assert (skip in lines) == (cls is not InPlace)      # a committed worksheet is taken without a line
    assert json.loads(run.fs.read_text(fsmod.join(stage.location(run), "_COMMIT.json"))) == m


def test_in_place_stop_writes_no_marker_and_a_rerun_writes_again(tmp_path):
    stage = InPlace()
    stage.stop = True
    runner = _runner(tmp_path, Recipe(ingest=[stage]), lambda m: None)
    with pytest.raises(StopLoop):
        runner.ensure(stage)
    assert not runner.run.is_committed(stage.location(runner.run))
    assert runner.run.fs.exists(fsmod.join(stage.location(runner.run), "sheet.txt"))
    stage.stop = False
    assert not runner.ensure(stage).skipped and stage.calls == 2
    assert runner.run.is_committed(stage.location(runner.run))


def test_settings_check_reads_the_batches_of_an_unfinished_batched_stage(tmp_path):
    """The settings check finds a BATCHES stage's committed batches by the declared mode (no stage's class)."""
    stage = Batched()
    recipe = Recipe(ingest=[stage])
    runner = _runner(tmp_path, recipe, lambda m: None)
    runner.ensure(stage)
    runner.run.fs.delete(fsmod.join(stage.location(runner.run), "_COMMIT.json"))     # killed before the stage's marker
    with pytest.raises(UsageError, match="dedup.bands"):
        st.check_settings(runner.run, load_config(overrides=["dedup.bands=7"]), log=lambda m: None, recipe=recipe)
