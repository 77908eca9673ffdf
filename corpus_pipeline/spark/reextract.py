"""The final corpus's text from a second extractor (``final.extractor``), on Spark.

The bulk pass (scores, domains, dedup) runs on the fast extractor's text; the
pages of the final corpus, a small share of the crawl, are fetched again by
``warc_file`` + ``warc_offset`` (:func:`sources.fetch_page`: ranged GETs on
S3, seeks locally) and extracted again with ``final.extractor``.  One task per
group of WARC files (rows sorted by offset within a file).  A page whose record
cannot be fetched, or that the second extractor skips or cuts below
``ingest.min_text_chars``, keeps its bulk text: nothing in the corpus is lost.
``final.extractor = "ingest"`` (or the same extractor as ingest) returns the
corpus unchanged.
"""
from __future__ import annotations

from .. import schemas
from ..config import Config
from ..counters import Counts

_COLS = schemas.columns(schemas.FINAL_CORPUS)


def reextract_rows(rows, cfg: Config, counts: Counts):
    """Pure: FINAL_CORPUS dicts carrying ``warc_file``/``warc_offset`` -> FINAL_CORPUS dicts, the
    text (and n_tokens) from ``final.extractor`` where it gives one.  Counts ``reextracted`` and,
    for pages that keep their bulk text, the reason."""
    from ..extract import extract_html
    from ..sources import fetch_page
    from ..text import count_tokens

    ic = cfg.ingest
    for row in rows:
        out = {c: row.get(c) for c in _COLS}
        page = None
        if row.get("warc_file") and row.get("warc_offset") is not None:
            page = fetch_page(row["warc_file"], int(row["warc_offset"]), ic, counts)
        else:
            counts.add("refetch_no_offset")
        if page is not None:
            res = extract_html(page.html, page.url, timeout_s=ic.extract_timeout_s, favor=ic.favor,
                               extractor=cfg.final.extractor)
            text = (getattr(res, "text", "") or "").strip()
            if not hasattr(res, "text"):
                counts.add(f"reextract_{res.reason}")
            elif len(text) < ic.min_text_chars:
                counts.add("reextract_text_too_short")
            else:
                out["text"], out["n_tokens"] = text, count_tokens(text)
                counts.add("reextracted")
        yield out


def needs_reextraction(cfg: Config) -> bool:
    return cfg.final.extractor not in ("ingest", cfg.ingest.extractor)


def reextract_df(spark, corpus_df, pages_df, cfg: Config):
    """The final corpus (FINAL_CORPUS) with its text from ``final.extractor`` (see module doc)."""
    if not needs_reextraction(cfg):
        return corpus_df
    from pyspark.sql import functions as F

    from .io import rdd_to_df

    if {"warc_file", "warc_offset"} <= set(corpus_df.columns):      # the corpus carries its provenance
        located = corpus_df
    else:
        located = corpus_df.join(pages_df.select("page_id", "warc_file", "warc_offset"), "page_id", "left")
    ordered = (located.repartition(max(1, spark.sparkContext.defaultParallelism * 2), "warc_file")
               .sortWithinPartitions("warc_file", "warc_offset"))

    def task(it):
        counts = Counts("final", "")
        for row in reextract_rows((r.asDict() for r in it), cfg, counts):
            yield tuple(row[c] for c in _COLS)

    from pyspark import StorageLevel

    # persisted: the final stage reads the corpus for decontamination and again for the write
    return rdd_to_df(spark, ordered.rdd.mapPartitions(task), schemas.FINAL_CORPUS).select(
        *[F.col(c) for c in _COLS]).persist(StorageLevel.MEMORY_AND_DISK)
