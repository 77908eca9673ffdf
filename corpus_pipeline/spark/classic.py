"""The classic-Spark adapter: the only module of the product that touches the SparkContext, RDDs,
``SparkFiles``, the py4j gateway (``spark._jvm``, ``spark._jsc``) or broadcast variables.

Everything else in the Spark layer uses the DataFrame and Arrow APIs only, which Spark Connect
(and platforms such as Databricks serverless) offer too.  Each helper here takes the classic
fast path when the session is a classic one (:func:`is_classic`) and a DataFrame-only fallback
otherwise; a feature that has no fallback raises :class:`ClassicOnly` with a message saying
what needs a classic session, never a py4j or attribute traceback.
"""
from __future__ import annotations

import os
import sys
from typing import Optional

from .. import fs as fsmod
from ..errors import UsageError


class ClassicOnly(UsageError):
    """A feature that needs a classic Spark session (SparkContext, JVM gateway) was used on a
    session without one (Spark Connect)."""

    def __init__(self, what: str):
        super().__init__(f"{what} needs a classic Spark session (SparkContext and its JVM); this session "
                         "is a Spark Connect session, which offers the DataFrame API only")


def is_classic(spark) -> bool:
    """True for a classic session (a SparkContext and a py4j gateway in this process)."""
    if spark is None or type(spark).__module__.startswith("pyspark.sql.connect"):
        return False
    try:
        return getattr(spark, "_jsc", None) is not None
    except Exception:  # noqa: BLE001 - some platforms raise on any JVM attribute
        return False


def active_session():
    """The session this process is working with, or None: pyspark's active session (per thread in the
    JVM), else the one this process made; None without asking when pyspark was never imported."""
    if "pyspark.sql" not in sys.modules:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession() or getattr(SparkSession, "_instantiatedSession", None)


def _conf(spark, key: str) -> Optional[str]:
    try:
        v = spark.conf.get(key, None)
    except Exception:  # noqa: BLE001 - Connect refuses some static settings
        return None
    return None if v in (None, "") else str(v)


