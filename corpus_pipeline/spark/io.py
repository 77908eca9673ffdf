"""Parquet I/O with the explicit schemas of ``schemas.py``."""
from __future__ import annotations

from typing import Iterable, Optional

from .. import fs as fsmod
from ..runfolder import committed_data
from ..schemas import columns
from .arrow import local_rows, struct  # noqa: F401 - struct: the DDL -> StructType of the layer


def read_table(spark, path: str, ddl: Optional[str] = None):
    """Read the Parquet table at ``path``; a committed stage folder is read from its
    committed attempt (never ``path`` itself, whose ``attempt=`` folders Spark's
    partition discovery would read as partitions)."""

    path = committed_data(path, spark)
    reader = spark.read
    if ddl is not None:
        reader = reader.schema(struct(ddl))
    return reader.parquet(fsmod.to_spark_uri(path))


def write_table(df, path: str, ddl: Optional[str] = None, partitions: Optional[int] = None) -> None:
    """Write ``df`` (columns in schema order when ``ddl`` is given) as Parquet at ``path``."""
    if ddl is not None:
        df = df.select(*columns(ddl))
    if partitions:
        df = df.repartition(partitions)
    df.write.mode("overwrite").parquet(fsmod.to_spark_uri(path))


def write_counted(df, path: str, ddl: Optional[str] = None, partitions: Optional[int] = None) -> int:
    """:func:`write_table`, returning how many rows it wrote: counted while writing (an
    observed metric of the write's own job), not by reading the files back."""
    return write_observed(df, path, ddl, {"n": "count(1)"}, partitions)["n"]


def write_observed(df, path: str, ddl: Optional[str], aggregates: dict, partitions: Optional[int] = None) -> dict:
    """:func:`write_table`, returning ``{name: value}`` of the SQL aggregate expressions ``aggregates``
    (``{"rows": "count(1)", "empty": "count_if(line = '')"}``) over the rows written, observed by the
    write's own job (its result stage: a retried task's rows are counted once)."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    obs = Observation("written")
    cols = [F.expr(e).alias(n) for n, e in aggregates.items()]
    write_table(df.observe(obs, *cols), path, ddl, partitions)
    got = obs.get
    return {n: (int(got[n]) if got.get(n) is not None else 0) for n in aggregates}


def rows_to_df(spark, rows: Iterable[tuple], ddl: str, num_slices: Optional[int] = None):
    """A DataFrame from driver-side rows (small tables only: worksheets, domains, seeds), in
    ``num_slices`` partitions (default 1) cut as ``parallelize`` cuts them (:func:`.arrow.local_rows`)."""
    return local_rows(spark, rows, ddl, num_slices)
