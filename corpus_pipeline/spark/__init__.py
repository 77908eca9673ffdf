"""The Spark layer (the engine): the only place (with jobs/) that imports pyspark.

Everything here applies the pure, Spark-free functions of the stage modules
with ``mapPartitions``, joins and Parquet I/O.

Importing it registers Hadoop's FileSystem of a classic session with ``fs.get_fs``
(``classic.session_hadoop_fs``): ``fs`` itself knows no Spark.
"""
from __future__ import annotations

from . import classic  # noqa: F401  (registers the classic session's filesystem with fs)
