"""A small filesystem layer that understands URIs.

Local paths (and ``file://``) use the OS; any other scheme (``hdfs://``,
``gs://``, ``s3a://``, ``abfs://`` ...) goes through Hadoop's FileSystem API in
the active SparkSession's JVM, so run folders work on cluster filesystems.
Run outputs are only ever touched through :func:`get_fs`.

No write here renames anything: a file is written where it stays, with one
plain write (one PUT on an object store, where a rename would be a copy).  A
write cut short can leave a truncated file; the run folder never depends on a
file being whole except through its commit marker, which is JSON and treated
as missing when it does not parse (:mod:`corpus_pipeline.runfolder`).
``rename`` exists for callers outside the run folder's commit path.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional
from urllib.parse import urlparse


def is_local(uri: str) -> bool:
    scheme = urlparse(str(uri)).scheme
    return scheme in ("", "file") or (len(scheme) == 1)  # 1-letter: Windows drive


def local_path(uri: str) -> str:
    u = str(uri)
    return u[len("file://"):] if u.startswith("file://") else u


def join(base: str, *parts: str) -> str:
    out = str(base).rstrip("/")
    for p in parts:
        out = out + "/" + str(p).strip("/")
    return out


class LocalFS:
    def exists(self, uri: str) -> bool:
        return os.path.exists(local_path(uri))

    def isdir(self, uri: str) -> bool:
        return os.path.isdir(local_path(uri))

    def mkdirs(self, uri: str) -> None:
        os.makedirs(local_path(uri), exist_ok=True)

    def delete(self, uri: str) -> None:
        p = local_path(uri)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)

    def rename(self, src: str, dst: str) -> None:
        os.replace(local_path(src), local_path(dst))

    def listdir(self, uri: str) -> list[str]:
        p = local_path(uri)
        return sorted(os.listdir(p)) if os.path.isdir(p) else []

    def read_bytes(self, uri: str) -> bytes:
        return Path(local_path(uri)).read_bytes()

    def write_bytes(self, uri: str, data: bytes) -> None:
        """Written in place (no temporary file, no rename), flushed to disk."""
        p = Path(local_path(uri))
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    def read_text(self, uri: str) -> str:
        return self.read_bytes(uri).decode("utf-8")

    def write_text(self, uri: str, text: str) -> None:
        self.write_bytes(uri, text.encode("utf-8"))

    def get_local(self, uri: str, local: str) -> str:
        """A local copy of a file (for libraries that need a path)."""
        return local_path(uri)

    def put_local(self, local: str, uri: str) -> None:
        dst = local_path(uri)
        if os.path.abspath(local) == os.path.abspath(dst):
            return
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        shutil.copyfile(local, dst)


# Hadoop filesystems through the session's JVM: the classic-Spark adapter (a clear error on Spark Connect)
from .spark.classic import HadoopFS  # noqa: E402


_LOCAL = LocalFS()


def get_fs(uri: str, spark=None):
    return _LOCAL if is_local(uri) else HadoopFS(spark)


def to_spark_uri(uri: str) -> str:
    """Spark readers want absolute paths for local folders."""
    if is_local(uri):
        return "file://" + os.path.abspath(local_path(uri))
    return uri


def abspath(uri: str) -> str:
    return os.path.abspath(local_path(uri)) if is_local(uri) else uri


def basename(uri: Optional[str]) -> str:
    return os.path.basename(str(uri).rstrip("/"))
