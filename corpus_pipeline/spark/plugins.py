"""User plugin modules on Spark executors: pickled by value with the functions that use them.

A plugin module named by ``plugins.modules`` is imported by the driver when the
configuration is loaded (:mod:`corpus_pipeline.plugins`).  Registered for
pickling by value, the classes a Spark task uses (a classifier scoring pages)
travel with the task, so the executors need the module's libraries, not the
module itself.
"""
from __future__ import annotations

import sys

from pyspark import cloudpickle

from .. import plugins


def ship() -> None:
    for name in plugins.LOADED:
        module = sys.modules.get(name)
        if module is not None:
            cloudpickle.register_pickle_by_value(module)
