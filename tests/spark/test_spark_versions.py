"""The same code on pyspark 3.5 (EMR 7, Dataproc 2.2) and 4.x: things whose API differs between them."""
from __future__ import annotations

import pytest

from corpus_pipeline import schemas
from corpus_pipeline.spark.io import struct

pytestmark = pytest.mark.spark

DDLS = {k: v for k, v in vars(schemas).items() if k.isupper() and isinstance(v, str) and " STRING" in v}


@pytest.mark.parametrize("name", sorted(DDLS))
def test_struct_equals_sparks_own_ddl_parser(spark, name):
    from pyspark.sql import types as T

    ddl = DDLS[name]
    # StructType.fromDDL exists from 4.0 on; _parse_datatype_string (through the JVM) on both
    assert struct(ddl) == T._parse_datatype_string(ddl)
    if hasattr(T.StructType, "fromDDL"):
        assert struct(ddl) == T.StructType.fromDDL(ddl)


def test_struct_falls_back_for_nested_types(spark):
    s = struct("a STRING, b ARRAY<STRING>")
    assert [f.name for f in s.fields] == ["a", "b"] and s.fields[1].dataType.elementType.typeName() == "string"


def test_write_counted_counts_what_it_wrote(spark, tmp_path):
    # the Observation API (pyspark >= 3.3) counts during the write: no second read of the files
    from pyspark.sql import functions as F

    from corpus_pipeline.spark.io import write_counted

    df = spark.range(0, 5000, numPartitions=3).withColumn("page_id", F.col("id").cast("string"))
    cases = {"all": df, "filtered": df.where(F.col("id") % 7 == 0), "none": df.where(F.col("id") < 0),
             "repartitioned": df.where(F.col("id") % 3 == 1)}
    for name, d in cases.items():
        out = str(tmp_path / name)
        n = write_counted(d.select("page_id"), out, "page_id STRING", partitions=2 if name == "repartitioned" else None)
        assert n == spark.read.parquet(out).count() == d.count(), name
