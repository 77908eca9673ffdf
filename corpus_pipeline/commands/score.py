"""`corpus-pipeline score` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["score: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("score is not implemented yet")
