"""The recipe (DeepSeekMath, Shao et al. 2024, §2.1), top to bottom.

Ingest runs once; the iteration's stages run for i = 1, 2, ... until the stop
rule ends the loop (or a worksheet waits for a person); the final stages run
on the last iteration's collection.  The plan printout (``run --dry-run``) and
the README's recipe list are generated from this list.

To add a stage: write one :class:`~corpus_pipeline.pipeline.stage.Stage`
subclass and insert an instance where it belongs, e.g. a filter between dedup
and classification::

    recipe = default_recipe()
    recipe.insert_after("pages", MinLength())
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .final import Canaries, Contamination, Corpus
from ..stages.exact_dedup.stage import ExactDedup
from ..stages.near_dedup.stage import NearDedup
from ..stages.url_dedup.stage import UrlDedup
from .ingest import Extract, Pages, PagesDuplicates, PagesSkips
from .iteration import Annotations, Collected, Domains, Eval, Model, Prefixes, Prepared, Scores, Seed, StopRule
from .stage import Stage


def default_recipe() -> "Recipe":
    return Recipe(
        ingest=[
            Extract(),              # WARC -> main text, maths kept
            UrlDedup(),             # one page per URL
            ExactDedup(),           # one page per text
            NearDedup(),            # MinHash near-duplicates
            PagesDuplicates(),      # what the three removed
            PagesSkips(),           # what extraction skipped, and why
            Pages(),                # the pages every iteration reads
            Prepared(),             # their text as the classifier reads it, once
        ],
        iteration=[
            Seed(),                 # positives
            Model(),                # fastText: seed vs random pages
            Scores(),               # every page
            Collected(),            # the top-ranked pages
            Eval(),                 # true precision/recall (--labels)
            Domains(),              # hosts with > 10% collected are flagged
            StopRule(),             # saturated, or the last iteration
            Prefixes(),             # path prefixes of flagged hosts
            Annotations(),          # the prefixes that hold the domain
        ],
        final=[
            Contamination(),        # benchmark n-gram matches (--benchmarks)
            Corpus(),               # the decontaminated corpus
            Canaries(),             # planted items: what the rules catch (side computation)
        ],
    )


@dataclass
class Recipe:
    ingest: list = field(default_factory=list)
    iteration: list = field(default_factory=list)
    final: list = field(default_factory=list)

    def stages(self) -> list[Stage]:
        return self.ingest + self.iteration + self.final

    def committed_stages(self) -> list[Stage]:
        return [s for s in self.stages() if s.commits]

    def index(self, stage: Stage) -> int:
        for k, s in enumerate(self.stages()):
            if s is stage:
                return k
        raise ValueError(f"stage {stage.name!r} is not in the recipe")

    def __getitem__(self, name: str) -> Stage:
        for s in self.stages():
            if s.name == name:
                return s
        raise KeyError(f"no stage named {name!r} in the recipe")

    def part_of(self, stage: Stage) -> list:
        for part in (self.ingest, self.iteration, self.final):
            if any(s is stage for s in part):
                return part
        raise ValueError(f"stage {stage.name!r} is not in the recipe")

    def insert_after(self, name: str, stage: Stage) -> None:
        """Put ``stage`` right after the stage called ``name`` (in the same part of the recipe)."""
        after = self[name]
        part = self.part_of(after)
        part.insert(next(k for k, s in enumerate(part) if s is after) + 1, stage)

    def names_before(self, stage: Stage) -> list[str]:
        out = []
        for s in self.committed_stages():
            if s is stage:
                return out
            out.append(s.name)
        raise ValueError(f"stage {stage.name!r} is not in the recipe")

    def check(self) -> None:
        """Names are unique; every stage reads only stages of the recipe."""
        names = [s.name for s in self.stages()]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"recipe: stage names used twice: {', '.join(dup)}")
        provided = {s.output_name for s in self.stages()} | set(names)
        for s in self.stages():
            missing = [r for r in s.reads if r not in provided]
            if missing:
                raise ValueError(f"recipe: stage {s.name} reads {', '.join(missing)}, which no stage provides")
