"""`corpus-pipeline fetch-benchmarks` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["fetch-benchmarks: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("fetch-benchmarks is not implemented yet")
