"""`corpus-pipeline train` (not implemented yet)."""
from __future__ import annotations


def add_arguments(p) -> None:
    pass


def plan(args, cfg) -> list[str]:
    return ["train: not implemented yet"]


def run(args, cfg) -> int:
    raise NotImplementedError("train is not implemented yet")
