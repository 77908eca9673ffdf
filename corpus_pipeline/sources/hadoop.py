"""WARCs on any Hadoop filesystem: ``hdfs://``, ``gs://``, ``abfs(s)://``, ``viewfs://``, ``file://``, ...

Listing and globbing happen on the driver through Hadoop's ``FileSystem`` API
in the SparkSession's JVM (``spark/classic.py``'s ``HadoopFS.files``, py4j), so a scheme works
whenever the cluster's Hadoop configuration has its connector, and
``hdfs:///crawl/*.warc.gz`` is expanded against ``fs.defaultFS`` into fully
qualified URIs (``hdfs://namenode:8020/crawl/...``).  Without a classic
session (Spark Connect, or none) the driver lists through pyarrow instead
(:class:`fs.ArrowFS`: the schemes below, Hadoop's glob syntax per path segment).

Executors cannot call the JVM from a Python task, so they read the bytes with
pyarrow's filesystems (a dependency already): ``hdfs``/``viewfs`` through
libhdfs (JNI, on every EMR/Dataproc node; needs ``JAVA_HOME`` and the Hadoop
``CLASSPATH``: :func:`_hdfs_env` fills it from ``hadoop classpath --glob`` when
unset), ``gs`` through its
GCS client (the VM's service account on Dataproc), ``abfs``/``abfss``
through its Azure client, ``file`` as local files.  Files are opened for
random access and read in 8 MiB blocks: memory per task stays at one block
whatever the file size (a 1 GB WARC is never held whole, unlike Spark's
``binaryFile`` source or ``sc.binaryFiles``), and a re-open after a failed
read seeks to the last processed record.  Schemes pyarrow does not know
(``wasbs``, ``s3a`` with Hadoop credentials, ...) are read through fsspec
when it and the scheme's implementation are installed on the executors;
:func:`check_readable` refuses them on the driver otherwise.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import BinaryIO

from ..errors import UsageError
from .. import fs as fsmod
from ..fs import ArrowFS
from .stream import Body

PYARROW_SCHEMES = frozenset({"file", "hdfs", "viewfs", "gs", "gcs", "abfs", "abfss"})
BLOCK = 8 << 20
_GLOB_CHARS = set("*?[{")


def scheme(ref: str) -> str:
    return ref.split("://", 1)[0].lower() if "://" in ref else ""


def _qualified(path_str: str) -> str:
    """Hadoop prints local paths as ``file:/x``; we use ``file:///x``."""
    if path_str.startswith("file:/") and not path_str.startswith("file://"):
        return "file://" + path_str[len("file:"):]
    return path_str


def _is_warc(name: str, suffixes) -> bool:
    return name.lower().endswith(tuple(suffixes))


def resolve(src: str, suffixes, spark=None) -> list[str]:
    """Qualified URIs named by ``src``: an explicit file whatever its name; folders
    (recursive) and globs contribute files with a WARC suffix.  Empty: nothing matched."""
    hfs = fsmod.session_fs(spark)
    if hfs is None:
        return _resolve_arrow(src, suffixes)
    try:
        return [_qualified(p) for p in hfs.files(src, lambda name: _is_warc(name, suffixes))]
    except UsageError:
        raise
    except Exception as e:  # noqa: BLE001 - py4j errors carry the Java exception's text
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UsageError(f"{src}: cannot list through Hadoop: {msg}") from e


def _glob_re(segment: str) -> "re.Pattern":
    """One path segment of a Hadoop glob (``*``, ``?``, ``[abc]``, ``[^a]``, ``{a,b}``, ``\\`` escapes)."""
    out, i, depth = [], 0, 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and "]" in segment[i + 1:]:
            j = segment.index("]", i + 1)
            body = segment[i + 1:j]
            out.append("[" + ("^" + body[1:] if body[:1] in ("!", "^") else body).replace("\\", "\\\\") + "]")
            i = j
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < len(segment):
            i += 1
            out.append(re.escape(segment[i]))
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise UsageError(f"{segment}: unbalanced {{ in a glob")
    return re.compile("".join(out) + r"\Z")


def _resolve_arrow(src: str, suffixes) -> list[str]:
    """:func:`resolve` through pyarrow's filesystems (no JVM): the same answers for the schemes pyarrow
    serves, URIs as given (``hdfs:///x`` is not qualified against ``fs.defaultFS``)."""
    return [u for u, _ in arrow_files(src, suffixes)]


