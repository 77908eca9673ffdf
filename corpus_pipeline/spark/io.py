"""Parquet I/O with the explicit schemas of ``schemas.py``."""
from __future__ import annotations

from typing import Iterable, Optional

from .. import fs as fsmod


def struct(ddl: str):
    from pyspark.sql.types import StructType

    return StructType.fromDDL(ddl)


def read_table(spark, path: str, ddl: Optional[str] = None):
    """Read the Parquet table at ``path``; a committed stage folder is read from its
    committed attempt (never ``path`` itself, whose ``attempt=`` folders Spark's
    partition discovery would read as partitions)."""
    from ..runfolder import committed_data

    path = committed_data(path, spark)
    reader = spark.read
    if ddl is not None:
        reader = reader.schema(struct(ddl))
    return reader.parquet(fsmod.to_spark_uri(path))


def write_table(df, path: str, ddl: Optional[str] = None, partitions: Optional[int] = None) -> None:
    """Write ``df`` (columns in schema order when ``ddl`` is given) as Parquet at ``path``."""
    if ddl is not None:
        from ..schemas import columns

        df = df.select(*columns(ddl))
    if partitions:
        df = df.repartition(partitions)
    df.write.mode("overwrite").parquet(fsmod.to_spark_uri(path))


def rows_to_df(spark, rows: Iterable[tuple], ddl: str, num_slices: Optional[int] = None):
    """A DataFrame from driver-side rows (small tables only: worksheets, domains, seeds)."""
    rdd = spark.sparkContext.parallelize(list(rows), num_slices or 1)
    return spark.createDataFrame(rdd, struct(ddl))


def rdd_to_df(spark, rdd, ddl: str):
    """A DataFrame from an RDD of tuples in schema order, with no type inference pass."""
    return spark.createDataFrame(rdd, struct(ddl))
