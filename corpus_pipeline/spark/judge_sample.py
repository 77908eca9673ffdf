"""Spark layer of ``judge``: an iteration's sample frame, its per-stratum counts and the sample.

The frame is every page of ``RUN/pages`` with the iteration's score, whether it collected the page
and whether the page's domain was flagged; strata and keys are the pure ones of
:mod:`corpus_pipeline.judging` written as column expressions.  Only the per-stratum counts and the
sample (a few hundred rows, text cut short) reach the driver, whatever the crawl's size.
"""
from __future__ import annotations

from .. import judging
from .. import schemas
from .io import read_table


def stratum_col(score, collected, flagged):
    """:func:`judging.stratum` as a column expression (the same bands, the same names)."""
    from pyspark.sql import functions as F

    s = F.coalesce(score, F.lit(0.0))
    band = F.lit(judging.band_name(0))
    for b, lo in enumerate(judging.BANDS):
        if b:
            band = F.when(s >= F.lit(lo), F.lit(judging.band_name(b))).otherwise(band)
    return (F.when(~collected & flagged, F.lit(judging.FLAGGED))
            .otherwise(F.concat(F.when(collected, F.lit("collected ")).otherwise(F.lit("uncollected ")), band)))


def key_col(random_seed: int, page_id):
    """:func:`judging.sample_key` as a column: the first 15 hex digits of SHA-256("<random_seed>:<page_id>")."""
    from pyspark.sql import functions as F

    return F.conv(F.substring(F.sha2(F.concat(F.lit(f"{random_seed}:"), page_id), 256), 1, 15), 16, 10).cast("decimal(20,0)")


def judged_seed_pages(spark, run, iteration: int):
    """page_id of the pages that joined the iteration's seed as judged maths (``judge.add_to_seed``;
    none unless it was set), or None when the iteration's seed is not committed."""
    from .iteration import judged_seed_page_ids

    path = run.location("seed", iteration)
    if not run.is_committed(path):
        return None
    return judged_seed_page_ids(read_table(spark, run.data(path), schemas.SEED))


def frame(spark, run, iteration: int, domain_key: str = "host", exclude=None):
    """page_id, url, host, title, text, score, collected, flagged, stratum of every page, less the
    pages of ``exclude`` (a ``page_id`` DataFrame: the judged pages the iteration's seed trained on,
    whose being collected is no evidence about the classifier)."""
    from pyspark.sql import functions as F

    from .domains import _with_key

    pages = run.table(spark, "pages", schema=schemas.PAGES_COMMON).select(
        "page_id", "url", F.lower(F.col("host")).alias("host"), "title", "text")
    if exclude is not None:
        pages = pages.join(exclude.select("page_id"), "page_id", "left_anti")
    scores = run.table(spark, "scores", iteration)
    collected = (run.table(spark, "collected", iteration)
                 .select("page_id").distinct().withColumn("_c", F.lit(True)))
    flagged = (run.table(spark, "domains", iteration)
               .where("flagged").select(F.col("host").alias("dkey"), F.lit(True).alias("_f")))
    hosts = pages.select("host").where(F.col("host").isNotNull() & (F.col("host") != "")).distinct()
    keys = _with_key(spark, hosts, domain_key).join(F.broadcast(flagged), "dkey", "left").drop("dkey")
    df = pages.join(keys, "host", "left")          # a page without a host is never under a flagged one
    df = (df.join(scores, "page_id", "left").join(collected, "page_id", "left")
          .withColumn("collected", F.coalesce(F.col("_c"), F.lit(False)))
          .withColumn("flagged", F.coalesce(F.col("_f"), F.lit(False))).drop("_c", "_f"))
    return df.withColumn("stratum", stratum_col(F.col("score"), F.col("collected"), F.col("flagged")))


def strata_counts(df) -> dict:
    """``{stratum: {"N", "mean_score"}}`` (one aggregation; a handful of rows reach the driver)."""
    from pyspark.sql import functions as F

    rows = df.groupBy("stratum").agg(F.count(F.lit(1)).alias("N"),
                                     F.avg(F.coalesce(F.col("score"), F.lit(0.0))).alias("mean_score")).collect()
    return {r["stratum"]: {"N": int(r["N"]), "mean_score": float(r["mean_score"] or 0.0)} for r in rows}


def draw_sample(df, random_seed: int, sizes: dict, counts: dict, text_chars: int = 8000) -> list[dict]:
    """The ``sizes[stratum]`` pages of smallest key per stratum, in key order (``rank`` from 1),
    with their url, host, title, score and text cut to ``text_chars`` characters.

    Keys are uniform over 0..2^60, so before ranking a stratum keeps only the keys below the
    quantile that should hold 3k + 50 of its N pages (the window then sorts thousands of rows, not
    the stratum); a stratum left with fewer than k (vanishingly rare) is drawn again unfiltered."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from .io import rows_to_df

    top = 1 << 60
    cut = {h: top if 3 * k + 50 >= counts[h]["N"] else (top * (3 * k + 50)) // counts[h]["N"]
           for h, k in sizes.items()}
    k = rows_to_df(df.sparkSession, sorted((h, n, str(cut[h])) for h, n in sizes.items()),
                   "stratum STRING, k INT, cut STRING")
    w = Window.partitionBy("stratum").orderBy("_key", "page_id")
    keyed = (df.join(F.broadcast(k), "stratum").withColumn("_key", key_col(random_seed, F.col("page_id"))))
    cand = keyed.where(F.col("_key") < F.col("cut").cast("decimal(20,0)"))
    have = {r["stratum"]: r["count"] for r in cand.groupBy("stratum").count().collect()}
    if any(have.get(h, 0) < n for h, n in sizes.items()):
        cand = keyed
    picked = (cand.withColumn("rank", F.row_number().over(w)).where(F.col("rank") <= F.col("k"))
              .select("stratum", "rank", "page_id", "url", "host", "title", "score", "collected", "flagged",
                      F.substring(F.coalesce(F.col("text"), F.lit("")), 1, text_chars).alias("text"),
                      F.length("text").alias("text_chars")))
    return [r.asDict() for r in picked.orderBy("stratum", "rank").collect()]
