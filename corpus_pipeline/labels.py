"""Ground-truth labels (``labels.jsonl``), used only to measure (pure).

One ``{"url": ..., "label": ...}`` per line; ``url`` is the WARC-Target-URI as
written in the WARC without a surrounding ``<...>``.  ``math`` and
``non-math`` count in metrics; any other label is kept but ignored by them.
"""
from __future__ import annotations

import gzip
import json
from typing import Iterator

from .dedup.url import strip_wrapper
from .errors import InputFileError

METRIC_LABELS = ("math", "non-math")


def iter_labels(path: str) -> Iterator[tuple[str, str]]:
    """(url, label) pairs; a bad line raises InputFileError naming file and line."""
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        f = opener(path, "rt", encoding="utf-8")
    except OSError as e:
        raise InputFileError(path, f"cannot open labels file: {e}") from None
    seen: set[str] = set()
    with f:
        try:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputFileError(path, f"not a JSON object: {e.msg}", n) from None
                if not isinstance(obj, dict) or not isinstance(obj.get("url"), str) \
                        or not isinstance(obj.get("label"), str):
                    raise InputFileError(path, 'expected {"url": string, "label": string}', n)
                url = strip_wrapper(obj["url"])
                if url in seen:
                    raise InputFileError(path, f"duplicate url {url!r}", n)
                seen.add(url)
                yield url, obj["label"]
        except UnicodeDecodeError as e:
            raise InputFileError(path, f"not UTF-8 text: {e}") from None


def load_labels(path: str) -> list[tuple[str, str]]:
    rows = list(iter_labels(path))
    if not rows:
        raise InputFileError(path, "no labels in file")
    return rows


def precision_recall(collected_labels: list[str], math_total: int) -> tuple[float | None, float | None]:
    """True precision among labeled collected pages, and recall against all math pages."""
    labeled = [x for x in collected_labels if x in METRIC_LABELS]
    math_hit = sum(1 for x in labeled if x == "math")
    precision = (math_hit / len(labeled)) if labeled else None
    recall = (math_hit / math_total) if math_total else None
    return precision, recall
