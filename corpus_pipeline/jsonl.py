"""Reading JSONL user files (labels, seeds, inputs of train/score) with errors that
name the file and line (pure)."""
from __future__ import annotations

import gzip
import json
import os
from typing import Iterator

from .errors import InputFileError


def iter_jsonl(path: str) -> Iterator[tuple[int, dict]]:
    """(line number, record) of a JSONL/JSONL.gz file; blank lines are skipped."""
    if not os.path.exists(path):
        raise InputFileError(path, "file not found")
    opener = gzip.open if str(path).lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputFileError(path, f"not valid JSON: {e.msg}", n) from None
                if not isinstance(rec, dict):
                    raise InputFileError(path, "each line must be a JSON object", n)
                yield n, rec
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise InputFileError(path, f"cannot be read: {e}") from None
