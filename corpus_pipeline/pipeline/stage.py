"""What a stage of the recipe declares.

A stage is one committed folder of the run folder.  Subclasses set the class
attributes and implement :meth:`Stage.build` (files) or :meth:`TableStage.table`
(a table written as Parquet, counted from what was written); the runner
(:mod:`corpus_pipeline.pipeline.runner`) does everything else: skip when
committed, record the settings that shaped the result, commit by marker.

How the output is committed is declared by ``commit_mode``, never re-implemented:

* :data:`NEW_ATTEMPT` (the default): :meth:`Stage.build` writes into a new
  attempt folder, then the runner writes the marker;
* :data:`IN_PLACE` (the annotation worksheet, which a person edits between two
  runs): :meth:`Stage.write` writes into the stage folder itself and returns the
  counts and config (it may raise :class:`StopLoop` first, before any marker);
  the runner's marker makes it final;
* :data:`BATCHES` (extraction): :meth:`Stage.write` commits units of work as
  sub-folders with their own markers through ``ctx.commit_batch`` (a killed run
  resumes per batch; :meth:`Stage.batches` lists them) and returns the totals;
  the runner then writes the stage's marker in place.

A minimal table stage, e.g. a length filter placed after ``pages``::

    class MinLength(TableStage):
        name, path, schema = "min_length", "min_length", schemas.PAGES
        provides = "pages"                    # later stages read it as "pages"
        reads = ("pages",)
        keys = ()

        def table(self, ctx):
            return ctx.read("pages").where("length(text) >= 500")

        def count(self, ctx, df):
            return {"pages": df.count()}
"""
from __future__ import annotations

import fnmatch
import json
from typing import Optional

from ..config import Config

INGEST, ITERATION, FINAL = "ingest", "iteration", "final"     # where a stage runs: once, per iteration, at the end
NEW_ATTEMPT, IN_PLACE, BATCHES = "attempt", "in_place", "batches"   # how its output is committed (commit_mode)


class StopLoop(Exception):
    """Raised by a step of an iteration to end the loop: ``reason`` becomes ``stopped_because``."""

    def __init__(self, reason: str, marked_file: Optional[str] = None, last_iteration: Optional[int] = None,
                 detail: Optional[str] = None):
        super().__init__(reason)
        self.reason = reason
        self.marked_file = marked_file
        self.last_iteration = last_iteration    # the iteration the loop ends with (None: the one that raised)
        self.detail = detail                    # why, when the reason has several causes (loop.json's stop_detail)


def flat(cfg: Config) -> dict:
    """``section.key -> value`` of every setting."""
    return {f"{s}.{k}": v for s, sec in cfg.to_dict().items() for k, v in sec.items()}


def matches(key: str, keys: tuple, exclude: tuple = ()) -> bool:
    return any(fnmatch.fnmatch(key, p) for p in keys) and not any(fnmatch.fnmatch(key, p) for p in exclude)


