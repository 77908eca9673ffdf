"""Ground-truth labels (``labels.jsonl``), used only to measure (pure).

One ``{"url": ..., "label": ...}`` per line; ``url`` is the WARC-Target-URI as
written in the WARC without a surrounding ``<...>``.  The profile's label and its
``non-`` form (``math``, ``non-math``) count in metrics; any other label is kept but
ignored by them.
"""
from __future__ import annotations

from typing import Iterator

from .dedup.url import strip_wrapper
from .errors import InputFileError
from .jsonl import iter_jsonl



def iter_labels(path: str) -> Iterator[tuple[str, str]]:
    """(url, label) pairs; a bad line raises InputFileError naming file and line."""
    seen: set[str] = set()
    for n, obj in iter_jsonl(path):
        if not isinstance(obj.get("url"), str) or not isinstance(obj.get("label"), str):
            raise InputFileError(path, 'expected {"url": string, "label": string}', n)
        url = strip_wrapper(obj["url"])
        if url in seen:
            raise InputFileError(path, f"duplicate url {url!r}", n)
        seen.add(url)
        yield url, obj["label"]


def load_labels(path: str) -> list[tuple[str, str]]:
    rows = list(iter_labels(path))
    if not rows:
        raise InputFileError(path, "no labels in file")
    return rows


