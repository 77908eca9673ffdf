"""The schema of every table at a stage boundary, in one place.

Schemas are written as Spark DDL strings so this module needs no Spark; the
Spark layer turns them into ``StructType`` (``spark/io.py``) and the pure code
uses :func:`columns` to build rows in the right order.  Columns listed in
``docs/tables.md`` keep their names and meanings; extra columns are extensions.
"""
from __future__ import annotations

# RUN/pages: one row per deduplicated page (ingest output, reused by every iteration).  The domain
# profile names one column: whether the page's HTML carries the domain's markup (maths:
# has_math_markup; profiles/).  PAGES is the maths profile's table.
def pages(markup_column: str = "has_math_markup") -> str:
    return ("page_id STRING, url STRING, host STRING, path STRING, title STRING, text STRING, "
            f"n_tokens BIGINT, warc_file STRING, warc_offset BIGINT, {markup_column} BOOLEAN, "
            "math_kinds STRING, fetched_at STRING, lang STRING, extractor STRING")


# Ingest's intermediate rows (before dedup): a page plus what dedup needs.
def extracted(markup_column: str = "has_math_markup") -> str:
    return pages(markup_column) + ", norm_url STRING, text_hash STRING"


PAGES = pages()
EXTRACTED = extracted()
# what every profile's pages table has (readers that need no markup column read this)
PAGES_COMMON = ", ".join(c for c in PAGES.split(", ") if not c.startswith("has_math_markup "))

# Counted skips and drops: stage, reason, source file, count.  Every stage that
# drops records writes one of these next to its output.
SKIPS = "stage STRING, reason STRING, source STRING, count BIGINT"

# Near-dedup sidecar: which page was removed in favour of which survivor.
DUPLICATES = "page_id STRING, kept_page_id STRING, kind STRING, similarity DOUBLE"

# RUN/ingest/{url,exact,near}_dedup: the rows one dedup step removed (warc_file and
# warc_offset name the removed record: before URL dedup a page_id is not unique).
DEDUP_REMOVED = DUPLICATES + ", warc_file STRING, warc_offset BIGINT"

# RUN/iter=NNN/seed: the positives an iteration trains on.  text is an
# extension (seed-corpus documents have no page to join to).
SEED = "seed_id STRING, page_id STRING, source STRING, added_in INT, text STRING"

# RUN/prepared: every page's text as the classifier plugin reads it (its own preparation), once per run
PREPARED = "page_id STRING, line STRING"

# RUN/iter=NNN/scores
SCORES = "page_id STRING, score DOUBLE"

# RUN/iter=NNN/collected: only pages the classifier selected
COLLECTED = "page_id STRING, score DOUBLE, n_tokens BIGINT"

# RUN/iter=NNN/domains
DOMAINS = "host STRING, pages BIGINT, collected BIGINT, fraction DOUBLE, flagged BOOLEAN"

# RUN/iter=NNN/annotations/prefixes: per flagged domain, per URL path prefix
# (markup_*: pages with maths markup; hist_*: JSON list of page counts per score tenth, 0-0.1 .. 0.9-1;
#  collected and uncollected apart: the evidence of a proposal)
PREFIXES = (
    "host STRING, prefix STRING, depth INT, pages BIGINT, collected BIGINT, fraction DOUBLE, "
    "examples STRING, host_pages BIGINT, host_collected BIGINT, markup_collected BIGINT, "
    "markup_uncollected BIGINT, hist_collected STRING, hist_uncollected STRING"
)

# RUN/final/corpus, with provenance: the page's title, language, fetch time and where in which WARC
# file its response record starts (columns added at the end; the contract's names)
FINAL_CORPUS = (
    "page_id STRING, url STRING, host STRING, text STRING, score DOUBLE, first_iteration INT, "
    "n_tokens BIGINT, title STRING, lang STRING, fetched_at STRING, warc_file STRING, warc_offset BIGINT"
)

# RUN/final/contamination
# (evidence: the page's tokens of the matched spans; removed_text: the lines that match removed, or for a
# page removed by a short question the lines that hold it; both cut to a few thousand characters)
CONTAMINATION = ("page_id STRING, benchmark STRING, item_id STRING, action STRING, reason STRING, "
                 "evidence STRING, removed_text STRING")


# RUN/final/canaries: one row per planted copy (corpus_pipeline/canaries.py); the corpus is never touched
CANARIES = ("kind STRING, page_id STRING, benchmark STRING, item_id STRING, caught BOOLEAN, page_removed BOOLEAN, "
            "rule STRING, planted_share_removed DOUBLE, own_lines_removed INT")


def columns(ddl: str) -> list[str]:
    """Column names of a DDL schema, in order."""
    return [part.strip().split()[0] for part in _split_top(ddl)]


def types(ddl: str) -> dict[str, str]:
    return {p.strip().split()[0]: p.strip().split()[1].upper() for p in _split_top(ddl)}


def _split_top(ddl: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in ddl:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def row(ddl: str, values: dict) -> tuple:
    """A tuple in schema order from a dict (missing keys are None)."""
    return tuple(values.get(c) for c in columns(ddl))
