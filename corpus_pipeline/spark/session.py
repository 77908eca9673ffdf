"""SparkSession factory.

* Under ``spark-submit`` (or with a session already active) the cluster's
  settings win: nothing here overrides master, memory or cores.
* Otherwise a ``local[*]`` session sized from this machine, UI address printed.
  Tuning comes from ``[spark]`` in the config, never from constants in code.
* Spark's own log lines (log4j2: WARN lines such as WindowExec's "No Partition
  Defined", NativeCodeLoader's) go to a file, not the console: when this process
  starts the driver JVM itself, the JVM is given ``log4j2.properties`` beside
  this module, which writes ``[spark] log_level`` and above to the command's
  Spark log (``RUN/logs/spark.log`` for a local run folder, else a file in the
  local temporary folder) and only ``[spark] console_log_level`` and above
  (ERROR by default) to stderr.  Under spark-submit, or when the user names a
  log4j2 file of their own (``-Dlog4j.configurationFile`` in
  ``spark.driver.extraJavaOptions``, ``SPARK_SUBMIT_OPTS``...), that log
  configuration decides and only ``[spark] log_level`` is applied, as the root
  level (as it is on a new session in a process whose JVM already runs).
* Spark 4's launcher puts ``--add-modules=jdk.incubator.vector`` on the driver JVM's command line
  (``org.apache.spark.launcher.JavaModuleOptions``, no setting removes it), for which the JDK prints
  ``WARNING: Using incubator modules: jdk.incubator.vector`` to stderr at start, before any log
  configuration applies.  When this process starts the JVM, the JVM's stderr is a pipe that a thread
  forwards to this process's stderr without that line (:func:`_jvm_stderr_filtered`); everything else
  the JVM and its Python workers write there is passed on unchanged.
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Optional

from .. import fs as fsmod
from .. import packaging
from ..config import SparkConfig
from ..errors import UsageError, shown_master
from . import jvmcache


def _under_spark_submit() -> bool:
    return "SPARK_SUBMIT" in " ".join(sys.argv) or bool(os.environ.get("SPARK_ENV_LOADED")) or \
        "spark.master" in os.environ.get("PYSPARK_SUBMIT_ARGS", "")


def configured_master(cfg: Optional[SparkConfig] = None) -> str:
    """The master :func:`get_spark` will use, known before any SparkContext exists.

    ``spark.remote`` (or ``SPARK_REMOTE``: a Spark Connect URL), then ``spark.conf["spark.master"]``, then
    ``spark.master``, then spark-submit's ``--master``
    (read from its already running JVM), else ``local[*]``.  Starts no JVM of its own.
    """
    cfg = cfg or SparkConfig()
    if remote_url(cfg):
        return remote_url(cfg)
    if (cfg.conf or {}).get("spark.master"):
        return str(cfg.conf["spark.master"])
    if cfg.master:
        return cfg.master
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        from .classic import master

        return master(active)
    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        from pyspark import SparkConf

        from .classic import attach_submit_jvm

        attach_submit_jvm()
        return SparkConf().get("spark.master", "local[*]")
    return "local[*]"


LOG4J2_PROPERTIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")
_LOG4J_FILE_SETTINGS = ("log4j.configurationFile", "log4j2.configurationFile", "LOG4J_CONFIGURATION_FILE")
_spark_log: Optional[str] = None      # the file Spark's log lines go to, once this process started its JVM


def spark_log() -> Optional[str]:
    """The local file Spark's own log lines go to (set by :func:`get_spark` when it started the
    driver JVM with the project's log configuration), or None."""
    return _spark_log


def spark_log_path(run: Optional[str] = None) -> str:
    """Where Spark's log lines go: ``RUN/logs/spark.log`` for a local run folder (its ``logs``
    folder created), else -- no run folder, a Hadoop URI (an object store cannot be appended to),
    or a folder that cannot be written -- a new file in the local temporary folder."""

    if run is not None and fsmod.is_local(run):
        d = os.path.join(os.path.abspath(fsmod.local_path(run)), "logs")
        try:
            os.makedirs(d, exist_ok=True)
            if os.access(d, os.W_OK):
                return os.path.join(d, "spark.log")
        except OSError:
            pass
    d = os.path.join(tempfile.gettempdir(), "corpus_pipeline-spark-logs")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, f"spark-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}.log")


def _java_property(name: str, value: str) -> str:
    """``-Dname=value`` quoted for the launcher's option parser (spaces, quotes, backslashes)."""
    escaped = f"-D{name}={value}".replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _driver_options(cfg: SparkConfig) -> str:
    """The options of a driver JVM this process starts: ``[spark] driver_java_options``, then the class
    archive's (:mod:`.jvmcache`: map the archive ``[spark] class_archive`` names, when there is one)."""
    return " ".join(p for p in ((cfg.driver_java_options or "").strip(), jvmcache.jvm_options(cfg.class_archive)) if p)


