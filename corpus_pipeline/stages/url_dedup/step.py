"""URL dedup's DataFrame step: of several fetches of one page_id (its normalized URL), the latest."""
from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F


def url_dedup(pages):
    """(kept, duplicates): one row per page_id, the latest fetch (ties by warc_file, warc_offset).
    Duplicates carry the removed record's ``warc_file`` and ``warc_offset`` (``DEDUP_REMOVED``)."""
    w = Window.partitionBy("page_id").orderBy(
        F.col("fetched_at").desc_nulls_last(), F.col("warc_file").desc_nulls_last(),
        F.col("warc_offset").desc_nulls_last())
    ranked = pages.withColumn("_rn", F.row_number().over(w))
    kept = ranked.where(F.col("_rn") == 1).drop("_rn")
    dups = ranked.where(F.col("_rn") > 1).select(
        F.col("page_id"), F.col("page_id").alias("kept_page_id"), F.lit("url").alias("kind"),
        F.lit(1.0).alias("similarity"), "warc_file", "warc_offset")
    return kept, dups