def default_parallelism(spark) -> int:
    """The cluster's default parallelism: ``SparkContext.defaultParallelism`` on a classic session;
    otherwise ``spark.default.parallelism``, else half of ``spark.sql.shuffle.partitions`` (the
    session factory sets it to twice the parallelism), else 2."""
    if is_classic(spark):
        return int(spark.sparkContext.defaultParallelism)
    v = _conf(spark, "spark.default.parallelism")
    if v and v.isdigit():
        return max(1, int(v))
    v = _conf(spark, "spark.sql.shuffle.partitions")
    if v and v.isdigit():
        return max(1, int(v) // 2)
    return 2


def master(spark) -> str:
    """The session's master URL (``sc://...`` style for a Connect session: ``spark.remote``)."""
    if is_classic(spark):
        return str(spark.sparkContext.master)
    return _conf(spark, "spark.master") or _conf(spark, "spark.remote") or os.environ.get("SPARK_REMOTE") \
        or "remote"


class _Held:
    """A value that travels inside the task's pickled function (no broadcast variable)."""

    def __init__(self, value):
        self.value = value


def share(spark, value):
    """``value`` for the executors, read there as ``.value``: a broadcast variable on a classic
    session (sent once per executor); otherwise carried in the task's function (Spark Connect sends
    it with the plan, so it must stay within the server's message limit, 128 MB by default)."""
    if is_classic(spark):
        return spark.sparkContext.broadcast(value)
    return _Held(value)


def set_log_level(spark, level: str) -> None:
    """Spark's root log level (classic: ``SparkContext.setLogLevel``; a Connect server keeps its own)."""
    if is_classic(spark):
        spark.sparkContext.setLogLevel(level)


def ui_url(spark) -> Optional[str]:
    """The Spark UI's address (None when disabled, or on a Connect session)."""
    return spark.sparkContext.uiWebUrl if is_classic(spark) else None


def set_checkpoint_dir(spark, uri: str) -> None:
    """Where ``DataFrame.checkpoint`` writes: ``SparkContext.setCheckpointDir`` on a classic session.
    A Connect session cannot set it (``spark.checkpoint.dir`` is the server's, fixed when it starts):
    there :func:`reliable_checkpoints` tells whether the server has one."""
    if is_classic(spark):
        spark.sparkContext.setCheckpointDir(uri)


def reliable_checkpoints(spark) -> bool:
    """``DataFrame.checkpoint`` can be used: always on a classic session (after
    :func:`set_checkpoint_dir`); on Spark Connect when the server was started with
    ``spark.checkpoint.dir`` (otherwise callers use local checkpoints: the same rows, kept by the
    executors instead of written to the folder)."""
    return is_classic(spark) or bool(_conf(spark, "spark.checkpoint.dir"))


def persisted(df, level=None):
    """``df`` computed once for several reads: ``persist`` on a classic session; on Spark Connect a
    local checkpoint (``localCheckpoint(eager=True)``: the same rows, also kept by the executors),
    because a Connect client sends every query's whole plan as nested protobuf messages, which the
    protobuf decoders refuse beyond 100 levels (a plan of some twenty joins and projections), and a
    checkpoint replaces the plan below it with a reference to the stored rows.  ``unpersist`` works
    on both."""
    if is_classic(df.sparkSession):
        return df.persist(level) if level is not None else df.persist()
    return df.localCheckpoint(eager=True)


def set_job_description(spark, text) -> None:
    """The description of the Spark jobs this thread starts next (the Spark UI's job list shows it;
    None clears it); nothing on a Connect session."""
    if is_classic(spark):
        spark.sparkContext.setJobDescription(text)


def status_tracker(spark):
    """The SparkContext's status tracker (stages and tasks), or None on a Connect session."""
    return spark.sparkContext.statusTracker() if is_classic(spark) else None


def jvm_started() -> bool:
    """This process already runs a driver JVM (a classic SparkContext was made here)."""
    from pyspark import SparkContext

    return SparkContext._gateway is not None


def stop_and_wait_for_jvm(timeout_s: float = 600) -> None:
    """Stop this process's SparkContext and wait until the driver JVM it started has exited (what it
    does at exit, e.g. writing a class archive, is then done); nothing when no JVM was started here."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)      # the launcher's process, which became the JVM (exec)
    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()
    if proc is None:
        return
    try:
        gateway.shutdown()
    except Exception:   # noqa: BLE001 - the JVM may already be on its way out
        pass
    if proc.stdin is not None:
        proc.stdin.close()                     # the gateway server exits when its stdin closes
    proc.wait(timeout=timeout_s)


def attach_submit_jvm() -> None:
    """Under spark-submit, connect to its already running JVM (so that ``SparkConf()`` holds its
    ``--master`` and ``--conf`` settings)."""
    from pyspark import SparkContext

    SparkContext._ensure_initialized()


# ---------------------------------------------------------------- files for the executors
_SHIPPED: dict = {}      # (session, source) -> the name the file was shipped under


def ship_file(spark, path: str, name: str, key) -> str:
    """Make the local file ``path`` (already named ``name``) readable by every executor, once per
    session and ``key``: ``SparkContext.addFile`` on a classic session, ``addArtifacts(file=True)``
    on Spark Connect.  Executors open it with :func:`shipped_path`; returns ``name``."""
    k = (id(spark.sparkContext) if is_classic(spark) else id(spark), key)
    if k in _SHIPPED:
        return _SHIPPED[k]
    if is_classic(spark):
        spark.sparkContext.addFile(path)
    else:
        spark.addArtifacts(path, file=True)
    _SHIPPED[k] = name
    return name


def shipped_name(spark, key) -> Optional[str]:
    """The name a file was shipped under for ``key`` in this session (:func:`ship_file`), or None."""
    return _SHIPPED.get((id(spark.sparkContext) if is_classic(spark) else id(spark), key))


def shipped_path(name: str) -> str:
    """On an executor: the local path of a file shipped with :func:`ship_file` (``SparkFiles``: on a
    Connect session its root is the session's artifact folder)."""
    from pyspark import SparkFiles

    return SparkFiles.get(name)


# ---------------------------------------------------------------- Hadoop filesystems (py4j)
local_path = fsmod.local_path


def hadoop_path(spark, uri: str):
    """(Hadoop ``FileSystem``, ``Path``) of ``uri`` in the session's JVM (py4j objects)."""
    if not is_classic(spark):
        raise ClassicOnly(f"{uri}: a path on a Hadoop filesystem")
    p = spark._jvm.org.apache.hadoop.fs.Path(uri)
    return p.getFileSystem(spark._jsc.hadoopConfiguration()), p


def hadoop_copy(spark, src: str, dst: str) -> None:
    """Copy the file ``src`` to ``dst`` (Hadoop URIs) inside the JVM (nothing through Python)."""
    if not is_classic(spark):
        raise ClassicOnly(f"copying {src}: a path on a Hadoop filesystem")
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    src_p, dst_p = jvm.org.apache.hadoop.fs.Path(src), jvm.org.apache.hadoop.fs.Path(dst)
    jvm.org.apache.hadoop.fs.FileUtil.copy(src_p.getFileSystem(conf), src_p, dst_p.getFileSystem(conf),
                                           dst_p, False, conf)


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
        if not is_classic(spark):
            raise ClassicOnly("a path on a Hadoop filesystem (hdfs://, s3a://, gs://, abfs://...)")
        self._jvm = spark._jvm
        self._conf = spark._jsc.hadoopConfiguration()

    def _path(self, uri: str):
        return self._jvm.org.apache.hadoop.fs.Path(uri)

    def _local(self, local: str):
        return self._jvm.org.apache.hadoop.fs.Path("file://" + os.path.abspath(local_path(local)))

    def _fs(self, uri: str):
        return self._path(uri).getFileSystem(self._conf)

    def files(self, src: str, keep) -> list[str]:
        """The paths Hadoop names for ``src`` (as it prints them): the file itself, whatever its name,
        when ``src`` names one; else the files under the folders (recursively) and globs it names whose
        name ``keep`` accepts, folder by folder in path order, sorted within a folder. Empty: nothing."""
        fs, path = self._fs(src), self._path(src)
        if any(c in src.split("://", 1)[-1] for c in "*?[{"):
            statuses = fs.globStatus(path) or []
        elif fs.exists(path):
            statuses = [fs.getFileStatus(path)]
            if not statuses[0].isDirectory():
                return [statuses[0].getPath().toString()]
        else:
            return []
        out: list[str] = []
        for st in sorted(statuses, key=lambda s: s.getPath().toString()):
            if st.isDirectory():
                found = []
                it = fs.listFiles(st.getPath(), True)
                while it.hasNext():
                    p = it.next().getPath()
                    if keep(p.getName()):
                        found.append(p.toString())
                out.extend(sorted(found))
            elif keep(st.getPath().getName()):
                out.append(st.getPath().toString())
        return out

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




def classic_session(spark=None):
    """``spark`` (else the active session) when it is a classic one; None on Spark Connect or without one."""
    session = spark if spark is not None else active_session()
    return session if is_classic(session) else None


def session_hadoop_fs(spark=None) -> Optional[HadoopFS]:
    """Hadoop's FileSystem of a classic session (``fs.get_fs``'s answer for a URI that is not local);
    None on Spark Connect or without a session."""
    session = classic_session(spark)
    return HadoopFS(session) if session is not None else None


fsmod.register_session_fs(session_hadoop_fs)
