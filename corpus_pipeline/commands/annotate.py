"""`corpus-pipeline annotate` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["annotate: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("annotate is not implemented yet")
