"""`corpus-pipeline minicrawl` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["minicrawl: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("minicrawl is not implemented yet")
