"""`corpus-pipeline run` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["run: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("run is not implemented yet")
