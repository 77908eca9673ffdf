"""The one line a run answers when no input yielded a WARC record (pure: no Spark, no I/O).

Used before any JVM (``sources.precheck``, from the files' first bytes) and after extraction
(``pipeline/ingest.py``, from the per-file skip counts); see docs/bad-input.md.
"""
from __future__ import annotations

from .counters import is_stat
from .warc import WHY


# File-level reasons, in the order one is named for a file that gave no record.
FILE_REASONS = ("file_not_found", "empty_file", "not_warc", "file_failed", "truncated_record", "corrupt_gzip",
                "corrupt_record")
SHOWN_FILES = 5             # files named in the one-line message; the rest counted


def file_reason(reasons: dict) -> str:
    """Why one file gave no record, from its skip counts: the first file-level reason it has,
    else its most frequent one."""
    for r in FILE_REASONS:
        if reasons.get(r):
            return r
    rest = {k: v for k, v in reasons.items() if not is_stat(k) and v}
    return max(sorted(rest), key=lambda k: rest[k]) if rest else "no_record"


def no_input_message(per_file: dict, n_files: int) -> str:
    """The one line of a run whose inputs gave no record: ``per_file`` maps each file to its skip
    counts; files are named (up to :data:`SHOWN_FILES`) with the reason, then counted by reason."""
    why = {f: file_reason(r) for f, r in per_file.items()}
    by_reason: dict = {}
    for f, r in why.items():
        by_reason[r] = by_reason.get(r, 0) + 1
    shown = [f"{f} ({r}: {WHY.get(r, r.replace('_', ' '))})" for f, r in list(why.items())[:SHOWN_FILES]]
    more = f" and {len(why) - SHOWN_FILES} more" if len(why) > SHOWN_FILES else ""
    counts = ", ".join(f"{k}={v}" for k, v in sorted(by_reason.items()))
    return (f"no input yielded a WARC record: none of the {n_files} input file(s) could be read ({counts}): "
            + "; ".join(shown) + more)
