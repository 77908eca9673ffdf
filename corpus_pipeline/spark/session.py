"""SparkSession factory.

* Under ``spark-submit`` (or with a session already active) the cluster's
  settings win: nothing here overrides master, memory or cores.
* Otherwise a ``local[*]`` session sized from this machine, quiet logs, UI
  address printed.  Tuning comes from ``[spark]`` in the config, never from
  constants in code.
"""
from __future__ import annotations

import os
import sys
from typing import Optional

from ..config import SparkConfig


def _under_spark_submit() -> bool:
    return "SPARK_SUBMIT" in " ".join(sys.argv) or bool(os.environ.get("SPARK_ENV_LOADED")) or \
        "spark.master" in os.environ.get("PYSPARK_SUBMIT_ARGS", "")


def configured_master(cfg: Optional[SparkConfig] = None) -> str:
    """The master :func:`get_spark` will use, known before any SparkContext exists.

    ``spark.conf["spark.master"]``, then ``spark.master``, then spark-submit's ``--master``
    (read from its already running JVM), else ``local[*]``.  Starts no JVM of its own.
    """
    cfg = cfg or SparkConfig()
    if (cfg.conf or {}).get("spark.master"):
        return str(cfg.conf["spark.master"])
    if cfg.master:
        return cfg.master
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active.sparkContext.master
    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        from pyspark import SparkConf, SparkContext

        SparkContext._ensure_initialized()
        return SparkConf().get("spark.master", "local[*]")
    return "local[*]"


def get_spark(cfg: Optional[SparkConfig] = None, quiet: bool = False):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if os.environ.get("SPARK_LOCAL_IP") is None and not _under_spark_submit():
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    cfg = cfg or SparkConfig()
    builder = SparkSession.builder.appName(cfg.app_name)
    from pyspark import SparkConf, SparkContext

    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        # launched by spark-submit: connect to its JVM first, or SparkConf() is an empty
        # Python-side dict and spark-submit's --master/--conf would be silently ignored
        SparkContext._ensure_initialized()
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
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(cfg.log_level)
    if not cfg.shuffle_partitions and "spark.sql.shuffle.partitions" not in (cfg.conf or {}) \
            and not existing.contains("spark.sql.shuffle.partitions"):
        # small machines and small runs: 200 shuffle partitions is mostly overhead
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, 2 * spark.sparkContext.defaultParallelism)))
    if not quiet:
        url = spark.sparkContext.uiWebUrl
        print(f"[spark] master={spark.sparkContext.master} ui={url or 'disabled'}", flush=True)
    return spark
