"""Registries for the product's plugins, and the loader of a user's own plugin modules.

A registry maps a name (``classifier.kind``, ``ingest.extractor``) to an
implementation: the product's own are registered as ``"module:Class"`` strings
and imported on first use (an unused plugin's library is never loaded); a
user's plugin registers a class::

    # my_plugins/keywords.py
    from corpus_pipeline.classifiers import Classifier, REGISTRY

    class KeywordClassifier(Classifier):
        ...

    REGISTRY.register("keywords", KeywordClassifier)

and the configuration imports it, so no fork is needed::

    [plugins]
    modules = ["my_plugins.keywords"]

    [classifier]
    kind = "keywords"

The modules are imported when the configuration is loaded (before
``classifier.kind`` is checked against the registry).  On Spark, a plugin
module's code reaches the executors with the functions that use it (pickled by
value, :func:`corpus_pipeline.spark.plugins.ship`), so it needs no install
there; the libraries it imports do.
"""
from __future__ import annotations

import importlib
from typing import Any, Iterable

LOADED: list[str] = []          # plugin modules imported in this process, in order


class Registry:
    """Names -> implementations, imported on first use; one instance per name and process."""

    def __init__(self, what: str, entries: dict[str, Any]):
        self.what = what
        self._entries = dict(entries)
        self._instances: dict = {}

    def register(self, name: str, impl: Any) -> None:
        """Add ``name``: a class (one instance is made on first use), ``"package.module:Class"``
        (imported on first use), or an instance used as it is."""
        self._entries[name] = impl
        self._instances.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def ordered(self) -> list[str]:
        """The names in registration order."""
        return list(self._entries)

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def get(self, name: str):
        impl = self._instances.get(name)
        if impl is None:
            if name not in self._entries:
                raise ValueError(f"unknown {self.what} {name!r} (known: {', '.join(self.names())})")
            target = self._entries[name]
            if isinstance(target, str):
                module, _, cls = target.partition(":")
                target = getattr(importlib.import_module(module), cls)
            impl = target() if isinstance(target, type) else target
            self._instances[name] = impl
        return impl


def load(modules: Iterable[str]) -> list[str]:
    """Import every plugin module (each registers what it adds); ImportError naming the module."""
    for name in modules:
        if name in LOADED:
            continue
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise ImportError(f"plugin module {name!r} could not be imported: {e}") from e
        LOADED.append(name)
    return list(LOADED)
