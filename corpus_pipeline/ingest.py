"""The ingest stage's pure per-source pipeline (no Spark).

``process_source(ref, cfg, counts)`` reads one WARC file (local or S3), keeps
HTML responses (:mod:`warc`), extracts title and text with maths kept
(:func:`extract.extract_html`, with its per-page time limit), drops texts
shorter than ``ingest.min_text_chars`` and yields rows of
``schemas.EXTRACTED``.  Every record dropped on the way is counted in
``counts`` under a named reason; :data:`STAT_KEYS` are statistics, not skips.
"""
from __future__ import annotations

import re
from typing import Iterator

from . import schemas, sources
from .config import Config
from .counters import Counts
from .dedup.exact import text_hash
from .dedup.url import host_and_path, normalize_url, page_id
from .text import count_tokens

# Counters that are statistics rather than skip reasons (kept out of RUN/pages_skips).
STAT_KEYS = ("files", "files_read", "file_retries", "records", "pages_extracted", "cpu_ms", "http_retries")

_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile("[\u3040-\u30ff]")
_HANGUL = re.compile("[\uac00-\ud7af]")
_CYR = re.compile("[\u0400-\u04ff]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_WORD = re.compile(r"[a-zà-öø-ÿ]+")
_STOP = {
    "en": {"the", "and", "of", "to", "is", "in", "that", "for", "it", "with", "as", "are", "this", "be"},
    "de": {"der", "die", "und", "das", "ist", "nicht", "mit", "den", "ein", "eine", "zu", "sich", "auf", "für"},
    "fr": {"le", "la", "les", "et", "des", "est", "une", "dans", "du", "que", "pour", "pas", "sur", "au"},
    "es": {"el", "los", "las", "y", "que", "del", "por", "una", "con", "para", "es", "se", "lo", "como"},
}


def guess_lang(text: str) -> str:
    """A cheap script + stop-word guess: zh, ja, ko, ru, en, de, fr, es, or und."""
    sample = (text or "")[:6000]
    letters = len(_LETTER.findall(sample))
    if letters == 0:
        return "und"
    han, kana, hangul = len(_HAN.findall(sample)), len(_KANA.findall(sample)), len(_HANGUL.findall(sample))
    cjk = han + kana + hangul
    if cjk >= 0.3 * letters:
        if kana >= 0.1 * cjk:
            return "ja"
        if hangul > han:
            return "ko"
        return "zh"
    if len(_CYR.findall(sample)) >= 0.5 * letters:
        return "ru"
    words = _WORD.findall(sample.lower())
    if not words:
        return "und"
    hits = {lang: sum(1 for w in words if w in stop) for lang, stop in _STOP.items()}
    best = max(hits, key=lambda k: (hits[k], k == "en"))
    return best if hits[best] > 0 else "en"


def page_row(page, extracted) -> dict:
    """One EXTRACTED row from a WarcPage and the extractor's result."""
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
        "has_math_markup": bool(getattr(extracted, "has_math_markup", False)),
        "math_kinds": ",".join(kinds),
        "fetched_at": page.fetched_at,
        "lang": guess_lang(text),
        "norm_url": normalize_url(url),
        "text_hash": text_hash(text),
    }


def process_source(ref: str, cfg: Config, counts: Counts) -> Iterator[dict]:
    """Rows of ``schemas.EXTRACTED`` for the kept pages of one WARC file.

    Never raises on damaged data or a failing file (see :func:`warc.read_file`);
    extractor skips count their own reason (``extract_timeout``, ...), short texts
    count ``text_too_short``, pages without a usable URL ``no_target_uri``.
    """
    from .extract import extract_html

    ic = cfg.ingest
    for page in sources.iter_pages(ref, ic, counts):
        if not page.url:
            counts.add("no_target_uri")
            continue
        try:
            res = extract_html(page.html, page.url, timeout_s=ic.extract_timeout_s, favor=ic.favor)
        except Exception:  # noqa: BLE001 - the extractor should not raise; never let one page stop a file
            counts.add("extract_error")
            continue
        if not hasattr(res, "text"):
            counts.add(getattr(res, "reason", None) or "extract_skipped")
            continue
        text = (res.text or "").strip()
        if len(text) < ic.min_text_chars:
            counts.add("text_too_short")
            continue
        res.text = text
        counts.add("pages_extracted")
        yield page_row(page, res)


EXTRACTED_COLUMNS = schemas.columns(schemas.EXTRACTED)
