"""Spark layer of the annotation page: per listed prefix, how many pages a mark would add to the
seed, and sample pages from the crawl itself (collected and not, with score and extracted text).

Computed once when ``corpus-pipeline annotate RUN --serve`` starts; the result is human-scale
(the listed prefixes of the top hosts, a few samples each) and is collected to the driver.
"""
from __future__ import annotations

from .. import schemas
from .io import rows_to_df


def prefix_view(spark, run, iteration: int, prefixes: list[tuple[str, str]], samples_per_kind: int = 3,
                text_chars: int = 2000) -> tuple[dict, list[dict]]:
    """``({(host, prefix): would_join}, [sample rows])`` for the given (host, prefix) pairs.

    would_join: pages under the prefix that are neither collected in ``iteration`` nor already
    seed positives (what a mark adds to the next seed, ``spark/domains.pages_under_marks``).
    Samples: up to ``samples_per_kind`` collected and as many uncollected pages per prefix,
    picked by a hash of page_id (deterministic, spread over the prefix), text cut to
    ``text_chars`` characters.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if not prefixes:
        return {}, []
    pages = run.table(spark, "pages", schema=schemas.PAGES_COMMON)
    scores = run.table(spark, "scores", iteration)
    collected = run.table(spark, "collected", iteration)
    seed = run.table(spark, "seed", iteration)

    pdf = rows_to_df(spark, [(h, p) for h, p in sorted(set(prefixes))], "m_host STRING, m_prefix STRING")
    hosts = sorted({h for h, _ in prefixes})
    df = (pages.select("page_id", F.lower(F.col("host")).alias("host"), "path", "url", "title", "text",
                       "fetched_at")
          .where(F.col("host").isin(hosts)))
    under = df.join(F.broadcast(pdf), (F.col("host") == F.col("m_host")) &
                    F.coalesce(F.col("path"), F.lit("/")).startswith(F.col("m_prefix")), "inner")
    under = (under.join(scores, "page_id", "left")
             .join(collected.select("page_id", F.lit(True).alias("_c")), "page_id", "left")
             .join(seed.where("page_id IS NOT NULL").select("page_id", F.lit(True).alias("_s")).distinct(),
                   "page_id", "left")
             .withColumn("collected", F.coalesce(F.col("_c"), F.lit(False)))
             .withColumn("in_seed", F.coalesce(F.col("_s"), F.lit(False)))
             .drop("_c", "_s")).cache()
    try:
        joins = {(r["m_host"], r["m_prefix"]): int(r["n"]) for r in
                 under.groupBy("m_host", "m_prefix")
                 .agg(F.sum((~F.col("collected") & ~F.col("in_seed")).cast("long")).alias("n")).collect()}
        w = Window.partitionBy("m_host", "m_prefix", "collected").orderBy(F.xxhash64("page_id"), "page_id")
        picked = (under.withColumn("_n", F.row_number().over(w)).where(F.col("_n") <= samples_per_kind)
                  .select("m_host", "m_prefix", "page_id", "url", "title",
                          F.substring(F.coalesce(F.col("text"), F.lit("")), 1, text_chars).alias("text"),
                          F.length("text").alias("text_chars"), "score", "collected", "fetched_at", "_n"))
        samples = [r.asDict() for r in picked.orderBy("m_host", "m_prefix", F.desc("collected"), "_n").collect()]
    finally:
        under.unpersist()
    return joins, samples
