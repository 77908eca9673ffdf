"""Main-text extractors behind one interface, chosen by name (``ingest.extractor``, ``final.extractor``).

Every extractor is an object with ``name`` and
``extract(html: str, url: str, favor: str) -> Extracted | Skip`` (see
:mod:`.base`); :func:`corpus_pipeline.extract.extract_html` wraps it with what
every extractor shares: bytes decoding by charset, the size checks, the
per-page time limit, the counted skip reasons and the page language.

Adding an extractor is one module in this package and one line in
:data:`REGISTRY` (``name -> "module:Class"``, imported on first use so an
unused extractor's library is never loaded).
"""
from __future__ import annotations

import importlib

REGISTRY = {
    "trafilatura": "trafilatura:TrafilaturaExtractor",
    "resiliparse": "resiliparse:ResiliparseExtractor",
}

_instances: dict = {}


def names() -> tuple:
    return tuple(REGISTRY)


def get(name: str):
    """The (cached) extractor registered as ``name``; ValueError naming the known ones."""
    impl = _instances.get(name)
    if impl is None:
        if name not in REGISTRY:
            raise ValueError(f"unknown extractor {name!r} (known: {', '.join(REGISTRY)})")
        module, cls = REGISTRY[name].split(":")
        impl = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
        _warm_up(impl)
        _instances[name] = impl
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
    from ..lang import detect_lang

    res = impl.extract(_WARM_UP_PAGE, "https://example.org/warm-up", "default")
    detect_lang(getattr(res, "text", "") or "warm up text in English")
