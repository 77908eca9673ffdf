"""Domain profiles: what the corpus is about (pure: no Spark).

The recipe is not specific to maths (the paper says so); a profile holds what is:

* ``positive``: the label of a page of the domain in a labels file and in a
  person's verdicts (``math``); the negative label is ``non-`` + it;
* ``markup_column`` and :meth:`Profile.markup`: the extraction hook that marks a
  page whose HTML carries the domain's markup (maths: MathJax, KaTeX, MathML,
  TeX delimiters; code: a ``<pre>`` or multi-line ``<code>`` block).  The
  column is written to ``RUN/pages``; training negatives leave such pages out
  (``classifier.negatives_exclude_math_markup``), the path step reads its
  share under a prefix as evidence (``annotate.propose_markup_ratio``);
* ``starter_seed``: the starter seed shipped in ``seeds/`` (used without ``--seed-corpus``);
* ``benchmarks``: which benchmarks decontamination uses when
  ``decontam.benchmarks`` is empty (``None``: every known benchmark found under
  ``--benchmarks``, ``()``: none).

``profile.name`` in the configuration chooses one from :data:`REGISTRY`
(``math`` by default).  Adding a domain is one module with a :class:`Profile`
subclass and one line in the registry, or ``REGISTRY.register(name, Class)`` in
a module named by ``plugins.modules``.  The extractors keep maths as TeX for
every profile (a page without maths markup is not touched by it); nothing else
maths-specific runs unless the profile asks.
"""
from __future__ import annotations

from typing import Optional

from .. import schemas
from ..plugins import Registry

REGISTRY = Registry("profile", {
    "math": "corpus_pipeline.profiles.maths:MathProfile",
    "code": "corpus_pipeline.profiles.code:CodeProfile",
})
DEFAULT = "math"


class Profile:
    """Base class: subclasses set the attributes and implement :meth:`markup`."""

    name = ""
    positive = ""                       # the labels file's and the verdicts' label of a domain page
    markup_column = ""                  # RUN/pages column: the page's HTML carries the domain's markup
    starter_seed = ""                   # the starter seed (the positives without --seed-corpus), under seeds/
    benchmarks: Optional[tuple] = None  # decontamination's default benchmarks (None: every known one found)
    about = ""
    noun = ""                           # what the judging page calls a positive page ("maths")
    question = ""                       # the judging page's question
    criterion = ""                      # what makes a page positive, for the person judging

    @property
    def negative(self) -> str:
        return "non-" + self.positive

    @property
    def pages_schema(self) -> str:
        """DDL of this profile's ``RUN/pages`` (the markup column named by the profile)."""

        return schemas.pages(self.markup_column)

    def markup(self, html, extracted) -> bool:
        """Does the page carry the domain's markup?  ``html`` is the page (bytes or str),
        ``extracted`` the extractor's result (its ``math_kinds``, ...)."""
        raise NotImplementedError


def names() -> list[str]:
    return REGISTRY.names()


def by_label(positive: str) -> Profile:
    """The registered profile whose positive label is ``positive`` (a bare one naming it when none is)."""
    for name in REGISTRY.ordered():
        prof = REGISTRY.get(name)
        if prof.positive == positive:
            return prof
    prof = Profile()
    prof.name = prof.positive = prof.noun = positive
    prof.question = f"Is this page {positive}?"
    return prof


def get(name: str = DEFAULT) -> Profile:
    """The profile registered as ``name``; ValueError naming the known ones."""
    try:
        return REGISTRY.get(name)
    except ValueError as e:
        raise ValueError(f"profile.name: {e}") from None


def for_config(cfg) -> Profile:
    """The profile of a whole :class:`~corpus_pipeline.config.Config`."""
    return get(cfg.profile.name)
