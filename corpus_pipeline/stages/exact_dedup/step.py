"""Exact dedup's DataFrame step: of the pages with one normalized-text hash, the smallest page_id."""
from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F


def exact_dedup(pages):
    """(kept, duplicates): one row per text_hash, the smallest page_id survives (``DEDUP_REMOVED``)."""
    w = Window.partitionBy("text_hash").orderBy(F.col("page_id").asc())
    ranked = pages.withColumn("_rn", F.row_number().over(w)).withColumn("_keep", F.first("page_id").over(w))
    kept = ranked.where(F.col("_rn") == 1).drop("_rn", "_keep")
    dups = ranked.where(F.col("_rn") > 1).select(
        F.col("page_id"), F.col("_keep").alias("kept_page_id"), F.lit("exact").alias("kind"),
        F.lit(1.0).alias("similarity"), "warc_file", "warc_offset")
    return kept, dups
