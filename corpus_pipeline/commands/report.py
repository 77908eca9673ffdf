"""`corpus-pipeline report` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["report: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("report is not implemented yet")
