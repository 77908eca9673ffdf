"""Spark's xxhash64 in pure Python: the standard XXH64 vectors, and Spark's chaining of arguments
(the comparison with Spark SQL itself is in tests/spark/test_classify_spark.py and below)."""
from __future__ import annotations

import pytest

from corpus_pipeline.sparkhash import spark_xxhash64, unit_interval, xxh64


@pytest.mark.parametrize("data,seed,expected", [
    (b"", 0, 0xEF46DB3751D8E999),
    (b"a", 0, 0xD24EC4F1A98C6E5B),
    (b"abc", 0, 0x44BC2CF5AD770999),
    (b"Nobody inspects the spammish repetition", 0, 0xFBCEA83C8A378BF1),
])
def test_standard_xxh64_vectors(data, seed, expected):
    assert xxh64(data, seed) == expected


def test_arguments_chain_and_none_is_skipped():
    assert spark_xxhash64("a", None, "b") == spark_xxhash64("a", "b") != spark_xxhash64("b", "a")
    assert spark_xxhash64(7) != spark_xxhash64(7 + 2 ** 32)                    # 4 bytes, then 8
    assert all(0.0 <= unit_interval(i, "holdout", "x") < 1.0 for i in range(200))
    with pytest.raises(TypeError):
        spark_xxhash64(1.5)


@pytest.mark.spark
def test_equals_spark_sql(spark):
    from pyspark.sql import functions as F

    texts = ["", "a", "x" * 31, "y" * 32, "z" * 33, "Σ∫ 数学 " * 9, "𠀀" * 17, "mixed ascii and é" * 5]
    seeds = [0, 9, -3, 2 ** 31 - 1, 2 ** 40]
    df = spark.createDataFrame([(t,) for t in texts], "text STRING")
    for seed in seeds:
        got = {r["text"]: r["h"] for r in df.select("text", F.xxhash64(F.lit(seed), F.lit("holdout"),
                                                                       F.col("text")).alias("h")).collect()}
        assert got == {t: spark_xxhash64(seed, "holdout", t) for t in texts}, seed
