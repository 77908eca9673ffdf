"""The one runner: walks the recipe, skips committed stages, builds, counts and commits.

Every stage output is committed in the run folder (an attempt folder made valid
by its marker, :mod:`corpus_pipeline.runfolder`), along the one path of
:meth:`Runner.commit`: skip when committed, the settings, the stage's build in
the way its ``commit_mode`` declares (a new attempt, in place, or batches each
committed on its own), then the stage's marker; the marker records the counts
and the settings that shaped the stage, plus ``recipe.upstream``, the names of
the stages before it in the recipe, so inserting or removing a stage is seen by
the settings check like a changed setting (:mod:`.settings`).

A stage reads another's output through its context, never by path:
``ctx.read("scores", i)`` is the table of the last stage before the reader that
provides ``scores`` (a stage inserted after ``pages`` with ``provides =
"pages"`` is what every later stage reads as ``pages``).
"""
from __future__ import annotations

from typing import Callable, Optional

from ..config import Config
from ..labels import load_labels
from ..runfolder import RunFolder, StageResult
from ..spark.io import read_table, write_table
from ..spark.progress import product_stage, stage_label
from .recipe import Recipe
from .runview import RunView, stage_entries
from .stage import BATCHES, FINAL, IN_PLACE, INGEST, ITERATION, NEW_ATTEMPT, Stage

_RANK = {INGEST: 0, ITERATION: 1, FINAL: 2}
UPSTREAM = "recipe.upstream"


class Runner:
    def __init__(self, spark, run: RunFolder, cfg: Config, recipe: Recipe, inputs=None,
                 log: Callable[[str], None] = print):
        self.spark = spark
        self.run = run
        self.cfg = cfg
        self.recipe = recipe
        self.inputs = inputs
        self.log = log
        self.memo: dict = {}            # values two stages of one process share (computed once)
        self._tables: dict = {}
        self._labels = None
        self.last_iteration: Optional[int] = None

    # ------------------------------------------------------------------ positions
    def _key(self, stage: Stage, i: Optional[int]) -> tuple:
        return (_RANK[stage.scope], i or 0, self.recipe.index(stage))

    def provider(self, name: str, i: Optional[int] = None, before: Optional[tuple] = None) -> Stage:
        """The stage whose output is read as ``name``: the last provider before ``before``."""
        found = None
        for s in self.recipe.stages():
            if s.output_name != name or not s.commits:
                continue
            if before is None or self._key(s, i if s.scope == ITERATION else None) < before:
                found = s
        if found is None:
            raise KeyError(f"no stage of the recipe provides {name!r} here")
        return found

    def upstream(self, stage: Stage) -> list[str]:
        return self.recipe.names_before(stage)

    # ------------------------------------------------------------------ settings
    def settings(self, stage: Stage) -> dict:
        """What the stage's marker records as ``settings``: its current settings and the stages before it."""
        return {**stage.current_settings(Context(self, stage, None)), UPSTREAM: self.upstream(stage)}

    # ------------------------------------------------------------------ tables
    def read_table(self, location: str, ddl: Optional[str]):
        return read_table(self.spark, self.run.data(location), ddl)

    def write_table(self, df, path: str, ddl: Optional[str]) -> None:
        write_table(df, path, ddl)

    def table(self, stage: Stage, i: Optional[int]):
        location = stage.location(self.run, i)
        key = self.run.data(location)
        df = self._tables.get(key)
        if df is None:
            df = stage.load(Context(self, stage, i), location)
            if stage.cached:
                df = df.cache()
                self._tables[key] = df
        return df

    def labels(self):
        """The labels as a cached table (None without --labels): evaluation only."""
        path = getattr(self.inputs, "labels", None)
        if path is None:
            return None
        if self._labels is None:
            from ..spark.iteration import labels_df

            self._labels = labels_df(self.spark, load_labels(path)).cache()
        return self._labels

    # ------------------------------------------------------------------ running
    def ensure(self, stage: Stage, i: Optional[int] = None) -> Optional[StageResult]:
        """Commit ``stage`` (of iteration ``i``) unless it is committed; None when it does not apply."""
        ctx = Context(self, stage, i)
        with product_stage(self.spark, stage_label(stage.name, i)):     # progress lines, Spark UI
            if not stage.applies(ctx):
                return None
            if not stage.commits:
                return stage.check(ctx)
            location = stage.location(self.run, i)
            res = self.commit(stage, ctx, location)
            stage.done(ctx, res)
            return res

    def commit(self, stage: Stage, ctx: "Context", location: str) -> StageResult:
        """The one commit path: the recorded result when committed; otherwise the stage's output,
        built as its ``commit_mode`` declares, then its marker with the counts, config and settings."""
        done = self.run.committed_result(location)
        if done is not None:
            if stage.commit_mode != IN_PLACE:       # a committed worksheet is taken without a line
                self.log(f"[skip] {self.run._rel(location)} already committed")
            return done
        settings = self.settings(stage) if stage.records_settings(ctx) else None
        if stage.commit_mode == NEW_ATTEMPT:        # force: not committed (checked above), so no second look
            return self.run.stage(location, lambda staging: stage.build(ctx, staging),
                                  config=lambda: stage.record(ctx), log=self.log, settings=settings, force=True)
        if stage.commit_mode not in (IN_PLACE, BATCHES):
            raise ValueError(f"stage {stage.name}: unknown commit_mode {stage.commit_mode!r}")
        counts, config = stage.write(ctx, location)
        self.run.commit_in_place(location, counts, config=config, settings=settings)
        return StageResult(location, counts, config or {}, False)

    def commit_batch(self, stage: Stage, path: str, build: Callable[[str], Optional[dict]],
                     config: Callable[[], Optional[dict]]) -> StageResult:
        """One batch of a ``BATCHES`` stage: ``build`` into a new attempt of ``path``, then its own
        marker (the stage's settings), so a killed run keeps every committed batch."""
        return self.run.stage(path, build, config=config, settings=self.settings(stage), log=self.log)

    def invalidate_stale(self, stages: list[Stage], i: Optional[int] = None) -> None:
        for s in stages:
            if not s.commits:
                continue
            location = s.location(self.run, i)
            m = self.run.marker(location)
            if m is not None and s.stale(Context(self, s, i), m):
                self.run.invalidate(location)

    def walk(self, stages: list[Stage], i: Optional[int] = None) -> dict:
        """Ensure every stage of ``stages`` in order; the results by stage name."""
        return {s.name: self.ensure(s, i) for s in stages}


