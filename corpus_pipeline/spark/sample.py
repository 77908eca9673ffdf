"""Exact, deterministic samples without a global sort or ``orderBy().limit()``.

:func:`smallest_k` keeps the ``k`` rows with the smallest ``(key, tie)`` of a
DataFrame, where ``key`` is a 64-bit hash (``xxhash64`` of an id and a random
seed): the sample depends only on the rows, not on their partitioning.  It
counts rows per bucket of the key's top bits (``2^BITS`` buckets: at most 4,096
small rows reach the driver per pass), narrows to the bucket where the k-th row
lies, and repeats on that bucket until it holds at most ``WINDOW_ROWS`` rows,
which one window ranks.  Nothing proportional to the input reaches the driver;
passes over the whole input: one count plus one per narrowing level (one or two
in practice: 40 billion rows / 4,096 = 10 million, / 4,096 again = 2,400).
"""
from __future__ import annotations

from typing import Optional

BITS = 12
WINDOW_ROWS = 50_000


def hash_key(*cols, random_seed: int):
    """A 64-bit key for sampling: xxhash64 of the columns and the random seed."""
    from pyspark.sql import functions as F

    return F.xxhash64(*cols, F.lit(int(random_seed)))


def cutoff(df, key: str, tie: str, k: int, n: Optional[int] = None):
    """(key, tie) of the k-th smallest row of ``df``, or None when ``df`` has at most k rows."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    n = df.count() if n is None else n
    if n <= k:
        return None
    cur = df.select(key, tie)
    remaining, shift, cur_n, persisted = int(k), 64 - BITS, n, None
    try:
        while cur_n > WINDOW_ROWS and shift >= 0:
            b = F.shiftright(F.col(key), shift)
            counts = sorted((int(r["b"]), int(r["n"])) for r in
                            cur.groupBy(b.alias("b")).agg(F.count(F.lit(1)).alias("n")).collect())
            acc = 0
            for bucket, c in counts:
                if acc + c >= remaining:
                    break
                acc += c
            remaining -= acc
            cur_n = c
            nxt = cur.where(F.shiftright(F.col(key), shift) == F.lit(bucket)).persist()
            if persisted is not None:
                persisted.unpersist()
            cur = persisted = nxt
            if shift == 0:
                break
            shift = max(0, shift - BITS)
        w = Window.orderBy(F.col(key), F.col(tie))
        r = (cur.withColumn("_rn", F.row_number().over(w)).where(F.col("_rn") == F.lit(remaining))
             .select(key, tie).first())
        return r[key], r[tie]
    finally:
        if persisted is not None:
            persisted.unpersist()


def smallest_k(df, key: str, tie: str, k: int, n: Optional[int] = None):
    """The rows of ``df`` with the ``k`` smallest ``(key, tie)`` (all rows when fewer)."""
    from pyspark.sql import functions as F

    if k <= 0:
        return df.where(F.lit(False))
    c = cutoff(df, key, tie, k, n)
    if c is None:
        return df
    ck, ct = c
    return df.where((F.col(key) < F.lit(ck)) | ((F.col(key) == F.lit(ck)) & (F.col(tie) <= F.lit(ct))))
