"""One way to read a run folder: where each stage of the recipe the run was built with keeps its output.

The loop records its recipe's committed stages in ``RUN/run.json`` (``stages``: name, the name later
stages read it by, folder, scope, table schema); a view built from that list finds a stage a user
inserted (``recipe.insert_after("pages", MinLength())``) as the runner does: ``"pages"`` is the last
stage providing ``pages``. A run folder made before the list was recorded is read with the default
recipe's list. The stages a command commits beside the recipe's (``judge``'s sample of an iteration,
:data:`COMMAND_STAGES`) are found by name the same way.

The report, ``inspect``, ``annotate``, ``judge`` and the development tools read through a view, with
one of two backends: Spark DataFrames (:meth:`RunView.table`) or the pyarrow look-ups
(``arrowrun.py``, which take a view and start no JVM). A view also answers what its
:class:`~corpus_pipeline.runfolder.RunFolder` answers (markers, counts, data folders, the filesystem).
"""
from __future__ import annotations

from typing import Optional

from .. import judging
from ..errors import UsageError
from ..runfolder import RunFolder, open_existing
from .stage import ITERATION

RUN_JSON = "run.json"
STAGES = "stages"           # run.json's key: the recipe's committed stages
# committed stages a command writes beside the recipe's: ``judge`` draws an iteration's sample
COMMAND_STAGES = [{"name": judging.SAMPLE_STAGE, "provides": judging.SAMPLE_STAGE,
                   "path": "{iter}/" + judging.SAMPLE_STAGE, "scope": ITERATION, "schema": None}]


def stage_entries(recipe) -> list[dict]:
    """What ``run.json`` records of ``recipe``: its committed stages, top to bottom."""
    return [{"name": s.name, "provides": s.output_name, "path": s.path, "scope": s.scope, "schema": s.schema}
            for s in recipe.committed_stages()]


def _default_entries() -> list[dict]:
    from .recipe import default_recipe        # recipe imports the stages, which read runs through views

    return stage_entries(default_recipe())


class RunView:
    """A committed run folder read by stage name: ``location``, ``committed``, ``marker``, ``counts``,
    ``table``; every other attribute is the run folder's."""

    def __init__(self, run: RunFolder, stages: Optional[list[dict]] = None):
        self.run = run
        if stages is None:
            recorded = (run.read_json(run.path(RUN_JSON), {}) or {}).get(STAGES)
            stages = recorded if recorded else _default_entries()
        self.stages = list(stages)

    @classmethod
    def of(cls, run, recipe=None) -> "RunView":
        """``run`` as a view (a view is returned as it is); ``recipe``: the stages to read it by."""
        if isinstance(run, RunView):
            return run
        return cls(run, stage_entries(recipe) if recipe is not None else None)

    def __getattr__(self, name: str):
        if name == "run":                  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.run, name)

    def stage_entry(self, name: str, exact: bool = False) -> dict:
        """The stage read as ``name``: the last one providing it, else the one called so (``exact``: the
        one called so, such as ``pages`` for its ingest counts when a filter after it provides ``pages``);
        a recipe's stage before a command's of the same name."""
        stages = COMMAND_STAGES + self.stages
        found = [] if exact else [s for s in stages if (s.get("provides") or s["name"]) == name]
        if not found:
            found = [s for s in stages if s["name"] == name]
        if not found:
            raise KeyError(f"no stage of the run's recipe provides {name!r}")
        return found[-1]

    def location(self, name: str, i: Optional[int] = None, exact: bool = False) -> str:
        """The folder of the stage read as ``name`` (of iteration ``i`` for an iteration's stage)."""
        s = self.stage_entry(name, exact)
        if s["scope"] == ITERATION and i is None:
            raise ValueError(f"{name} is an iteration's stage: name the iteration")
        rel = s["path"].replace("{iter}", self.run.iter_name(i) if s["scope"] == ITERATION else "")
        return self.run.path(*rel.split("/"))

    def committed(self, name: str, i: Optional[int] = None, exact: bool = False) -> bool:
        return self.run.is_committed(self.location(name, i, exact))

    def stage_marker(self, name: str, i: Optional[int] = None, exact: bool = False) -> Optional[dict]:
        return self.run.marker(self.location(name, i, exact))

    def stage_counts(self, name: str, i: Optional[int] = None) -> dict:
        """The stage's marker counts ({} when it is not committed)."""
        return self.run.counts(self.location(name, i))

    def stage_data(self, name: str, i: Optional[int] = None) -> str:
        return self.run.data(self.location(name, i))

    def schema(self, name: str) -> Optional[str]:
        return self.stage_entry(name).get("schema")

    def committed_iterations(self, name: str = "collected") -> list[int]:
        """The iterations whose stage ``name`` is committed, ascending."""
        return [i for i in self.run.iterations() if self.committed(name, i)]

    def table(self, spark, name: str, i: Optional[int] = None, schema: Optional[str] = None):
        """The committed table of the stage read as ``name`` as a DataFrame (its recorded schema unless
        ``schema`` names the columns to read)."""
        from ..spark.io import read_table

        return read_table(spark, self.stage_data(name, i), schema or self.schema(name))


def open_view(uri: str, spark=None, need_pages: bool = False) -> RunView:
    """:func:`~corpus_pipeline.runfolder.open_existing`'s run folder as a view; with ``need_pages``, a
    UsageError (exit 2) when its pages are not committed."""
    view = RunView(open_existing(uri, spark))
    if need_pages and not view.committed("pages", exact=True):
        raise UsageError(f"{uri}: not a run folder with ingested pages (no committed "
                         f"{view.location('pages', exact=True)})")
    return view
