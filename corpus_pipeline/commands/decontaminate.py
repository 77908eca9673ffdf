"""`corpus-pipeline decontaminate` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["decontaminate: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("decontaminate is not implemented yet")
