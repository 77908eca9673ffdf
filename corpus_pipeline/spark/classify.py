"""Spark layer of the maths classifier: train on the driver, score on executors, select.

* :func:`train_iteration`: seed positives (+ their page text) and an equal number of
  negatives sampled deterministically from the pages that are not seeds, brought to the
  driver (seed-sized), trained with :func:`corpus_pipeline.classify.train_and_evaluate`;
  ``model.bin`` and ``metrics.json`` written to ``model_dir``.
* :func:`score_pages`: ``model.bin`` shipped to the executors, loaded once per executor
  Python process, pages scored in batches inside ``mapPartitions`` -> ``schemas.SCORES``.
* :func:`select_pages`: by threshold, or exactly by a token budget (absolute or a fraction
  of all tokens) in (score desc, page_id asc) order -> ``schemas.COLLECTED``.
"""
from __future__ import annotations

import hashlib
import os
import time
from typing import Optional

from .. import classify as C
from .. import fs as fsmod
from .. import schemas
from ..config import ClassifierConfig, SelectConfig
from .io import struct

# score buckets used to find the page where a token budget runs out (see select_pages)
BUDGET_BUCKETS = 1 << 16


# ---------------------------------------------------------------- training
def training_texts(spark, pages_df, seed_df, cfg: ClassifierConfig, random_seed: int,
                   exclude_df=None) -> tuple[list[str], list[str]]:
    """(positives, negatives) on the driver.

    Positives: every seed row's text (for page seeds with no text of their own, the text
    of their page), sorted by seed_id.  Negatives: ``round(n_pos * negatives_per_positive)``
    pages that are not seeds and have text, the ones with the smallest
    ``xxhash64(page_id, random_seed)`` (page_id breaks ties): a deterministic sample.
    Pages in ``exclude_df`` (the loop passes every page an earlier iteration collected)
    and, with ``cfg.negatives_exclude_math_markup``, pages whose HTML carried maths
    markup are never drawn as negatives.
    """
    from pyspark.sql import functions as F

    pages = pages_df.select("page_id", F.col("text").alias("page_text"))
    seeds = seed_df.select("seed_id", "page_id", "text")
    pos_rows = (seeds.join(pages, on="page_id", how="left")
                .select("seed_id", F.coalesce(F.col("text"), F.col("page_text")).alias("t"))
                .where(F.col("t").isNotNull() & (F.length(F.trim(F.col("t"))) > 0))
                .collect())
    pos = [r["t"] for r in sorted(pos_rows, key=lambda r: r["seed_id"])]
    n_neg = int(round(len(pos) * cfg.negatives_per_positive))
    seed_pages = seeds.where(F.col("page_id").isNotNull()).select("page_id").distinct()
    candidates = pages_df
    if cfg.negatives_exclude_math_markup and "has_math_markup" in pages_df.columns:
        candidates = candidates.where(~F.coalesce(F.col("has_math_markup"), F.lit(False)))
    candidates = candidates.select("page_id", F.col("text").alias("page_text"))
    if exclude_df is not None:
        candidates = candidates.join(exclude_df.select("page_id").distinct(), on="page_id", how="left_anti")
    neg_rows = (candidates.where(F.col("page_text").isNotNull() & (F.length(F.trim(F.col("page_text"))) > 0))
                .join(seed_pages, on="page_id", how="left_anti")
                .withColumn("h", F.xxhash64(F.col("page_id"), F.lit(int(random_seed))))
                .orderBy("h", "page_id").limit(n_neg)
                .select("page_id", "page_text").collect()) if n_neg > 0 else []
    neg_rows = sorted(neg_rows, key=lambda r: r["page_id"])
    return pos, [r["page_text"] for r in neg_rows]


def train_iteration(spark, pages_df, seed_df, model_dir: str, cfg: ClassifierConfig,
                    random_seed: int, exclude_df=None) -> dict:
    """Train one iteration's classifier; writes ``model_dir/model.bin`` and
    ``model_dir/metrics.json`` and returns the metrics (held-out precision, recall, f1,
    pr_curve, counts, training time, model size)."""
    t0 = time.perf_counter()
    pos, neg = training_texts(spark, pages_df, seed_df, cfg, random_seed, exclude_df)
    collect_s = time.perf_counter() - t0
    if not pos:
        raise ValueError("the seed has no texts: nothing to train on")
    if not neg:
        raise ValueError("no non-seed pages with text to sample negatives from")
    metrics = C.train_and_evaluate(pos, neg, cfg, random_seed, model_dir=model_dir, spark=spark)
    metrics["seed_positives"] = len(pos)
    metrics["sampled_negatives"] = len(neg)
    metrics["collect_seconds"] = round(collect_s, 3)
    C.write_metrics(metrics, model_dir, spark)
    return metrics