class Stage:
    """One committed stage. Class attributes describe it; the runner reads them."""

    name: str = ""                  # unique in the recipe; what ctx.read() and the plan call it
    path: str = ""                  # relative to RUN; "{iter}" is the iteration folder
    scope: str = INGEST             # INGEST, ITERATION or FINAL
    schema: Optional[str] = None    # DDL of the table it holds (None: files)
    reads: tuple = ()               # names of the stages whose output it reads
    section: Optional[str] = None   # the config section it records in its marker
    keys: tuple = ()                # config keys (fnmatch patterns) that shape the result
    exclude: tuple = ()             # patterns taken out of ``keys``
    leaf: bool = False              # nothing reads it later: recomputed without asking
    provides: Optional[str] = None  # the name later stages read it by (default: ``name``)
    about: str = ""                 # one line for the plan and the README's recipe list
    commits: bool = True            # False: a step of the loop that writes nothing (the stop rule)
    cached: bool = False            # True: read once per run and kept in memory (the pages)
    commit_mode: str = NEW_ATTEMPT  # NEW_ATTEMPT, IN_PLACE or BATCHES (see the module's docstring)

    @property
    def output_name(self) -> str:
        return self.provides or self.name

    def location(self, run, i: Optional[int] = None) -> str:
        rel = self.path.replace("{iter}", run.iter_name(i) if i is not None else "")
        return run.path(*rel.split("/"))

    def settings(self, cfg: Config, extra: Optional[dict] = None) -> dict:
        """The flat ``section.key -> value`` settings that shaped this stage (plus ``extra``)."""
        out = {k: v for k, v in flat(cfg).items() if matches(k, self.keys, self.exclude)}
        out.update(extra or {})
        return json.loads(json.dumps(out, default=str))     # as the marker stores it

    # ---------------------------------------------------------------- what subclasses implement
    def applies(self, ctx) -> bool:
        """False: the stage is not part of this run (no labels, no benchmarks, ...)."""
        return True

    def extra_settings(self, ctx) -> Optional[dict]:
        """Settings that are not config keys (a digest of the seed or labels, the benchmarks)."""
        return None

    def current_settings(self, ctx) -> dict:
        """The settings of this run that shape the stage, as its marker records them."""
        return self.settings(ctx.cfg, self.extra_settings(ctx))

    def record(self, ctx) -> Optional[dict]:
        """The ``config`` its marker records (default: its config section)."""
        return {self.section: ctx.cfg.section(self.section)} if self.section else None

    def records_settings(self, ctx) -> bool:
        """False: the marker records no settings (a person's marks depend on none)."""
        return True

    def compares(self, marker: dict) -> bool:
        """False: the settings recorded in ``marker`` are not checked on a rerun."""
        return True

    def stale(self, ctx, marker: dict) -> bool:
        """True: the committed output no longer fits this run (invalidated before the walk)."""
        return False

    def build(self, ctx, staging: str) -> dict:
        """Write the output into ``staging``; return the counts the marker records."""
        raise NotImplementedError

    def write(self, ctx, location: str) -> tuple[dict, Optional[dict]]:
        """``IN_PLACE`` and ``BATCHES`` stages: write the output under ``location`` itself (batches
        through ``ctx.commit_batch``); return (counts, config) for the marker the runner writes."""
        raise NotImplementedError

    def batches(self, run) -> list[str]:
        """``BATCHES`` stages: the batch folders (committed or not), in order."""
        return []

    def check(self, ctx):
        """A step that commits nothing (``commits = False``): raise :class:`StopLoop` to end the loop."""

    def schema_for(self, cfg: Config) -> Optional[str]:
        """The table's DDL for this run (the pages' markup column is the profile's)."""
        return self.schema

    def load(self, ctx, location: str):
        """The committed output as a DataFrame (tables only)."""
        if self.schema is None:
            raise TypeError(f"stage {self.name} holds files, not a table")
        return ctx.read_table(location, self.schema_for(ctx.cfg))

    def done(self, ctx, result) -> None:
        """After the stage is committed or found committed: log what a person reads."""

    def describe(self, cfg: Config) -> str:
        return self.about


class TableStage(Stage):
    """A stage whose output is one table: ``table(ctx)`` written as Parquet, ``count(ctx, df)``
    computed from the written data."""

    def table(self, ctx):
        raise NotImplementedError

    def count(self, ctx, df) -> dict:
        return {"rows": df.count()}

    def observed(self, ctx) -> Optional[dict]:
        """The counts as SQL aggregates over the rows written (``{"rows": "count(1)"}``), computed by
        the write's own job; None: :meth:`count` reads the written table back (counts that need more
        than one aggregate, such as a histogram).  The default ``count`` is observed."""
        return {"rows": "count(1)"} if type(self).count is TableStage.count else None

    def from_observed(self, values: dict) -> dict:
        """The marker's counts from the observed ``{name: value}`` (default: as they are)."""
        return values

    def build(self, ctx, staging: str) -> dict:
        schema = self.schema_for(ctx.cfg)
        aggregates = self.observed(ctx)
        if aggregates:
            from ..spark.io import write_observed

            return self.from_observed(write_observed(self.table(ctx), staging, schema, aggregates))
        ctx.write_table(self.table(ctx), staging, schema)
        return self.count(ctx, ctx.read_table(staging, schema))
