"""The driver JVM's class archive: a class-data-sharing file that cuts every command's JVM start-up.

A command that starts its own driver JVM (not under spark-submit, not on Spark Connect) loads some
12,000 classes of Spark, Hadoop and their libraries before its first job, and parses and verifies each
one: a few seconds of CPU on every command.  The JDK can write the classes one run loaded into an
archive (``-XX:ArchiveClassesAtExit``, JDK 13 and later) and map it into later JVMs
(``-XX:SharedArchiveFile``), which then skip that work.

* ``corpus-pipeline jvm-cache`` writes the archive: it runs the whole recipe once on a small generated
  crawl, in a child process whose JVM writes the classes it loaded when it exits (to a temporary name,
  renamed into place when complete, so a reader never maps half a file).  ``make setup`` runs it.
* Every later command that starts its driver JVM itself maps it (``[spark] class_archive``: ``auto``,
  the default, uses the archive in the cache folder when there is one; a path names another file;
  ``off`` never uses one).
* The archive belongs to one JVM binary and one set of Spark jars: its file name holds a key made of
  the java executable (path, size, modification time) and the jar folder's listing.  A new JDK, Spark
  or jar gives another key, so the old archive is simply not found and the JVM starts as it would
  without one; a mismatch the key misses is caught by the JVM itself, which then ignores the archive
  (``-Xshare:auto``), with its warnings silenced.  Nothing changes but the start-up time.

The cache folder is ``CORPUS_PIPELINE_CACHE``, else ``$XDG_CACHE_HOME/corpus_pipeline``, else
``~/.cache/corpus_pipeline``; the archive is about 200 MB.  docs/how-it-works.md has the measurements.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
from typing import Optional

# set for the child process that writes the archive: its JVM dumps the classes it loaded to this file
DUMP_ENV = "CORPUS_PIPELINE_CLASS_ARCHIVE_DUMP"
_QUIET = "-Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"


def cache_dir() -> str:
    """The folder for the archive (not created here)."""
    if os.environ.get("CORPUS_PIPELINE_CACHE"):
        return os.path.abspath(os.environ["CORPUS_PIPELINE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.abspath(base), "corpus_pipeline")


def java_executable() -> Optional[str]:
    """The java binary Spark's launcher runs (``$JAVA_HOME/bin/java``, else ``java`` on the PATH)."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.isfile(java) else None


def spark_jars_dir() -> Optional[str]:
    """The folder of jars on the driver's class path (``$SPARK_HOME/jars``, else pyspark's own)."""
    home = os.environ.get("SPARK_HOME")
    if not home:
        try:
            import pyspark
        except ImportError:
            return None
        home = os.path.dirname(os.path.abspath(pyspark.__file__))
    d = os.path.join(home, "jars")
    return d if os.path.isdir(d) else None


def archive_key() -> Optional[str]:
    """What the archive depends on, hashed: the java binary and the jars (None: no java or no jars)."""
    java, jars = java_executable(), spark_jars_dir()
    if java is None or jars is None:
        return None
    h = hashlib.sha1()
    st = os.stat(java)
    h.update(f"{java}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for name in sorted(os.listdir(jars)):
        p = os.path.join(jars, name)
        st = os.stat(p)
        h.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:16]


def default_archive() -> Optional[str]:
    """The archive path for this machine's java and jars in the cache folder (it may not exist)."""
    key = archive_key()
    return os.path.join(cache_dir(), f"jvm-classes-{key}.jsa") if key else None


def archive_to_use(setting: str) -> Optional[str]:
    """The archive a starting driver JVM maps, from ``[spark] class_archive``: ``off`` or empty: none;
    ``auto``: the cache folder's archive if it was written; else the named file if it exists."""
    setting = (setting or "").strip()
    if setting.lower() in ("", "off", "false", "none"):
        return None
    path = default_archive() if setting.lower() == "auto" else os.path.abspath(os.path.expanduser(setting))
    return path if path and os.path.isfile(path) and os.path.getsize(path) > 0 else None


def jvm_options(setting: str) -> str:
    """The driver JVM options for the archive: writing it (in the child of ``jvm-cache``), mapping it,
    or nothing."""
    dump = os.environ.get(DUMP_ENV)
    if dump:
        return f"-XX:ArchiveClassesAtExit={dump} {_QUIET}"
    path = archive_to_use(setting)
    return f"-XX:SharedArchiveFile={path} {_QUIET}" if path else ""


def wait_for_dump_at_exit() -> None:
    """In the child of ``jvm-cache``: at exit, stop Spark and wait for the JVM to finish writing the
    archive (it writes at its own exit, which the end of this process's pipe to it starts)."""
    if not os.environ.get(DUMP_ENV):
        return
    from .classic import stop_and_wait_for_jvm

    atexit.register(stop_and_wait_for_jvm)


def prune(keep: str) -> list[str]:
    """Remove the cache folder's leftover temporary files (an interrupted write); returns what was
    removed.  Other archives stay: another virtualenv on the machine (its own Spark jars) uses its own."""
    d = os.path.dirname(keep)
    gone = []
    for name in os.listdir(d) if os.path.isdir(d) else []:
        p = os.path.join(d, name)
        if p != keep and name.startswith("jvm-classes-") and ".tmp" in name:
            os.remove(p)
            gone.append(p)
    return gone
