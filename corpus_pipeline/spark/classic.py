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
from typing import Optional

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
