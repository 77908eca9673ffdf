"""The run folder's log file, ``RUN/logs/run.log``: every message of the loop with a UTC timestamp
and a level, through :mod:`logging` (logger ``corpus_pipeline``).

A local run folder gets the file appended to while the run goes; for a Hadoop URI the lines go to
a local temporary file that is copied to ``RUN/logs/run-<UTC time>.log`` when the run ends (object
stores cannot append).
"""
from __future__ import annotations

import logging
import os
import tempfile
import time
from contextlib import contextmanager

from . import fs as fsmod

LOGGER = "corpus_pipeline"
FORMAT = "%(asctime)s.%(msecs)03dZ %(levelname)-7s %(name)s: %(message)s"
DATEFMT = "%Y-%m-%dT%H:%M:%S"


def logger(name: str = "") -> logging.Logger:
    return logging.getLogger(LOGGER + ("." + name if name else ""))


def _formatter() -> logging.Formatter:
    f = logging.Formatter(FORMAT, DATEFMT)
    f.converter = time.gmtime
    return f


@contextmanager
def run_log(run):
    """Attach a file handler for ``run`` (a RunFolder) to the ``corpus_pipeline`` logger."""
    log = logger()
    local = fsmod.is_local(run.uri)
    if local:
        d = fsmod.local_path(run.path("logs"))
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "run.log")
    else:
        fd, path = tempfile.mkstemp(prefix="corpus_pipeline_run_", suffix=".log")
        os.close(fd)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(_formatter())
    handler.setLevel(logging.INFO)
    old_level = log.level
    if log.level == logging.NOTSET or log.level > logging.INFO:
        log.setLevel(logging.INFO)
    log.addHandler(handler)
    try:
        yield path
    except BaseException as e:
        logger("run").error("run failed: %s: %s", type(e).__name__, e, exc_info=True)   # the traceback
        raise
    finally:
        log.removeHandler(handler)
        handler.close()
        log.setLevel(old_level)
        if not local:
            try:
                stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
                run.fs.put_local(path, run.path("logs", f"run-{stamp}.log"))
            finally:
                os.remove(path)
