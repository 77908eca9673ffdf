"""Spark layer of ``corpus-pipeline inspect``: small samples of a run's tables for a person to read.

Every function returns at most ``n`` rows (lists of dicts, collected to the driver); nothing
proportional to the corpus leaves Spark.
"""
from __future__ import annotations

from typing import Optional

from .. import schemas
from ..arrowrun import benchmark_items  # noqa: F401 - no Spark: shared with the pyarrow look-ups

TEXT_CHARS = 300


def _text(col: str = "text", n: int = TEXT_CHARS):
    from pyspark.sql import functions as F

    return F.substring(F.regexp_replace(F.coalesce(F.col(col), F.lit("")), r"\s+", " "), 1, n)


def _pages(spark, run):
    return run.table(spark, "pages", schema=schemas.PAGES_COMMON)


def collected_samples(spark, run, iteration: int, threshold: float, n: int = 5) -> dict:
    """Collected pages nearest the threshold (lowest scores) and farthest above it (highest)."""
    from pyspark.sql import functions as F

    col = run.table(spark, "collected", iteration)
    df = col.join(_pages(spark, run).select("page_id", "url", "host", "title", "text"), "page_id")
    cols = ["page_id", "url", "host", "title", "score", "n_tokens", _text().alias("excerpt")]
    near = df.orderBy(F.asc("score"), "page_id").limit(n).select(*cols).collect()
    far = df.orderBy(F.desc("score"), "page_id").limit(n).select(*cols).collect()
    return {"iteration": iteration, "threshold": threshold,
            "near_threshold": [r.asDict() for r in near], "far_above": [r.asDict() for r in far]}


def pages_of(spark, run, iteration: Optional[int], host: Optional[str], prefix: Optional[str], n: int = 10) -> dict:
    """Pages of a host (and path prefix): with ``iteration``, its collected and its missed (uncollected)
    pages, each by score (highest first), and how many of each; without, its pages by path."""
    from pyspark.sql import functions as F

    df = _pages(spark, run).select("page_id", "url", F.lower(F.col("host")).alias("host"), "path", "title", "text",
                                   "n_tokens")
    if host:
        df = df.where(F.col("host") == host.lower())
    if prefix:
        df = df.where(F.coalesce(F.col("path"), F.lit("/")).startswith(prefix))
    cols = ["page_id", "url", "title", "score", "collected", "n_tokens", _text().alias("excerpt")]
    if iteration is None:
        df = df.withColumn("score", F.lit(None).cast("double")).withColumn("collected", F.lit(None).cast("boolean"))
        rows = df.orderBy("path", "page_id").limit(n).select(*cols).collect()
        return {"host": host, "prefix": prefix, "iteration": None, "pages": df.count(),
                "rows": [r.asDict() for r in rows]}
    sc = run.table(spark, "scores", iteration)
    col = run.table(spark, "collected", iteration)
    df = (df.join(sc, "page_id", "left")
          .join(col.select("page_id", F.lit(True).alias("collected")), "page_id", "left")
          .withColumn("collected", F.coalesce(F.col("collected"), F.lit(False)))).cache()
    try:
        counts = {r["collected"]: int(r["count"]) for r in df.groupBy("collected").count().collect()}

        def best(flag: bool) -> list:
            return [r.asDict() for r in df.where(F.col("collected") == flag)
                    .orderBy(F.desc("score"), "page_id").limit(n).select(*cols).collect()]
        got, missed = best(True), best(False)
    finally:
        df.unpersist()
    return {"host": host, "prefix": prefix, "iteration": iteration, "pages": sum(counts.values()),
            "collected_pages": counts.get(True, 0), "collected": got, "missed": missed}


def near_duplicates(spark, run, n: int = 10) -> dict:
    """Removed near duplicates with their similarity and the page kept in their place, least similar
    first (the pairs nearest the threshold); ``by_kind``: removals per kind (url, exact, near)."""
    from pyspark.sql import functions as F

    if not run.committed("pages_duplicates"):
        return {"pairs": [], "total": 0, "by_kind": {}}
    all_d = run.table(spark, "pages_duplicates", schema=schemas.DUPLICATES)
    by_kind = dict(sorted((r["kind"], int(r["count"])) for r in all_d.groupBy("kind").count().collect()))
    d = all_d.where(F.col("kind") == "near")
    total = by_kind.get("near", 0)
    kept = _pages(spark, run).select(F.col("page_id").alias("kept_page_id"), F.col("url").alias("kept_url"),
                                     F.col("title").alias("kept_title"), _text().alias("kept_excerpt"))
    rows = (d.join(kept, "kept_page_id", "left").orderBy(F.asc_nulls_last("similarity"), "page_id").limit(n)
            .select("page_id", "kind", "similarity", "kept_page_id", "kept_url", "kept_title", "kept_excerpt")
            .collect())
    return {"pairs": [r.asDict() for r in rows], "total": total, "by_kind": by_kind}


def contamination(spark, run, n: int = 10, items: Optional[dict] = None) -> dict:
    """Decontamination removals with the benchmark item they matched (``items``: (benchmark, item_id) -> text)."""

    if not run.committed("contamination"):
        return {"rows": [], "total": 0, "decontaminated": False}
    c = run.table(spark, "contamination")
    total = c.count()
    pages = _pages(spark, run).select("page_id", "url", "title")
    rows = [r.asDict() for r in c.join(pages, "page_id", "left").orderBy("benchmark", "item_id", "page_id", "action")
            .limit(n).collect()]
    for r in rows:
        r["item_text"] = (items or {}).get((r["benchmark"], r["item_id"]))
    return {"rows": rows, "total": total, "decontaminated": True}


