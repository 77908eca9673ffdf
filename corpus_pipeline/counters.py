"""Counting drop reasons without Spark.

Pure stage functions take a :class:`Counts` and call ``counts.add(reason)``.
In tests it is just a dict.  The Spark layer creates one per task and emits
its content as rows of the ``SKIPS`` table alongside the task's output, so
the numbers in reports come from committed data and a retried task cannot
count twice (unlike accumulators).
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator


class Counts:
    def __init__(self, stage: str = "", source: str = ""):
        self.stage = stage
        self.source = source
        self._c: Counter = Counter()

    def add(self, reason: str, n: int = 1) -> None:
        self._c[reason] += n

    def __getitem__(self, reason: str) -> int:
        return self._c.get(reason, 0)

    def as_dict(self) -> dict:
        return dict(self._c)

    def rows(self) -> Iterator[tuple]:
        """(stage, reason, source, count) rows in SKIPS schema order."""
        for reason, n in sorted(self._c.items()):
            yield (self.stage, reason, self.source, int(n))

    def merge(self, other: "Counts") -> "Counts":
        self._c.update(other._c)
        return self


def total(rows: Iterable[tuple]) -> dict:
    """Aggregate SKIPS rows into {reason: count}."""
    out: Counter = Counter()
    for _stage, reason, _source, n in rows:
        out[reason] += n
    return dict(out)


# Counters that are statistics rather than skip reasons (kept out of RUN/pages_skips).
STAT_KEYS = ("files", "files_read", "file_retries", "records", "pages_extracted", "cpu_ms", "http_retries",
             "bulk_fallback")

# Per-language counts of extracted pages (before dedup) are statistics too: "lang:en", "lang:zh", ...
LANG_PREFIX = "lang:"


def is_stat(key: str) -> bool:
    """True for counters that are statistics (STAT_KEYS, per-language counts), not skip reasons."""
    return key in STAT_KEYS or key.startswith(LANG_PREFIX)
