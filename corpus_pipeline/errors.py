"""Errors with a meaning for the exit code (see the contract)."""
from __future__ import annotations

import re


class UsageError(ValueError):
    """Bad usage or an input file that is not what it claims to be: exit 2.

    The message names the file, key or line.
    """


class InputFileError(UsageError):
    """A labels, marked-path, benchmark, seed or config file that cannot be used."""

    def __init__(self, path, message: str, line: int | None = None):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.line = line


class NoInputError(UsageError):
    """No input yielded a record (every file missing, empty, not a WARC, unreadable) or a page
    (every record skipped): exit 2, with one line naming the files and why (was exit 1 before
    0.x: see docs/bad-input.md)."""


def shown_master(master) -> str:
    """A Spark master or Spark Connect URL as messages and logs show it: ``;token=...`` masked."""
    return re.sub(r"(;\s*token=)[^;]*", r"\1***", str(master))
