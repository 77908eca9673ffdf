"""HTML -> title and main text, keeping maths (pure).

INTERFACE (stable; the ingest stage calls exactly this):

    extract_html(html: str, url: str, *, timeout_s: float = 5.0, favor: str = "default")
        -> Extracted | Skip

Skip reasons are short snake_case strings counted by ingest
(e.g. "extract_timeout", "extract_empty", "extract_error").
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Extracted:
    title: str
    text: str
    has_math_markup: bool = False
    math_kinds: list = field(default_factory=list)   # e.g. ["mathjax", "mathml"]


@dataclass
class Skip:
    reason: str
    detail: str = ""


def extract_html(html: str, url: str, *, timeout_s: float = 5.0, favor: str = "default"):
    """Placeholder until the maths-preserving extractor lands: plain trafilatura."""
    import trafilatura

    try:
        text = trafilatura.extract(html, url=url, include_comments=False)
    except Exception as e:  # noqa: BLE001
        return Skip("extract_error", str(e)[:200])
    if not text:
        return Skip("extract_empty")
    meta = trafilatura.extract_metadata(html)
    return Extracted(title=(meta.title if meta and meta.title else ""), text=text)
