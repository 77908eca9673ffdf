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
from ..extract import extract_html
from ..sources import fetch_page
from ..text import count_tokens

_COLS = schemas.columns(schemas.FINAL_CORPUS)


def reextract_row(row: dict, cfg: Config) -> tuple:
    """(FINAL_CORPUS dict, outcome): outcome is ``reextracted`` or the reason the page keeps its
    bulk text (``refetch_*`` or the record's skip reason, ``reextract_<skip reason>``,
    ``reextract_text_too_short``)."""

    ic = cfg.ingest
    out = {c: row.get(c) for c in _COLS}
    if not row.get("warc_file") or row.get("warc_offset") is None:
        return out, "refetch_no_offset"
    failed = Counts()            # fetch_page counts its one reason here when it returns None
    page = fetch_page(row["warc_file"], int(row["warc_offset"]), ic, failed)
    if page is None:
        return out, next(iter(failed.as_dict()))
    res = extract_html(page.html, page.url, timeout_s=ic.extract_timeout_s, favor=ic.favor,
                       extractor=cfg.final.extractor)
    text = (getattr(res, "text", "") or "").strip()
    if not hasattr(res, "text"):
        return out, f"reextract_{res.reason}"
    if len(text) < ic.min_text_chars:
        return out, "reextract_text_too_short"
    out["text"], out["n_tokens"] = text, count_tokens(text)
    return out, "reextracted"


def needs_reextraction(cfg: Config) -> bool:
    return cfg.final.extractor not in ("ingest", cfg.ingest.extractor)


def reextract_df(spark, corpus_df, pages_df, cfg: Config, keep_outcome: bool = False):
    """The final corpus (FINAL_CORPUS) with its text from ``final.extractor`` (see module doc).

    With ``keep_outcome`` it has one more column, ``reextract_outcome``: ``reextracted`` or the
    reason the page kept its bulk text (:func:`outcome_counts` aggregates it)."""
    if not needs_reextraction(cfg):
        return corpus_df
    from pyspark.sql import functions as F

    from .arrow import map_rows
    from .classic import default_parallelism, persisted

    if {"warc_file", "warc_offset"} <= set(corpus_df.columns):      # the corpus carries its provenance
        located = corpus_df
    else:
        located = corpus_df.join(pages_df.select("page_id", "warc_file", "warc_offset"), "page_id", "left")
    ordered = (located.repartition(max(1, default_parallelism(spark) * 2), "warc_file")
               .sortWithinPartitions("warc_file", "warc_offset"))

    names = ordered.columns

    def task(it):
        for r in it:
            row, outcome = reextract_row(dict(zip(names, r)), cfg)
            yield tuple(row[c] for c in _COLS) + (outcome,)

    from pyspark import StorageLevel

    # persisted: the final stage reads the corpus for decontamination and again for the write
    noted = persisted(map_rows(ordered, task, schemas.FINAL_CORPUS + ", reextract_outcome STRING"),
                      StorageLevel.MEMORY_AND_DISK)
    return noted if keep_outcome else noted.select(*[F.col(c) for c in _COLS])


def outcome_counts(noted_df) -> dict:
    """``{outcome: pages}`` of a :func:`reextract_df` result kept with its outcome column (one
    small aggregate: a handful of distinct outcomes reach the driver)."""
    return {r[0]: int(r[1]) for r in noted_df.groupBy("reextract_outcome").count().collect()}
