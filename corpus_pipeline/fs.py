"""A small filesystem layer that understands URIs.

Local paths (and ``file://``) use the OS (:class:`LocalFS`).  Any other scheme
(``hdfs://``, ``gs://``, ``s3a://``, ``abfs://`` ...) goes, on a classic
SparkSession, through Hadoop's FileSystem API in its JVM (``HadoopFS``), so run
folders work on whatever the cluster has a connector for; on a Spark Connect
session, or with no session, through ``pyarrow.fs`` (:class:`ArrowFS`: S3 for
``s3``/``s3a``/``s3n``, GCS, Azure, HDFS where libhdfs is installed; another
scheme is a :class:`~errors.UsageError`).  Run outputs are only ever touched
through :func:`get_fs`.

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
import threading
from pathlib import Path
from typing import Optional
from urllib.parse import urlparse

from .errors import UsageError


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


class StorageError(RuntimeError):
    """A storage request that failed for another reason than a missing file (access denied, a network
    error after pyarrow's retries...).  Not an ``OSError`` on purpose: callers treat ``OSError`` as
    "missing" (a run folder's commit marker), and a committed stage must not look uncommitted, and be
    cleaned away, because one request failed (Hadoop's errors through py4j are no ``OSError`` either)."""


S3_SCHEMES = ("s3", "s3a", "s3n")


def _split(uri: str) -> tuple[str, str, str]:
    """(scheme, authority, path without leading or trailing slashes) of a URI."""
    u = urlparse(str(uri))
    return u.scheme.lower(), u.netloc, u.path.strip("/")


def _s3_endpoint(explicit: Optional[str]) -> Optional[str]:
    """The S3 endpoint: the one given, else ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` (pyarrow's
    ``S3FileSystem`` does not read them itself; only its ``from_uri`` does)."""
    return (explicit or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
            or None)


class ArrowFS:
    """Object stores and other non-local filesystems through ``pyarrow.fs``, for processes without
    a JVM (a Spark Connect client, or no session at all); same methods and meanings as
    :class:`LocalFS` and ``HadoopFS``.

    ``s3://``, ``s3a://`` and ``s3n://`` are S3 (credentials from the standard AWS chain: the
    ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN`` variables, ``~/.aws``, the
    instance's role; the endpoint from ``s3_endpoint_url`` or ``AWS_ENDPOINT_URL_S3``/``AWS_ENDPOINT_URL``;
    the region from ``AWS_REGION``/``AWS_DEFAULT_REGION``, else the bucket's own on AWS).  Other
    schemes go to ``pyarrow.fs.FileSystem.from_uri``: ``gs://`` (GCS), ``abfs(s)://`` (Azure),
    ``hdfs://``/``viewfs://`` (libhdfs: a JVM and the Hadoop jars on this machine).  A scheme pyarrow
    cannot serve here is a :class:`~errors.UsageError`.

    On object stores a folder is a key prefix: it exists when an object lies under it or a folder
    marker object (``name/``, written by :meth:`mkdirs`) does.  Filesystem objects are cached per
    scheme and endpoint (class-wide).
    """

    _cache: dict = {}
    _lock = threading.Lock()

    def __init__(self, s3_endpoint_url: Optional[str] = None):
        self._s3_endpoint_url = s3_endpoint_url

    # ------------------------------------------------------------ resolving a URI
    def _resolve(self, uri: str):
        """(pyarrow filesystem, its path for ``uri``)."""
        scheme, netloc, path = _split(uri)
        if scheme in S3_SCHEMES:
            if not netloc:
                raise UsageError(f"{uri}: no bucket in S3 URI")
            return self._s3(netloc), f"{netloc}/{path}".rstrip("/")
        key = (scheme, netloc)
        with self._lock:
            hit = self._cache.get(key)
        if hit is None:
            import pyarrow.fs as pafs

            try:
                fs, root = pafs.FileSystem.from_uri(f"{scheme}://{netloc}/")
            except Exception as e:  # noqa: BLE001 - ArrowInvalid (unknown scheme), OSError (no libhdfs/JVM)
                raise _unsupported(uri, scheme, e) from None
            hit = (fs, root)
            with self._lock:
                self._cache.setdefault(key, hit)
        fs, root = hit
        if scheme in ("hdfs", "viewfs", "file") or root.startswith("/"):      # absolute paths
            return fs, (root.rstrip("/") + "/" + path).rstrip("/") or "/"
        root = root.strip("/")                                                # bucket[/key] paths
        return fs, (f"{root}/{path}" if root else path).rstrip("/")

    def _s3(self, bucket: str):
        import pyarrow.fs as pafs

        endpoint = _s3_endpoint(self._s3_endpoint_url)
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None
        if region is None and endpoint is None:
            with self._lock:
                region = self._cache.get(("s3-region", bucket))
            if region is None:
                try:        # AWS itself: the bucket's region (a request to the wrong one is refused)
                    region = pafs.resolve_s3_region(bucket)
                except Exception:  # noqa: BLE001 - no network or no such bucket: the SDK's default
                    region = ""
                with self._lock:
                    self._cache[("s3-region", bucket)] = region
        key = ("s3", endpoint, region or None)
        with self._lock:
            fs = self._cache.get(key)
        if fs is None:
            # allow_delayed_open: a write that fits in one part is one PutObject at close() (without it
            # pyarrow starts a multipart upload at open: three requests, the object still whole or absent)
            kw: dict = {"region": region or None, "allow_delayed_open": True}
            if endpoint:
                u = urlparse(endpoint if "://" in endpoint else "https://" + endpoint)
                kw.update(endpoint_override=u.netloc + u.path.rstrip("/"), scheme=u.scheme or "https")
            fs = pafs.S3FileSystem(**kw)
            with self._lock:
                fs = self._cache.setdefault(key, fs)
        return fs

    def _info(self, uri: str):
        fs, path = self._resolve(uri)
        with _errors(uri):
            return fs, path, fs.get_file_info(path)

    # ------------------------------------------------------------ LocalFS's methods
    def exists(self, uri: str) -> bool:
        return _kind(self._info(uri)[2]) != "missing"

    def isdir(self, uri: str) -> bool:
        return _kind(self._info(uri)[2]) == "dir"

    def mkdirs(self, uri: str) -> None:
        fs, path = self._resolve(uri)
        if _object_store(fs) and "/" not in path:
            return                     # a bucket or container: not created from here
        with _errors(uri):
            fs.create_dir(path, recursive=True)

    def delete(self, uri: str) -> None:
        fs, path, info = self._info(uri)
        with _errors(uri):
            try:
                if _kind(info) == "dir":
                    fs.delete_dir(path)
                elif _kind(info) == "file":
                    fs.delete_file(path)
            except FileNotFoundError:
                pass                   # removed meanwhile

    def rename(self, src: str, dst: str) -> None:
        fs, sp, info = self._info(src)
        dfs, dp = self._resolve(dst)
        if _kind(info) == "missing":
            raise FileNotFoundError(f"rename {src} -> {dst}: no such file or folder")
        if dfs is not fs and not (type(dfs) is type(fs) and _object_store(fs) != "azure"):
            raise UsageError(f"rename {src} -> {dst}: not on the same filesystem")
        self.delete(dst)
        with _errors(src):
            _parent(fs, dp)
            if _kind(info) == "file" or _object_store(fs) == "azure" or not _object_store(fs):
                fs.move(sp, dp)
                return
            # object stores have no folder rename: copy every object under the prefix, then delete
            for entry in fs.get_file_info(_selector(sp, recursive=True)):
                target = dp + entry.path[len(sp):]
                if _kind(entry) == "dir":
                    fs.create_dir(target, recursive=True)
                else:
                    fs.copy_file(entry.path, target)
            fs.delete_dir(sp)

    def listdir(self, uri: str) -> list[str]:
        fs, path, info = self._info(uri)
        if _kind(info) != "dir":
            return []
        with _errors(uri):
            entries = fs.get_file_info(_selector(path, recursive=False))
        return sorted({e.base_name for e in entries if e.base_name})

    # every stream is opened with compression=None: pyarrow would otherwise gzip a ``.gz`` name's
    # bytes on writing (and gunzip them on reading), storing an already compressed file twice over
    def read_bytes(self, uri: str) -> bytes:
        fs, path = self._resolve(uri)
        with _errors(uri):
            with fs.open_input_stream(path, compression=None) as f:
                return f.read()

    def write_bytes(self, uri: str, data: bytes) -> None:
        """Written in place: one object written on ``close`` on object stores (no temporary file,
        no rename); the object appears whole or not at all."""
        fs, path = self._resolve(uri)
        with _errors(uri):
            _parent(fs, path)
            with fs.open_output_stream(path, compression=None) as f:
                f.write(data)

    def read_text(self, uri: str) -> str:
        return self.read_bytes(uri).decode("utf-8")

    def write_text(self, uri: str, text: str) -> None:
        self.write_bytes(uri, text.encode("utf-8"))

    def get_local(self, uri: str, local: str) -> str:
        dst = os.path.abspath(local_path(local))
        fs, path = self._resolve(uri)
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        with _errors(uri):
            with fs.open_input_stream(path, compression=None) as f, open(dst, "wb") as out:
                while True:
                    block = f.read(8 << 20)
                    if not block:
                        break
                    out.write(block)
        return dst

    def put_local(self, local: str, uri: str) -> None:
        src = local_path(local)
        if not os.path.exists(src):
            raise FileNotFoundError(f"{local}: no such file")
        fs, path = self._resolve(uri)
        with _errors(uri):
            _parent(fs, path)
            with open(src, "rb") as f, fs.open_output_stream(path, compression=None) as out:
                while True:
                    block = f.read(8 << 20)
                    if not block:
                        break
                    out.write(block)


def _object_store(fs) -> str:
    """``s3``, ``gcs`` or ``azure`` for an object store's filesystem (folders are key prefixes), else ``""``."""
    return {"S3FileSystem": "s3", "GcsFileSystem": "gcs", "AzureFileSystem": "azure"}.get(type(fs).__name__, "")


def _parent(fs, path: str) -> None:
    """Creates the parent folder of ``path`` where folders are real (HDFS, local); on object stores the
    key is the whole story."""
    if not _object_store(fs) and "/" in path.strip("/"):
        fs.create_dir(path.rsplit("/", 1)[0], recursive=True)


def _kind(info) -> str:
    """``file``, ``dir`` or ``missing`` for a pyarrow ``FileInfo``."""
    name = info.type.name
    return "dir" if name == "Directory" else "missing" if name == "NotFound" else "file"


def _selector(path: str, recursive: bool):
    import pyarrow.fs as pafs

    return pafs.FileSelector(path, allow_not_found=True, recursive=recursive)


class _errors:
    """Keeps ``FileNotFoundError`` (a missing file, as :class:`LocalFS` raises it) and turns pyarrow's
    other failures into :class:`StorageError` naming the URI."""

    def __init__(self, uri: str):
        self.uri = uri

    def __enter__(self):
        return self

    def __exit__(self, et, e, tb):
        if e is None or not isinstance(e, Exception) or isinstance(e, UsageError):
            return False
        if isinstance(e, FileNotFoundError):
            raise FileNotFoundError(f"{self.uri}: no such file ({_first_line(e)})") from e
        raise StorageError(f"{self.uri}: {_first_line(e)}") from e


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _unsupported(uri: str, scheme: str, e: BaseException) -> UsageError:
    if scheme in ("hdfs", "viewfs"):
        why = ("pyarrow reaches HDFS through libhdfs, which needs a JVM (JAVA_HOME) and the Hadoop jars "
               "(CLASSPATH) on this machine")
    else:
        why = f"pyarrow has no filesystem for {scheme}://"
    return UsageError(
        f"{uri}: no Python filesystem for this URI without a classic Spark session ({why}: "
        f"{_first_line(e)}). Use a classic Spark session (Hadoop's FileSystem in its JVM reaches any "
        f"scheme the cluster has a connector for), or put the run folder on s3://, gs:// or abfs://.")


_LOCAL = LocalFS()
_ARROW = ArrowFS()

# A session's own filesystem: Hadoop's FileSystem in a classic session's JVM. The engine registers its
# factory when it is imported (``spark/classic.py``, which ``corpus_pipeline.spark`` imports first); this
# module knows no Spark.
_SESSION_FS: list = []


def register_session_fs(factory) -> None:
    """``factory(spark) -> filesystem or None``: the filesystem of the session ``spark`` (None: the
    active one) for URIs that are not local, or None when it does not serve that session."""
    if factory not in _SESSION_FS:
        _SESSION_FS.append(factory)


def session_fs(spark=None):
    """The registered session filesystem serving ``spark`` (else the active session), or None."""
    for factory in _SESSION_FS:
        found = factory(spark)
        if found is not None:
            return found
    return None


def get_fs(uri: str, spark=None):
    """The filesystem of ``uri``: :class:`LocalFS` for local paths; for other URIs ``HadoopFS`` (the JVM's
    Hadoop FileSystem, :func:`session_fs`) when the session (``spark``, else the active one) is a classic
    one, otherwise (Spark Connect, or no session) :class:`ArrowFS`."""
    if is_local(uri):
        return _LOCAL
    found = session_fs(spark)
    if found is not None:
        return found
    _ARROW._resolve(uri)             # an unsupported scheme fails here, with a UsageError
    return _ARROW


def to_spark_uri(uri: str) -> str:
    """Spark readers want absolute paths for local folders."""
    if is_local(uri):
        return "file://" + os.path.abspath(local_path(uri))
    return uri


def abspath(uri: str) -> str:
    return os.path.abspath(local_path(uri)) if is_local(uri) else uri


def basename(uri: Optional[str]) -> str:
    return os.path.basename(str(uri).rstrip("/"))
