"""The loop: walks the recipe (:mod:`corpus_pipeline.pipeline.recipe`) with the runner.

Ingest once; then iterations ``i = 1, 2, ...`` (folder ``iter=NNN``), each the
recipe's iteration stages in order, until the stop rule ends the loop
("saturated": ``overlap_with_previous >= loop.saturation``; "max_iterations"),
or, in manual annotation mode, a worksheet waits for a person
("awaiting_annotation"); then the final stages on the last iteration.

Every stage output is committed in the run folder (an attempt folder made
valid by its marker, :mod:`corpus_pipeline.runfolder`), so running the same
command again after a crash or a kill skips what is committed and redoes only
what is not: the final corpus is the same as an uninterrupted run's, and no
stage is counted twice (counts live in each stage's commit marker).  Each
marker records the settings that shaped it, and :meth:`Loop.check_settings`
refuses a rerun whose settings differ (or, with ``--recompute``, redoes from
the first stage they shape).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import fs as fsmod
from . import sources
from .config import Config
from .errors import NoInputError, UsageError
from .pipeline.iteration import AWAITING, AWAITING_FILE, MAX_ITERATIONS, SATURATED, seed_digest, stop_reason
from .pipeline.recipe import Recipe, default_recipe
from .pipeline.runner import Context, Runner
from .pipeline.runview import RUN_JSON, STAGES, RunView, stage_entries
from .pipeline.settings import check_settings
from .pipeline.stage import StopLoop
from .runfolder import RunFolder
from .runlog import logger, run_log

__all__ = ["AWAITING", "AWAITING_FILE", "MAX_ITERATIONS", "SATURATED", "Loop", "LoopInputs", "LoopOutcome",
           "stop_reason"]


@dataclass
class LoopInputs:
    inputs: list
    run: str
    seed_corpus: Optional[str] = None
    labels: Optional[str] = None
    benchmarks: Optional[str] = None
    annotate: Optional[str] = None        # None: config's annotate.mode
    max_iterations: Optional[int] = None  # None: config's loop.max_iterations
    recompute: bool = False               # accept changed settings: redo the first stage they shape and after


@dataclass
class LoopOutcome:
    stopped_because: str
    iterations: int
    marked_file: Optional[str] = None
    log: list = field(default_factory=list)


class Loop:
    def __init__(self, spark, inputs: LoopInputs, cfg: Config, log: Callable[[str], None] = print,
                 recipe: Optional[Recipe] = None):
        self.spark = spark
        self.cfg = cfg
        self.run = RunFolder(inputs.run, spark)
        self.log = log
        self.mode = inputs.annotate or cfg.annotate.mode
        if self.mode not in ("auto", "manual"):
            raise UsageError(f"--annotate: expected auto or manual, got {self.mode!r}")
        self.max_iterations = inputs.max_iterations or cfg.loop.max_iterations
        if self.max_iterations < 1:
            raise UsageError("--max-iterations must be >= 1")
        # the inputs as the stages see them: the annotation mode and the maximum resolved
        self.inp = dataclasses.replace(inputs, annotate=self.mode, max_iterations=self.max_iterations)
        self.recipe = recipe or default_recipe()
        self.recipe.check()
        self.runner = Runner(spark, self.run, cfg, self.recipe, self.inp, log=self.say)
        self.view = RunView(self.run, stage_entries(self.recipe))
        self._t0 = time.time()

    def say(self, msg: str, level: int = 20) -> None:
        self.log(f"[{time.time() - self._t0:7.1f}s] {msg}")
        logger("loop").log(level, msg)              # RUN/logs/run.log, with time and level

    def check_settings(self) -> None:
        """Refuse (exit 2) or, with ``recompute``, redo stages whose recorded settings changed."""
        first = check_settings(self.run, self.cfg, self.inp.recompute, self.runner.settings, log=self.say,
                               recipe=self.recipe)
        if first:
            self.say(f"recomputing from {first}")

    def _check_run_identity(self) -> None:
        """A run folder belongs to one set of inputs: resuming with others would mix results."""
        ident = {
            "inputs": sorted(self.inp.inputs),
            "seed_corpus": self.inp.seed_corpus,
            "seed_digest": seed_digest(Context(self.runner, None, None)),   # a change is checked as a setting
        }
        path = self.run.path(RUN_JSON)
        old = self.run.read_json(path)
        stages = stage_entries(self.recipe)       # how report, inspect, annotate and judge find each stage
        if old is None:
            self.run.fs.mkdirs(self.run.uri)
            self.run.write_json(path, {**ident, "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                       "config": self.cfg.to_dict(), STAGES: stages})
            return
        for k in ("inputs", "seed_corpus"):
            if old.get(k) != ident[k]:
                raise UsageError(f"{self.run.uri} was started with {k}={old.get(k)!r}; this command has "
                                 f"{ident[k]!r}. Use a new --run folder or the original inputs.")

    def _record_stages(self) -> None:
        """``run.json``'s stage list is this recipe's (a folder from before the list, or a recipe with a stage
        inserted, once the settings check accepted it)."""
        path = self.run.path(RUN_JSON)
        old = self.run.read_json(path) or {}
        stages = stage_entries(self.recipe)
        if old.get(STAGES) != stages:
            self.run.write_json(path, {**old, STAGES: stages})

    # ------------------------------------------------------------------ the walk
    def ingest(self):
        self.say(f"ingest: {len(self.inp.inputs)} input argument(s) -> {self.view.location('pages')}")
        res = self.runner.walk(self.recipe.ingest)
        last = res[self.recipe.ingest[-1].name]
        self.say(f"ingest: {last.counts.get('pages', '?')} pages kept" + (" (already committed)" if last.skipped
                                                                          else ""))

    def iteration(self, i: int) -> Optional[StopLoop]:
        """Run iteration i's stages; the StopLoop that ended the loop, or None."""
        try:
            self.runner.walk(self.recipe.iteration, i)
        except StopLoop as stop:
            return stop
        return None

    def final(self, last: int) -> None:
        self.runner.last_iteration = last
        self.runner.invalidate_stale(self.recipe.final)     # the loop went further, or benchmarks changed
        self.runner.walk(self.recipe.final)

    # ------------------------------------------------------------------ driver
    def execute(self) -> LoopOutcome:
        with run_log(self.run):
            return self._execute()

    def _execute(self) -> LoopOutcome:
        self._check_run_identity()
        self.check_settings()
        self._record_stages()
        try:
            self.ingest()
        except NoInputError:
            # nothing was read: the run folder is not bound to these inputs (a rerun may name others)
            if not self.view.committed("pages", exact=True):
                self.run.fs.delete(self.run.path(RUN_JSON))
            raise
        stop, i = None, 0
        for i in range(1, self.max_iterations + 1):
            stop = self.iteration(i)
            if stop:
                break
        if stop is None:                    # the stop rule ends the last iteration; an empty recipe does not
            stop = StopLoop(MAX_ITERATIONS)
        i = stop.last_iteration or i        # a seed equal to the last one ends the loop before its iteration
        state = {"stopped_because": stop.reason, "last_iteration": i, "mode": self.mode,
                 "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if stop.detail:
            state["stop_detail"] = stop.detail
        if stop.reason == AWAITING:
            state["marked_file"] = stop.marked_file
            self.run.write_json(self.run.path("loop.json"), state)
            return LoopOutcome(AWAITING, i, stop.marked_file)
        self.final(i)
        self.run.write_json(self.run.path("loop.json"), state)
        return LoopOutcome(stop.reason, i)


def precheck_inputs(inputs: list, run: str, cfg: Config, log: Callable[[str], None] = print) -> None:
    """Before any JVM: local inputs are checked by their first bytes (:func:`sources.precheck`), so a run
    whose every input is missing, empty or not a WARC exits 2 at once with one line naming them; files
    skipped beside good ones are said here and counted when read.  Nothing is checked when the run
    folder's pages are committed already (a resumed run does not need its inputs again), or when
    the run folder is not local (its inputs are checked where they are read)."""
    if not fsmod.is_local(run) or RunView(RunFolder(run)).committed("pages", exact=True):
        return
    bad = sources.precheck(list(inputs), cfg.ingest)
    for ref, why in (bad or {}).items():
        log(f"[ingest] {ref}: {why}: skipped (counted when the inputs are read)")


def run_ingest(spark, inputs: list[str], run: RunFolder, cfg: Config, log: Callable[[str], None] = print,
               recipe: Optional[Recipe] = None, recompute: bool = False):
    """The recipe's ingest stages alone (the ``ingest`` command): the result of its last stage.

    Their committed settings are checked first, as the loop checks them (the runner's settings,
    ``recipe.upstream`` included): a change is refused (UsageError) or, with ``recompute``, redone
    with every later stage.  The iterations' settings are not compared: this command does not know
    the loop's inputs (its seed corpus, its labels).
    Raises :class:`UsageError` when an input matches nothing and
    :class:`NoInputError` when no file could be read at all.
    """
    recipe = recipe or default_recipe()
    runner = Runner(spark, run, cfg, recipe, LoopInputs(inputs=list(inputs), run=run.uri), log=log)
    with run_log(run):              # a failure's traceback goes to RUN/logs/run.log, not the console
        first = check_settings(run, cfg, recompute, lambda s: runner.settings(s) if s in recipe.ingest else {},
                               log=log, recipe=recipe)
        if first:
            log(f"recomputing from {first}")
        return runner.walk(recipe.ingest)["pages"]
