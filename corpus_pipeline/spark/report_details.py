"""The parts of the report that need the tables, not only the commit markers (Spark):
sample pages per iteration, the seed growth each mark caused, near-duplicate examples,
decontamination removals with their benchmark item, pages per language.

Human-scale: a few rows per section reach the driver (``spark/inspect.py``). Called by
:func:`corpus_pipeline.report.summary.build_summary` when a session is at hand.
"""
from __future__ import annotations

from .. import schemas

SAMPLES = 3
EXAMPLES = 5


def _mark_growth(spark, run, i: int) -> dict:
    """``{"<host><prefix>": pages}``: seed rows of iteration i+1 that the path step added for each mark."""
    from pyspark.sql import functions as F

    from .io import read_table

    nxt = run.location("seed", i + 1)
    if not run.is_committed(nxt):
        return {}
    seed = read_table(spark, run.data(nxt), schemas.SEED)
    rows = (seed.where((F.col("added_in") == i + 1) & F.col("source").startswith("path:"))
            .groupBy("source").count().collect())
    return {r["source"][len("path:"):]: int(r["count"]) for r in rows}


def _languages(spark, path: str, fmt: str = "parquet") -> dict:
    from pyspark.sql import functions as F

    from .iteration import read_final_corpus
    from .io import read_table

    df = read_final_corpus(spark, path, fmt) if fmt != "pages" else read_table(spark, path, schemas.PAGES_COMMON)
    if "lang" not in df.columns:
        return {}
    return {(r["l"] or "unknown"): int(r["n"]) for r in
            df.groupBy(F.col("lang").alias("l")).agg(F.count("*").alias("n")).collect()}


def collect_details(spark, run, cfg=None) -> dict:
    """Everything the readable report shows beyond the markers' counts."""
    from . import inspect as spark_inspect

    out: dict = {"iterations": {}}
    if not run.committed("pages"):
        return out
    for i in run.iterations():
        col = run.location("collected", i)
        if not run.is_committed(col):
            continue
        thr = ((run.marker(col) or {}).get("config", {}).get("select") or {}).get("threshold")
        s = spark_inspect.collected_samples(spark, run, i, thr, SAMPLES)
        out["iterations"][str(i)] = {"near_threshold": s["near_threshold"], "far_above": s["far_above"],
                                     "threshold": thr, "mark_growth": _mark_growth(spark, run, i)}
    out["near_duplicates"] = spark_inspect.near_duplicates(spark, run, EXAMPLES)
    out["contamination"] = spark_inspect.contamination(spark, run, 2 * EXAMPLES, spark_inspect.benchmark_items(run))
    langs = {"pages": _languages(spark, run.stage_data("pages"), "pages")}
    fin = run.location("corpus")
    if run.is_committed(fin):
        fmt = ((run.marker(fin) or {}).get("config") or {}).get("format", "parquet")
        langs["final"] = _languages(spark, run.data(fin), fmt)
    out["languages"] = langs
    return out
