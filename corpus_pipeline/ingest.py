"""The ingest stage's pure per-source pipeline (no Spark).

``process_source(ref, cfg, counts)`` reads one WARC file (local or S3), keeps
HTML responses (:mod:`warc`), extracts title and text with maths kept
(:func:`extract.extract_html` with the extractor named by ``ingest.extractor``
and its per-page time limit), drops texts
shorter than ``ingest.min_text_chars`` and yields rows of
``schemas.EXTRACTED``.  Every record dropped on the way is counted in
``counts`` under a named reason; :data:`STAT_KEYS` and the per-language
counts (``lang:<code>``, the language from :mod:`lang`) are statistics, not skips.
"""
from __future__ import annotations

from typing import Iterator

from . import profiles, sources
from .config import Config
from .counters import LANG_PREFIX, STAT_KEYS, Counts, is_stat  # noqa: F401 - STAT_KEYS, LANG_PREFIX: re-exported
from .noinput import FILE_REASONS, SHOWN_FILES, file_reason, no_input_message  # noqa: F401 - re-exported
from .dedup.exact import text_hash
from .dedup.url import host_and_path, normalize_url, page_id
from .extract import extract_html
from .lang import detect_lang
from .text import count_tokens

# Counters that are statistics rather than skip reasons: counters.STAT_KEYS, counters.is_stat


def split_totals(totals: dict) -> tuple[dict, dict, dict]:
    """Summed counters -> (STAT_KEYS statistics, skip reasons, pages per language)."""
    stats = {k: int(totals.get(k, 0)) for k in STAT_KEYS}
    skips = {k: int(v) for k, v in sorted(totals.items()) if not is_stat(k)}
    langs = {k[len(LANG_PREFIX):]: int(v) for k, v in sorted(totals.items()) if k.startswith(LANG_PREFIX)}
    return stats, skips, langs


def no_page_message(n_files: int, totals: dict) -> str:
    """The one line of a run whose inputs were read but kept no page: the records' skips by reason."""
    skips = {k: int(v) for k, v in sorted(totals.items()) if not is_stat(k) and v}
    return (f"no page to keep: the {n_files} input file(s) gave {int(totals.get('records', 0))} record(s) and "
            f"none is an HTML page with enough text ("
            + (", ".join(f"{k}={v}" for k, v in skips.items()) or "no records") + ")")


def page_row(page, extracted, extractor: str = "", profile=None) -> dict:
    """One EXTRACTED row from a WarcPage and the extractor's result (``extractor``: which one made it);
    ``profile`` (default: maths) names the markup column and decides it from the page."""
    profile = profile or profiles.get()
    url = page.url
    host, path = host_and_path(url)
    text = extracted.text
    kinds = sorted(set(getattr(extracted, "math_kinds", None) or []))
    return {
        "page_id": page_id(url),
        "url": url,
        "host": host,
        "path": path,
        "title": extracted.title or "",
        "text": text,
        "n_tokens": count_tokens(text),
        "warc_file": page.warc_file,
        "warc_offset": page.warc_offset,
        profile.markup_column: bool(profile.markup(page.html, extracted)),
        "math_kinds": ",".join(kinds),
        "fetched_at": page.fetched_at,
        "lang": getattr(extracted, "lang", "") or detect_lang(text),
        "extractor": extractor,
        "norm_url": normalize_url(url),
        "text_hash": text_hash(text),
    }


def process_source(ref: str, cfg: Config, counts: Counts) -> Iterator[dict]:
    """Rows of ``schemas.EXTRACTED`` for the kept pages of one WARC file.

    Never raises on damaged data or a failing file (see :func:`warc.read_file`);
    extractor skips count their own reason (``extract_timeout``, ...), short texts
    count ``text_too_short``, pages without a usable URL ``no_target_uri``.  A page
    whose bulk text is empty or too short is extracted again with the fallback
    extractor (``ingest.fallback_extractor``, in its fast mode: trafilatura's
    ``fast=True`` rescued the same 15 of 15 real pages at half the cost): kept when
    that one has the text (counted ``bulk_fallback``), else it keeps the bulk
    extractor's reason.
    """

    ic = cfg.ingest
    fallback = ic.fallback()
    profile = profiles.for_config(cfg)

    def extract(page, name, favor):
        try:
            res = extract_html(page.html, page.url, timeout_s=ic.extract_timeout_s, favor=favor, extractor=name)
        except Exception:  # noqa: BLE001 - the extractor should not raise; never let one page stop a file
            return None, "extract_error"
        if not hasattr(res, "text"):
            return None, getattr(res, "reason", None) or "extract_skipped"
        text = (res.text or "").strip()
        if len(text) < ic.min_text_chars:
            return None, "text_too_short"
        res.text = text
        return res, None

    for page in sources.iter_pages(ref, ic, counts):
        if not page.url:
            counts.add("no_target_uri")
            continue
        res, reason = extract(page, ic.extractor, ic.favor)
        used = ic.extractor
        if res is None and fallback and reason in ("extract_empty", "text_too_short"):
            res, _ = extract(page, fallback, "fast")     # the final corpus is re-extracted in full
            if res is not None:
                used = fallback
                counts.add("bulk_fallback")
        if res is None:
            counts.add(reason)
            continue
        counts.add("pages_extracted")
        row = page_row(page, res, used, profile)
        counts.add(LANG_PREFIX + row["lang"])
        yield row