# ---------------------------------------------------------------- scoring
def _ship_model(spark, model_dir: str, via_spark_files: Optional[bool] = None) -> tuple[str, str]:
    """('path', p): executors open the local path p directly (local master, local model);
    ('spark_file', name): the model was registered with SparkContext.addFile under a
    unique name and executors fetch it with SparkFiles.get(name) (any other case, or
    ``via_spark_files=True``)."""
    sc = spark.sparkContext
    uri = fsmod.join(model_dir, C.MODEL_FILE)
    if via_spark_files is None:
        via_spark_files = not (fsmod.is_local(model_dir) and sc.master.startswith("local"))
    if not via_spark_files:
        return "path", os.path.abspath(fsmod.local_path(uri))
    local = fsmod.local_copy(uri, spark) if not fsmod.is_local(uri) else os.path.abspath(fsmod.local_path(uri))
    # a unique file name: Spark refuses a second file of the same name from another path,
    # and every iteration's model is called model.bin
    name = "model-" + hashlib.sha1(f"{uri}\x1f{time.time_ns()}".encode()).hexdigest()[:16] + ".bin"
    d = os.path.join(os.path.dirname(local) if not fsmod.is_local(uri) else _tmpdir(), name[:-4])
    os.makedirs(d, exist_ok=True)
    link = os.path.join(d, name)
    try:
        os.link(local, link)                 # no copy of a 200 MB file when on the same filesystem
    except OSError:
        import shutil

        shutil.copyfile(local, link)
    sc.addFile(link)
    return "spark_file", name


def _tmpdir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="cp_model_")


def _score_partition(ship: tuple[str, str], cfg: ClassifierConfig):
    """mapPartitions function: (page_id, text) rows -> (page_id, score) rows."""
    kind, where = ship
    batch = cfg.score_batch_size

    def run(rows):
        path = where
        if kind == "spark_file":
            from pyspark import SparkFiles

            path = SparkFiles.get(where)
        model = C.load_model(path)          # once per executor Python process (cached)
        ids, texts = [], []
        for page_id, text in rows:
            ids.append(page_id)
            texts.append(text)
            if len(ids) >= batch:
                yield from zip(ids, C.predict_proba(model, texts, cfg))
                ids, texts = [], []
        if ids:
            yield from zip(ids, C.predict_proba(model, texts, cfg))

    return run


def score_pages(spark, pages_df, model_dir: str, cfg: ClassifierConfig, *,
                via_spark_files: Optional[bool] = None):
    """Every page's P(math) with ``model_dir/model.bin``: a DataFrame in ``schemas.SCORES``.

    The model reaches the executors as a local path (local master and local model folder)
    or through ``SparkContext.addFile`` (otherwise, or ``via_spark_files=True``); each
    executor Python process loads it once (:func:`corpus_pipeline.classify.load_model`)
    and scores ``cfg.score_batch_size`` pages per fastText call inside ``mapPartitions``."""
    ship = _ship_model(spark, model_dir, via_spark_files)
    rdd = pages_df.select("page_id", "text").rdd.mapPartitions(_score_partition(ship, cfg))
    # rows come out in schema order with the right types: no per-row verification pass
    return spark.createDataFrame(rdd, struct(schemas.SCORES), verifySchema=False)


# ---------------------------------------------------------------- selection
def select_pages(spark, scores_df, pages_df, cfg: SelectConfig):
    """The pages the classifier selects, in ``schemas.COLLECTED`` (page_id, score, n_tokens).

    * ``threshold``: score >= cfg.threshold.
    * ``tokens``: pages in (score desc, page_id asc) order while the running total of
      n_tokens stays within cfg.token_budget (the first page that would exceed it ends the
      selection; a null n_tokens counts 0).
    * ``fraction``: the same with budget = floor(token_fraction * all pages' tokens).

    Budget selection is exact and does not bring the corpus to the driver: tokens are
    summed per score bucket (2^16 buckets, a small table), the bucket where the budget
    runs out is found on the driver, and only that bucket's pages go through a window
    with a running sum.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    joined = (scores_df.select("page_id", "score")
              .join(pages_df.select("page_id", F.coalesce(F.col("n_tokens"), F.lit(0)).cast("bigint")
                                    .alias("n_tokens")), on="page_id", how="inner")
              .where(F.col("score").isNotNull()))
    cols = schemas.columns(schemas.COLLECTED)
    if cfg.mode == "threshold":
        return joined.where(F.col("score") >= F.lit(float(cfg.threshold))).select(*cols)

    if cfg.mode == "tokens":
        budget = int(cfg.token_budget)
    elif cfg.mode == "fraction":
        total = pages_df.select(F.sum(F.coalesce(F.col("n_tokens"), F.lit(0)))).first()[0] or 0
        budget = int(float(cfg.token_fraction) * int(total))
    else:
        raise ValueError(f"select.mode: unknown mode {cfg.mode!r}")

    bucket = F.least(F.floor(F.col("score") * BUDGET_BUCKETS), F.lit(BUDGET_BUCKETS)).cast("int")
    joined = joined.withColumn("bucket", bucket)
    per_bucket = (joined.groupBy("bucket").agg(F.sum("n_tokens").alias("tokens"))
                  .orderBy(F.desc("bucket")).collect())          # at most 2^16 + 1 small rows
    cut_bucket, remaining, acc = None, 0, 0
    for r in per_bucket:
        t = int(r["tokens"] or 0)
        if acc + t > budget:
            cut_bucket, remaining = int(r["bucket"]), budget - acc
            break
        acc += t
    if cut_bucket is None:                                       # everything fits
        return joined.select(*cols)
    above = joined.where(F.col("bucket") > cut_bucket)
    w = (Window.partitionBy("bucket").orderBy(F.desc("score"), F.asc("page_id"))
         .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    edge = (joined.where(F.col("bucket") == cut_bucket)
            .withColumn("cum", F.sum("n_tokens").over(w))
            .where(F.col("cum") <= F.lit(remaining)))
    return above.select(*cols).unionByName(edge.select(*cols))
