"""`corpus-pipeline submit` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["submit: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("submit is not implemented yet")