def arrow_files(src: str, suffixes) -> list[tuple[str, object]]:
    """(URI, pyarrow ``FileInfo``: size, modification time) of every file :func:`_resolve_arrow` names,
    in its order, from the listing itself."""
    afs = ArrowFS()
    fs, path = afs._resolve(src)                   # UsageError for a scheme pyarrow cannot serve here
    s, rest = src.split("://", 1)
    netloc = rest.split("/", 1)[0]
    root_uri = f"{s}://{netloc}/"
    root = afs._resolve(root_uri)[1].rstrip("/")

    def uri(p: str) -> str:
        return root_uri + p[len(root):].lstrip("/")

    def ls(p: str, recursive: bool = False):
        import pyarrow.fs as pafs

        return fs.get_file_info(pafs.FileSelector(p, allow_not_found=True, recursive=recursive))

    try:
        if any(c in rest[len(netloc):] for c in _GLOB_CHARS):
            lead, segments = ("/" if path.startswith("/") else ""), path.strip("/").split("/")
            if any("{" in g and "}" not in g for g in segments):
                raise UsageError(f"{src}: a {{...}} alternative spanning '/' needs a classic Spark session")
            fixed = next(i for i, g in enumerate(segments) if any(c in g for c in _GLOB_CHARS))
            matched = [fs.get_file_info(lead + "/".join(segments[:fixed]))]
            for g in segments[fixed:]:
                pat = _glob_re(g)
                matched = [e for d in matched if d.type.name == "Directory"
                           for e in ls(d.path) if pat.match(e.base_name)]
        else:
            matched = [fs.get_file_info(path)]
            if matched[0].type.name == "File":
                return [(uri(matched[0].path), matched[0])]
        out: list[tuple[str, object]] = []
        for e in sorted(matched, key=lambda e: e.path):
            if e.type.name == "Directory":
                out.extend(sorted(((uri(f.path), f) for f in ls(e.path, recursive=True)
                                   if f.type.name == "File" and _is_warc(f.base_name, suffixes)),
                                  key=lambda uf: uf[0]))
            elif e.type.name == "File" and _is_warc(e.base_name, suffixes):
                out.append((uri(e.path), e))
        return out
    except UsageError:
        raise
    except Exception as e:  # noqa: BLE001 - pyarrow's errors (access denied, network...)
        raise UsageError(f"{src}: cannot list through pyarrow: {e}") from e


def check_readable(ref: str) -> None:
    """UsageError (on the driver) when executors would have no client for this scheme."""
    s = scheme(ref)
    if s in PYARROW_SCHEMES:
        return
    try:
        import fsspec

        fsspec.get_filesystem_class(s)
        return
    except ImportError:
        why = "fsspec is not installed"
    except (ValueError, Exception) as e:  # noqa: BLE001 - unknown protocol / missing implementation
        why = str(e) or "fsspec has no implementation for it"
    raise UsageError(f"{ref}: Spark can list {s}:// but the Python tasks cannot read it ({why}). "
                     f"Readable: {', '.join(sorted(PYARROW_SCHEMES))}:// (pyarrow), s3://, https://; "
                     f"other schemes need fsspec and its implementation on every node")


_HDFS_ENV_DONE = False


def _hdfs_env() -> None:
    """libhdfs needs the Hadoop jars on ``CLASSPATH`` and finds ``libhdfs.so`` through
    ``ARROW_LIBHDFS_DIR`` or ``HADOOP_HOME``: fill them in from the node's Hadoop when unset.
    (Untested here: no HDFS on the test machine.)"""
    global _HDFS_ENV_DONE
    if _HDFS_ENV_DONE:
        return
    _HDFS_ENV_DONE = True

    home = os.environ.get("HADOOP_HOME") or "/usr/lib/hadoop"
    if "ARROW_LIBHDFS_DIR" not in os.environ and "HADOOP_HOME" not in os.environ:
        native = os.path.join(home, "lib", "native")
        if os.path.isfile(os.path.join(native, "libhdfs.so")):
            os.environ["ARROW_LIBHDFS_DIR"] = native
    if "hadoop" not in os.environ.get("CLASSPATH", ""):
        exe = shutil.which("hadoop") or os.path.join(home, "bin", "hadoop")
        if os.path.isfile(exe):
            try:
                cp = subprocess.run([exe, "classpath", "--glob"], capture_output=True, text=True, timeout=120)
            except (OSError, subprocess.SubprocessError):
                return
            if cp.returncode == 0 and cp.stdout.strip():
                os.environ["CLASSPATH"] = cp.stdout.strip()


def _open_pyarrow(ref: str, start: int):
    import pyarrow.fs as pafs

    if scheme(ref) in ("hdfs", "viewfs"):
        _hdfs_env()

    fs, path = pafs.FileSystem.from_uri(ref)
    try:
        f = fs.open_input_file(path)
    except FileNotFoundError:
        raise
    except OSError as e:
        if any(w in str(e).lower() for w in ("not found", "no such file", "does not exist")):
            raise FileNotFoundError(f"{ref}: {e}") from e
        raise
    if start:
        f.seek(start)
    return f


def _open_fsspec(ref: str, start: int):
    import fsspec

    f = fsspec.open(ref, "rb").open()
    if start:
        f.seek(start)
    return f


def open_file(ref: str, start: int = 0) -> BinaryIO:
    """The file's bytes from ``start``, read in :data:`BLOCK`-sized reads; storage errors
    surface as :class:`~stream.SourceIOError` (transient: the file is re-opened there)."""
    f = _open_pyarrow(ref, int(start)) if scheme(ref) in PYARROW_SCHEMES else _open_fsspec(ref, int(start))
    state = {"buf": b"", "pos": 0}

    def read(n: int = -1) -> bytes:
        buf, pos = state["buf"], state["pos"]
        if n is None or n < 0:
            out = buf[pos:] + f.read()
            state["buf"], state["pos"] = b"", 0
            return out
        if pos + n > len(buf):
            buf, pos = buf[pos:] + f.read(max(BLOCK, n)), 0
            state["buf"] = buf
        out = buf[pos:pos + n]
        state["pos"] = pos + len(out)
        return out

    return Body(read, f.close, wrap_errors=True, name=ref)
