"""Ingest's Spark steps: extraction tasks over file groups, the staged table's page and counter rows,
and the anti-join the dedup stages' removals are applied with (each dedup rule's step is in its stage
folder, ``corpus_pipeline/stages/{url,exact,near}_dedup/step.py``).

The stages that use them (and commit their results) are in
:mod:`corpus_pipeline.pipeline.ingest`.
"""
from __future__ import annotations

import json
import time

from pyspark.sql import functions as F

from .. import fs as fsmod
from .. import schemas
from ..config import Config
from ..counters import Counts
from ..ingest import process_source
from ..profiles import for_config as profile_of
from .arrow import local_rows
from .classic import default_parallelism
from .io import rows_to_df, struct, write_table

STAGE = "ingest"
_COUNTER_COLS = ("c_stage", "c_reason", "c_source", "c_count")


def staged(markup_column: str = "has_math_markup") -> str:
    """DDL of the extraction batches: page rows (``kind = 'page'``) and counter rows (``'count'``)."""
    return ("kind STRING, " + schemas.extracted(markup_column) +
            ", c_stage STRING, c_reason STRING, c_source STRING, c_count BIGINT")


STAGED = staged()


def _task(cfg: Config):
    """The per-partition function: a partition holds lists of file references (one, in practice)."""
    ddl = schemas.extracted(profile_of(cfg).markup_column)
    n_cols = len(schemas.columns(ddl))

    def run(groups):
        for group in groups:
            for ref in group:
                counts = Counts(STAGE, ref)
                c0 = time.process_time()
                for row in process_source(ref, cfg, counts):
                    yield ("page",) + schemas.row(ddl, row) + (None, None, None, None)
                counts.add("cpu_ms", int(1000 * (time.process_time() - c0)))
                for c_stage, reason, source, n in counts.rows():
                    yield ("count",) + (None,) * n_cols + (c_stage, reason, source, n)
    return run


def _chunks(refs: list[str], n: int) -> list[list[str]]:
    return [refs[i:i + n] for i in range(0, len(refs), n)]


def extract_to_staging(spark, refs: list[str], cfg: Config, path: str) -> dict:
    """Run process_source over every file (one task per group) and write the staging table; the
    counters of what was written, summed per reason.

    The totals are an observed metric of the write's own job (every counter row collected as it is
    written), not a second job reading the table back; the write is the job's result stage, whose
    metrics Spark takes once per partition from the successful attempt, so a retried task does
    not count twice (the rows it wrote are the committed ones)."""
    from pyspark.sql import Observation

    groups = _chunks(refs, cfg.ingest.files_per_task)
    # one partition (one task) per group, as parallelize(groups, len(groups)) cut them
    df = local_rows(spark, groups, staged(profile_of(cfg).markup_column), len(groups),
                    fn=_task(cfg))
    obs = Observation("extract_counters")
    counter = F.when(F.col("kind") == "count", F.struct(F.col("c_reason").alias("r"), F.col("c_count").alias("n")))
    # as one JSON string: pyspark 3.5's Observation converts scalars only (a list arrives as a JavaObject)
    write_table(df.observe(obs, F.to_json(F.collect_list(counter)).alias("c")), path)
    return sum_counters((r["r"], r["n"]) for r in json.loads(obs.get.get("c") or "[]"))


def sum_counters(pairs) -> dict:
    """``{reason: total}`` of (reason, count) pairs."""
    out: dict = {}
    for reason, n in pairs:
        out[reason] = out.get(reason, 0) + int(n or 0)
    return out


def empty(spark, ddl: str):
    return rows_to_df(spark, [], ddl)


def files_per_commit(spark, cfg: Config) -> int:
    """Files per committed extraction batch: the setting, or two task waves of the cluster."""
    if cfg.ingest.files_per_commit:
        return cfg.ingest.files_per_commit
    return 2 * max(1, default_parallelism(spark)) * cfg.ingest.files_per_task


def read_batches(spark, paths: list[str], ddl: str = STAGED):
    """The extraction batches' staged rows (pages and counters) as one table."""
    return spark.read.schema(struct(ddl)).parquet(*[fsmod.to_spark_uri(p) for p in paths])


def without_pages(pages, removed):
    """``pages`` less the rows whose page_id is in ``removed`` (an anti-join)."""
    return pages.join(removed.select("page_id"), "page_id", "left_anti")


def page_rows(staged):
    """The page rows of the staged extraction table."""
    return staged.where(F.col("kind") == "page").select(
        *[c for c in staged.columns if c != "kind" and c not in _COUNTER_COLS])


def counter_totals(staged) -> dict:
    """Every counter of the staged table summed (one aggregate; only the totals reach the driver)."""
    return {r["c_reason"]: int(r["n"]) for r in
            staged.where(F.col("kind") == "count").groupBy("c_reason").agg(F.sum("c_count").alias("n")).collect()}


def skip_rows(staged, stat_keys, lang_prefix: str):
    """The skip counters of the staged table as SKIPS rows (statistics and languages left out)."""
    return (staged.where((F.col("kind") == "count") & ~F.col("c_reason").isin(*stat_keys)
                         & ~F.col("c_reason").startswith(lang_prefix))
            .select(F.col("c_stage").alias("stage"), F.col("c_reason").alias("reason"),
                    F.col("c_source").alias("source"), F.col("c_count").alias("count"))
            .coalesce(1))
