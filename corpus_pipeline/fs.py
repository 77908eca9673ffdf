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


class HadoopFS:
    """Hadoop FileSystem through py4j; needs a SparkSession (the active one by default).

    Behaves like :class:`LocalFS`: missing files raise ``FileNotFoundError``,
    ``listdir`` of a file is empty, local paths are this process's (relative ones
    resolved against its working folder, not the JVM's), writes create the target
    directly (overwriting it; no temporary file, no rename).
    """

    def __init__(self, spark=None):
        if spark is None:
            from pyspark.sql import SparkSession

            # getActiveSession() is per thread in the JVM: fall back to the session this process made
            spark = SparkSession.getActiveSession() or getattr(SparkSession, "_instantiatedSession", None)
            if spark is None:
                raise RuntimeError("a SparkSession is needed to reach a non-local run folder")
        self._jvm = spark._jvm
        self._conf = spark._jsc.hadoopConfiguration()

    def _path(self, uri: str):
        return self._jvm.org.apache.hadoop.fs.Path(uri)

    def _local(self, local: str):
        return self._jvm.org.apache.hadoop.fs.Path("file://" + os.path.abspath(local_path(local)))

    def _fs(self, uri: str):
        return self._path(uri).getFileSystem(self._conf)

    def exists(self, uri: str) -> bool:
        return bool(self._fs(uri).exists(self._path(uri)))

    def isdir(self, uri: str) -> bool:
        fs = self._fs(uri)
        p = self._path(uri)
        return bool(fs.exists(p) and fs.getFileStatus(p).isDirectory())

    def mkdirs(self, uri: str) -> None:
        self._fs(uri).mkdirs(self._path(uri))

    def delete(self, uri: str) -> None:
        fs = self._fs(uri)
        p = self._path(uri)
        if fs.exists(p):
            fs.delete(p, True)

    def rename(self, src: str, dst: str) -> None:
        fs = self._fs(src)
        if not fs.exists(self._path(src)):
            raise FileNotFoundError(f"rename {src} -> {dst}: no such file or folder")
        if fs.exists(self._path(dst)):
            fs.delete(self._path(dst), True)
        parent = self._path(dst).getParent()
        if parent is not None:
            fs.mkdirs(parent)
        if not fs.rename(self._path(src), self._path(dst)):
            raise OSError(f"rename {src} -> {dst} failed")

    def listdir(self, uri: str) -> list[str]:
        fs = self._fs(uri)
        p = self._path(uri)
        if not fs.exists(p) or not fs.getFileStatus(p).isDirectory():
            return []
        return sorted(st.getPath().getName() for st in fs.listStatus(p))

    def read_bytes(self, uri: str) -> bytes:
        fs = self._fs(uri)
        p = self._path(uri)
        if not fs.exists(p):
            raise FileNotFoundError(f"{uri}: no such file")
        stream = fs.open(p)
        try:
            # py4j cannot fill a Python buffer in place: commons-io (on Spark's classpath) reads it all
            return bytes(self._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()

    def write_bytes(self, uri: str, data: bytes) -> None:
        fs = self._fs(uri)
        out = fs.create(self._path(uri), True)     # overwrite; on object stores one PUT at close()
        try:
            out.write(bytearray(data))
        finally:
            out.close()

    def read_text(self, uri: str) -> str:
        return self.read_bytes(uri).decode("utf-8")

    def write_text(self, uri: str, text: str) -> None:
        self.write_bytes(uri, text.encode("utf-8"))

    def get_local(self, uri: str, local: str) -> str:
        if not self.exists(uri):
            raise FileNotFoundError(f"{uri}: no such file")
        self._fs(uri).copyToLocalFile(False, self._path(uri), self._local(local), True)
        return os.path.abspath(local_path(local))

    def put_local(self, local: str, uri: str) -> None:
        if not os.path.exists(local_path(local)):
            raise FileNotFoundError(f"{local}: no such file")
        self._fs(uri).copyFromLocalFile(False, True, self._local(local), self._path(uri))


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
