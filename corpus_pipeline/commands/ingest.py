"""`corpus-pipeline ingest` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["ingest: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("ingest is not implemented yet")
