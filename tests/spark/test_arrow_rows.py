"""spark/arrow.py: rows to Arrow batches and back (types, nulls, order), parallelize's slices, and the
partitions local_rows and map_rows keep."""
from __future__ import annotations

import pytest

from corpus_pipeline.spark import arrow as A

DDL = "s STRING, n BIGINT, i INT, d DOUBLE, b BOOLEAN, a ARRAY<BIGINT>"


@pytest.mark.spark
def test_batches_round_trip_types_nulls_and_order(spark):      # an ARRAY type's DDL is parsed by Spark
    rows = [("x", 1, 2, 0.5, True, [1, 2]), (None, None, None, None, None, None), ("ü", -(1 << 62), 7, 1.0, False, [])]
    schema = A.arrow_schema(DDL)
    batches = list(A.rows_to_batches(iter(rows), schema, 2))
    assert [b.num_rows for b in batches] == [2, 1]
    assert [r for b in batches for r in A.batch_rows(b)] == rows
    with pytest.raises(ValueError):
        A.to_batch([("only one",)], schema)


def test_slices_are_parallelizes():
    assert A.slices(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert A.slices(0, 2) == [(0, 0), (0, 0)]


@pytest.mark.spark
def test_local_rows_and_map_rows_keep_partitions_and_order(spark):
    from pyspark.sql import functions as F

    rows = [(f"p{i}", i) for i in range(10)]
    df = A.local_rows(spark, rows, "k STRING, v BIGINT", 3)
    parts = df.select(F.spark_partition_id().alias("p"), "k", "v").collect()
    assert [(r["p"], r["v"]) for r in parts] == [(0, 0), (0, 1), (0, 2), (1, 3), (1, 4), (1, 5),
                                                (2, 6), (2, 7), (2, 8), (2, 9)]
    running = A.map_rows(df, lambda it: ((k, sum(v for _ in [0])) for k, v in it), "k STRING, v BIGINT")
    assert running.collect() == df.collect()
    groups = A.local_rows(spark, [["a", "b"], ["c"]], "f STRING", 2, fn=lambda gs: ((f,) for g in gs for f in g))
    assert groups.select(F.spark_partition_id().alias("p"), "f").collect() == [(0, "a"), (0, "b"), (1, "c")]
