"""Main-text extractors behind one interface, chosen by name (``ingest.extractor``, ``final.extractor``).

Every extractor is an object with ``name`` and
``extract(html: str, url: str, favor: str) -> Extracted | Skip`` (see
:mod:`.base`); :func:`corpus_pipeline.extract.extract_html` wraps it with what
every extractor shares: bytes decoding by charset, the size checks, the
per-page time limit, the counted skip reasons and the page language.

Adding an extractor is one module in this package and one line in
:data:`REGISTRY` (``name -> "module:Class"``, imported on first use so an
unused extractor's library is never loaded), or ``REGISTRY.register(name,
Class)`` in a module named by the ``plugins.modules`` setting
(:mod:`corpus_pipeline.plugins`).
"""
from __future__ import annotations

from ..lang import detect_lang
from ..plugins import Registry

REGISTRY = Registry("extractor", {
    "trafilatura": "corpus_pipeline.extractors.trafilatura:TrafilaturaExtractor",
    "resiliparse": "corpus_pipeline.extractors.resiliparse:ResiliparseExtractor",
})
_warmed: set = set()


def names() -> tuple:
    return tuple(REGISTRY.names())


def get(name: str):
    """The (cached, warmed-up) extractor registered as ``name``; ValueError naming the known ones."""
    impl = REGISTRY.get(name)
    if name not in _warmed:
        _warm_up(impl)
        _warmed.add(name)
    return impl


# A page that takes every lazy import path of an extractor (maths markup, TeX delimiters, a table).
_WARM_UP_PAGE = ("<html><head><title>warm up</title></head><body><article>"
                 "<p>Warm up text with enough words to count as a paragraph of main content here.</p>"
                 "<p>Inline $x^2$ and <math><mi>x</mi><mo>=</mo><mn>1</mn></math>.</p>"
                 "<table><tr><td>a</td><td>b</td></tr></table></article></body></html>")


def _warm_up(impl) -> None:
    """Extract one small page outside any time limit, once per process and extractor.

    Extractors import their libraries lazily; a per-page time limit that fires
    during a first import leaves a half-initialised module behind (later pages then
    fail with ``module 'urllib3' has no attribute 'util'`` and the like).  Running
    every import path here, before :func:`corpus_pipeline.extract.time_limit` is
    armed, makes that impossible."""

    res = impl.extract(_WARM_UP_PAGE, "https://example.org/warm-up", "default")
    detect_lang(getattr(res, "text", "") or "warm up text in English")
