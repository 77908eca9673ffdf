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
        _instances[name] = impl
    return impl