class Context:
    """What a stage sees: the session, settings, run folder, inputs, and the other stages' outputs."""

    def __init__(self, runner: Runner, stage: Optional[Stage], i: Optional[int]):
        self.runner = runner
        self.stage = stage
        self.i = i
        self.spark = runner.spark
        self.cfg = runner.cfg
        self.run = runner.run
        self.inputs = runner.inputs
        self.memo = runner.memo

    def say(self, msg: str) -> None:
        self.runner.log(msg)

    @property
    def view(self):
        """The run folder read by stage name through this runner's recipe (what report, inspect, annotate
        and judge read it with)."""
        return RunView(self.run, stage_entries(self.runner.recipe))

    def _here(self) -> Optional[tuple]:
        return self.runner._key(self.stage, self.i) if self.stage is not None else None

    def _stage(self, name: str, i: Optional[int]) -> tuple[Stage, Optional[int]]:
        try:
            s = self.runner.provider(name, i if i is not None else self.i, self._here())
        except KeyError:            # a later stage's folder (is it committed yet?)
            s = self.runner.provider(name)
        return s, (i if i is not None else self.i) if s.scope == ITERATION else None

    def location(self, name: str, i: Optional[int] = None) -> str:
        s, j = self._stage(name, i)
        return s.location(self.run, j)

    def read(self, name: str, i: Optional[int] = None):
        """The committed table read as ``name`` (of iteration ``i``; default: this one)."""
        s, j = self._stage(name, i)
        return self.runner.table(s, j)

    def counts(self, name: str, i: Optional[int] = None) -> dict:
        return self.run.counts(self.location(name, i))

    def committed(self, name: str, i: Optional[int] = None) -> bool:
        return self.run.is_committed(self.location(name, i))

    def read_table(self, location: str, ddl: Optional[str]):
        return self.runner.read_table(location, ddl)

    def commit_batch(self, path: str, build: Callable[[str], Optional[dict]],
                     config: Callable[[], Optional[dict]]) -> StageResult:
        """Commit one batch of this ``BATCHES`` stage at ``path`` (:meth:`Runner.commit_batch`)."""
        return self.runner.commit_batch(self.stage, path, build, config)

    def write_table(self, df, path: str, ddl: Optional[str]) -> None:
        self.runner.write_table(df, path, ddl)

    def labels(self):
        return self.runner.labels()

    @property
    def last_iteration(self) -> Optional[int]:
        return self.runner.last_iteration