@contextmanager
def _submit_opts(first: str, last: list):
    """While the block runs, the launcher's ``SPARK_SUBMIT_OPTS`` (read only while it starts the driver
    JVM) is ``first`` (``[spark] driver_java_options``), then the user's own ``SPARK_SUBMIT_OPTS``, then
    ``last``: for a JVM option given twice the last one wins, so the user's environment overrides the
    product's default, and ``spark.driver.extraJavaOptions`` (placed after these by the launcher) both."""
    before = os.environ.get("SPARK_SUBMIT_OPTS")
    parts = [p for p in ((first or "").strip(), before or "") if p] + list(last)
    if parts:
        os.environ["SPARK_SUBMIT_OPTS"] = " ".join(parts)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("SPARK_SUBMIT_OPTS", None)
        else:
            os.environ["SPARK_SUBMIT_OPTS"] = before


def _user_log4j_config(cfg: SparkConfig) -> bool:
    """The user names a log4j2 configuration of their own, which then wins over the project's."""
    places = [str((cfg.conf or {}).get(k, "")) for k in ("spark.driver.extraJavaOptions",
                                                          "spark.driver.defaultJavaOptions")]
    places += [os.environ.get(k, "") for k in ("SPARK_SUBMIT_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")]
    return bool(os.environ.get("LOG4J_CONFIGURATION_FILE")) or \
        any(s in p for p in places for s in _LOG4J_FILE_SETTINGS)


# lines the JVM writes to stderr that tell a user nothing they can act on
JVM_STDERR_NOISE = (b"WARNING: Using incubator modules:",)


def jvm_stderr_filter(src, dst_fd: int, noise=JVM_STDERR_NOISE) -> None:
    """Copy lines from the binary file ``src`` to the file descriptor ``dst_fd``, dropping those
    that start with one of ``noise``; returns at the end of ``src``."""
    for line in src:
        if not line.startswith(noise):
            try:
                os.write(dst_fd, line)
            except OSError:
                return


@contextmanager
def _jvm_stderr_filtered():
    """While the block runs, file descriptor 2 is a pipe: a process started in it (the driver JVM)
    keeps that pipe as its stderr for life, and a daemon thread forwards it to the real stderr
    through :func:`jvm_stderr_filter`.  File descriptor 2 is restored when the block ends."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
        r, w = os.pipe()
    except OSError:        # no stderr to speak of: leave things as they are
        yield
        return

    def forward():
        with os.fdopen(r, "rb") as src:
            jvm_stderr_filter(src, saved)
        os.close(saved)

    threading.Thread(target=forward, name="jvm-stderr", daemon=True).start()
    os.dup2(w, 2)
    os.close(w)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)


def remote_url(cfg: Optional[SparkConfig] = None) -> Optional[str]:
    """The Spark Connect URL to use: ``spark.remote``, else ``SPARK_REMOTE``; None: a classic session."""
    return (getattr(cfg, "remote", None) if cfg is not None else None) or os.environ.get("SPARK_REMOTE") or None


CONNECT_CALLS_SINCE_4 = "DataFrame.localCheckpoint and checkpoint, Observation, registerProgressHandler"


def check_connect_client(pyspark_version: str, url: str) -> None:
    """UsageError when the installed pyspark's Connect client lacks calls the product makes (3.5)."""
    major = int(str(pyspark_version).split(".")[0])
    if major < 4:
        raise UsageError(f"spark.remote = {shown_master(url)}: the Spark Connect client of pyspark {pyspark_version} "
                         f"lacks calls the pipeline makes ({CONNECT_CALLS_SINCE_4}: pyspark 4.0+); use pyspark 4.x "
                         f"on the client, or a classic Spark 3.5 session (spark-submit, --master)")


def _connect_session(cfg: SparkConfig, url: str, quiet: bool):
    """A Spark Connect session to ``url`` (``sc://host:port``; pyspark 4.x also starts a local
    Connect server for ``local[N]``) with ``cfg``'s runtime settings."""
    import pyspark
    from pyspark.sql import SparkSession

    check_connect_client(pyspark.__version__, url)

    builder = SparkSession.builder.remote(url).appName(cfg.app_name)
    if cfg.shuffle_partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(cfg.shuffle_partitions))
    for k, v in (cfg.conf or {}).items():
        builder = builder.config(k, str(v))
    try:
        spark = builder.getOrCreate()
    except ImportError as e:
        raise UsageError(f"spark.remote = {shown_master(url)}: a Spark Connect session needs pyspark's Connect client "
                         f"(pip install 'corpus_pipeline[connect]'): {e}") from None
    if cfg.ship_code:
        ship_code(spark)
    if not quiet:
        print(f"[spark] remote={shown_master(url)} (Spark Connect)", flush=True)
    return spark


