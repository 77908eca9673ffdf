"""Temporary files of one command, removed at its end (success or failure).

Every temporary folder the pipeline makes (training files, local model copies,
uniquely named model links for ``SparkContext.addFile``) comes from
:func:`mkdtemp` or is registered with :func:`register`; :func:`scope` (the CLI
wraps every command in it) removes what is left when the command ends, and
:func:`remove` frees one early.  Remote folders (Hadoop URIs) are removed
through :mod:`corpus_pipeline.fs`.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import Iterator

from . import fs as fsmod

_REGISTERED: list[str] = []


def mkdtemp(prefix: str = "cp_") -> str:
    d = tempfile.mkdtemp(prefix=prefix)
    _REGISTERED.append(d)
    return d


def register(path: str) -> str:
    """Remove ``path`` (a local path or a URI) at the end of the command."""
    if path not in _REGISTERED:
        _REGISTERED.append(path)
    return path


def remove(path: str) -> None:
    try:
        if fsmod.is_local(path):
            p = fsmod.local_path(path)
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            elif os.path.exists(p):
                os.remove(p)
        else:
            fsmod.get_fs(path).delete(path)
    except Exception:  # noqa: BLE001 - cleanup must not hide the command's own error
        pass
    if path in _REGISTERED:
        _REGISTERED.remove(path)


def pending() -> list[str]:
    return list(_REGISTERED)


def cleanup() -> None:
    for p in reversed(list(_REGISTERED)):
        remove(p)


@contextlib.contextmanager
def scope() -> Iterator[None]:
    try:
        yield
    finally:
        cleanup()
