"""The ``near_dedup`` stage: the pages MinHash finds near-duplicate of a longer one, stored as the rows
it removes (``RUN/ingest/near_dedup``), from what the URL and exact dedup stages kept.

Its DataFrame step is :func:`.step.near_removals`; its pure rules (normalisation, shingles, signatures,
band keys, the survivor) are :mod:`.rules`.  Spark's checkpoints of the connected components
(``spark.checkpoint_dir``, by default ``RUN/_checkpoints/ingest``) are deleted once the removals are
committed: the committed table no longer reads them.
"""
from __future__ import annotations

from ...pipeline.ingest import Dedup
from . import step

KEYS = ("dedup.near", "dedup.shingle_size", "dedup.bands", "dedup.rows", "dedup.minhash_seed",
        "dedup.verify_jaccard", "dedup.verify_with", "dedup.max_iterations_cc", "dedup.sub_buckets",
        "dedup.rescue_rounds")
CHECKPOINTS = "_checkpoints"      # RUN/_checkpoints/ingest, unless spark.checkpoint_dir names a folder


class NearDedup(Dedup):
    name, path, kind = "near_dedup", "ingest/near_dedup", "near"
    keys = KEYS
    about = ("MinHash over word 5-grams, 14 bands x 8 rows, verified by Jaccard >= 0.7, connected components; "
             "the longest text of each cluster survives")

    def removals(self, pages, ctx):
        counts, dups, docs = step.near_removals(ctx.spark, pages, ctx.cfg, checkpoint_dir(ctx), ctx.say)
        ctx.memo.setdefault("unpersist", []).append(docs)
        return {"near_dedup": counts}, dups

    def done(self, ctx, result) -> None:
        for df in ctx.memo.pop("unpersist", []):
            df.unpersist()
        remove_checkpoints(ctx)


def checkpoint_dir(ctx) -> str:
    return ctx.cfg.spark.checkpoint_dir or ctx.run.path(CHECKPOINTS, "ingest")


def remove_checkpoints(ctx) -> None:
    """The run folder's own checkpoints, once nothing reads them (a folder the user named is left)."""
    fs, ckpt = ctx.run.fs, checkpoint_dir(ctx)
    if ctx.cfg.spark.checkpoint_dir is None and fs.exists(ckpt):
        fs.delete(ckpt)
    parent = ctx.run.path(CHECKPOINTS)
    if fs.exists(parent) and not fs.listdir(parent):
        fs.delete(parent)