def ship_code(spark) -> None:
    """Send the product's own code to a Connect session's Python workers: the zip that
    ``spark-submit --py-files`` gets on a classic cluster (:mod:`corpus_pipeline.packaging`, built
    afresh in a new temporary folder: 3 MB in 0.2 s, so that concurrent commands never share one;
    removed once uploaded), added as a Python artifact, which the server puts on its workers'
    ``sys.path`` for this session only.  The compiled dependencies (fasttext, resiliparse, fastwarc...)
    are not in it: the server's Python must have them (cluster libraries or a packed environment; see
    the cluster guide)."""
    with tempfile.TemporaryDirectory(prefix="corpus_pipeline-artifact-") as d:
        spark.addArtifacts(packaging.build_zip(d), pyfile=True)      # uploaded before it returns


def get_spark(cfg: Optional[SparkConfig] = None, quiet: bool = False, run: Optional[str] = None):
    """The active SparkSession, or a new one from ``cfg``.

    ``run``: the command's run folder, where Spark's log lines go (``RUN/logs/spark.log``) when
    this call starts the driver JVM; without it they go to a file in the temporary folder.
    """
    global _spark_log
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if os.environ.get("SPARK_LOCAL_IP") is None and not _under_spark_submit():
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    cfg = cfg or SparkConfig()
    remote = remote_url(cfg)
    if remote:
        return _connect_session(cfg, remote, quiet)
    builder = SparkSession.builder.appName(cfg.app_name)
    from pyspark import SparkConf

    from . import classic

    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        # launched by spark-submit: connect to its JVM first, or SparkConf() is an empty
        # Python-side dict and spark-submit's --master/--conf would be silently ignored
        classic.attach_submit_jvm()
    existing = SparkConf()  # holds spark-submit's --master/--conf when launched by it
    if cfg.master:
        builder = builder.master(cfg.master)
    elif not existing.contains("spark.master"):
        builder = builder.master("local[*]")
    if cfg.driver_memory and not existing.contains("spark.driver.memory"):
        builder = builder.config("spark.driver.memory", cfg.driver_memory)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    builder = builder.config("spark.sql.execution.arrow.pyspark.enabled", "false")
    builder = builder.config("spark.python.worker.reuse", "true")
    if cfg.shuffle_partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(cfg.shuffle_partitions))
    for k, v in (cfg.conf or {}).items():
        builder = builder.config(k, str(v))
    log_file = None
    if not classic.jvm_started() and not os.environ.get("PYSPARK_GATEWAY_PORT") \
            and not _under_spark_submit() and not _user_log4j_config(cfg) and os.path.isfile(LOG4J2_PROPERTIES):
        # this call starts the driver JVM: give it the project's log configuration, through the
        # launcher's SPARK_SUBMIT_OPTS (read only while it starts the JVM), so that a
        # spark.driver.extraJavaOptions of the user's (spark-defaults.conf too) is kept and wins
        log_file = spark_log_path(run)
        props = {"log4j.configurationFile": LOG4J2_PROPERTIES, "corpus_pipeline.spark.log_file": log_file,
                 "corpus_pipeline.spark.log_level": cfg.log_level,
                 "corpus_pipeline.spark.console_log_level": cfg.console_log_level}
        with _submit_opts(_driver_options(cfg), [_java_property(k, v) for k, v in props.items()]), \
                _jvm_stderr_filtered():
            spark = builder.getOrCreate()
        jvmcache.wait_for_dump_at_exit()
        _spark_log = log_file
    elif not classic.jvm_started() and not os.environ.get("PYSPARK_GATEWAY_PORT") and not _under_spark_submit():
        # a log configuration of the user's: the JVM starts here too
        with _submit_opts(_driver_options(cfg), []), _jvm_stderr_filtered():
            spark = builder.getOrCreate()
        jvmcache.wait_for_dump_at_exit()
        classic.set_log_level(spark, cfg.log_level)
    else:
        spark = builder.getOrCreate()
        classic.set_log_level(spark, cfg.log_level)
    if not cfg.shuffle_partitions and "spark.sql.shuffle.partitions" not in (cfg.conf or {}) \
            and not existing.contains("spark.sql.shuffle.partitions"):
        # small machines and small runs: 200 shuffle partitions is mostly overhead
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, 2 * classic.default_parallelism(spark))))
    if not quiet:
        url = classic.ui_url(spark)
        print(f"[spark] master={classic.master(spark)} ui={url or 'disabled'}"
              + (f" log={log_file}" if log_file else ""), flush=True)
    return spark
