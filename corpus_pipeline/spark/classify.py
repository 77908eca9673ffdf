"""Spark layer of the maths classifier: train on the driver, score on executors, select.

* :func:`train_iteration`: seed positives (+ their page text) and an equal number of
  negatives sampled deterministically in Spark (capped), the training and held-out
  files written by the executors into the model folder, concatenated by streaming into
  one local file and trained from it (:func:`corpus_pipeline.classify.train_from_files`);
  ``model.bin`` and ``metrics.json`` written to ``model_dir``.
* :func:`score_pages`: ``model.bin`` shipped to the executors, loaded once per executor
  Python process, pages scored in batches inside ``mapPartitions`` -> ``schemas.SCORES``.
* :func:`select_pages`: by threshold, or exactly by a token budget (absolute or a fraction
  of all tokens) in (score desc, page_id asc) order -> ``schemas.COLLECTED``.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from functools import reduce
from typing import Optional

from .. import classify
from .. import fs as fsmod
from .. import schemas, scratch
from ..classifiers import for_config
from ..config import ClassifierConfig, SelectConfig
from ..lang import detect_lang
from ..seeds import load_background
from .arrow import map_rows
from .classic import persisted

# score buckets used to find the page where a token budget runs out (see select_pages)
BUDGET_BUCKETS = 1 << 12


# ---------------------------------------------------------------- training
def _nonempty(col):
    from pyspark.sql import functions as F

    return col.isNotNull() & (F.length(F.trim(col)) > 0)


def _union(dfs: list):
    """The rows of every DataFrame of ``dfs`` (same columns), one after the other."""

    return reduce(lambda a, b: a.unionByName(b), dfs)


def _seed_langs(spark, pos):
    """``pos`` (uid, text, page_lang) with ``lang``: the page's language, else detected from the text."""

    def run(rows):
        for uid, text, page_lang in rows:
            yield uid, text, page_lang or detect_lang(text or "")

    return map_rows(pos.select("uid", "text", "page_lang"), run, "uid STRING, text STRING, lang STRING")


def _count_by(df, col: str) -> dict:
    """{value: rows} of ``df`` per value of ``col`` (one small aggregate)."""
    from pyspark.sql import functions as F

    return {r[col]: int(r["n"]) for r in df.groupBy(col).agg(F.count(F.lit(1)).alias("n")).collect()}


def training_sets(spark, pages_df, seed_df, cfg: ClassifierConfig, random_seed: int,
                  exclude_seed_pages: bool = True, exclude_markup: Optional[bool] = None,
                  markup_column: str = "has_math_markup"):
    """(positives, negatives, counts): two DataFrames ``(uid, text)`` sampled in Spark.

    Positives: every seed row's text (for page seeds with no text of their own, the
    text of their page); when there are more than ``cfg.max_positives``, the ones with
    the smallest ``xxhash64(seed_id, random_seed)``.  Negatives:
    ``min(round(n_pos * negatives_per_positive), cfg.max_negatives)`` random crawl pages with
    text, the ones with the smallest ``xxhash64(page_id, random_seed)`` (page_id breaks ties).
    With ``cfg.negatives_by_language`` they are drawn per language: the crawl's pages in
    languages the positives do not hold keep their share of the crawl, and the rest is split
    over the positives' languages in the positives' proportions
    (:func:`corpus_pipeline.classify.negative_quotas`); where the crawl has too few pages of
    a language, the shipped background set of that language fills the gap
    (``cfg.background_negatives``, ``seeds/background/<lang>.jsonl.gz``; counted
    ``background_negatives``), and where even that is too few, the distinct pages are repeated
    to the quota (counted ``repeated_negatives``; :func:`corpus_pipeline.classify.negative_plan`).
    Policy (parameters, the loop decides): seed pages are never negatives
    (``exclude_seed_pages``), nor, with
    ``exclude_markup`` (default ``cfg.negatives_exclude_math_markup``), pages whose
    HTML carried the profile's markup (``markup_column``: maths markup, code blocks).  Both samples are exact and depend only on the rows,
    never on their partitioning (:func:`corpus_pipeline.spark.sample.smallest_k`).
    ``counts``: positives/negatives available and sampled (small ints), per language.
    """
    from pyspark.sql import functions as F

    from .sample import hash_key, smallest_k

    by_lang = bool(getattr(cfg, "negatives_by_language", False)) and "lang" in pages_df.columns
    page_cols = [F.col("text").alias("page_text")] + ([F.col("lang").alias("page_lang")] if by_lang else [])
    pages = pages_df.select("page_id", *page_cols)
    seeds = seed_df.select("seed_id", "page_id", "text")
    pos = (seeds.join(pages, on="page_id", how="left")
           .select(F.col("seed_id").alias("uid"), F.coalesce(F.col("text"), F.col("page_text")).alias("text"),
                   *([F.col("page_lang")] if by_lang else []))
           .where(_nonempty(F.col("text")))
           .withColumn("_k", hash_key(F.col("uid"), random_seed=random_seed)))
    pos_langs = None
    if by_lang:
        # languages first, counted per language in one aggregate that also gives the total: when
        # the seed is within max_positives (the usual case) nothing is sampled and no second count
        # is needed (the language of a row does not depend on which rows are kept)
        pos = persisted(_seed_langs(spark, pos).withColumn("_k", hash_key(F.col("uid"), random_seed=random_seed)))
        pos_langs = _count_by(pos, "lang")
        n_pos_all = sum(pos_langs.values())
    else:
        n_pos_all = pos.count()
    sampled = smallest_k(pos, "_k", "uid", cfg.max_positives, n_pos_all).drop("_k")
    n_pos = min(n_pos_all, cfg.max_positives)
    if by_lang and n_pos < n_pos_all:
        kept = persisted(sampled)
        pos_langs = _count_by(kept, "lang")
        pos.unpersist()
        pos = kept
    else:
        pos = sampled

    n_neg = min(int(round(n_pos * cfg.negatives_per_positive)), cfg.max_negatives)
    markup = cfg.negatives_exclude_math_markup if exclude_markup is None else exclude_markup
    candidates = pages_df
    if markup and markup_column in pages_df.columns:
        candidates = candidates.where(~F.coalesce(F.col(markup_column), F.lit(False)))
    candidates = candidates.select(F.col("page_id").alias("uid"), "text",
                                   *([F.coalesce(F.col("lang"), F.lit("und")).alias("lang")] if by_lang else []))
    candidates = candidates.where(_nonempty(F.col("text")))
    if exclude_seed_pages:
        seed_pages = seeds.where(F.col("page_id").isNotNull()).select(F.col("page_id").alias("uid")).distinct()
        candidates = candidates.join(seed_pages, on="uid", how="left_anti")
    # the same key as ever: xxhash64(page_id, seed), page_id breaks ties
    candidates = candidates.withColumn("_k", hash_key(F.col("uid"), random_seed=random_seed))
    counts = {"seed_positives_available": int(n_pos_all), "seed_positives": int(n_pos)}
    if not by_lang:
        n_cand = candidates.count() if n_neg > 0 else 0
        neg = smallest_k(candidates, "_k", "uid", n_neg, n_cand).drop("_k")
        counts.update({"negatives_available": int(n_cand), "sampled_negatives": int(min(n_neg, n_cand))})
        return pos.select("uid", "text"), neg, counts

    avail = _count_by(candidates, "lang")
    use_bg = bool(getattr(cfg, "background_negatives", True))

    bg_docs = {lang: (load_background(lang) if use_bg else []) for lang in pos_langs}
    plan = classify.negative_plan(pos_langs, avail, {k: len(v) for k, v in bg_docs.items()}, n_neg)
    parts, by, background, repeated = [], {}, 0, {}
    other = [lang for lang in avail if lang not in pos_langs]
    for lang, (n_crawl, n_bg, n_rep) in plan.items():
        sel = candidates.where(F.col("lang").isin(other)) if lang == classify.OTHER_LANGUAGES else \
            candidates.where(F.col("lang") == lang)
        have = sum(avail.get(x, 0) for x in other) if lang == classify.OTHER_LANGUAGES else avail.get(lang, 0)
        mine = [smallest_k(sel, "_k", "uid", n_crawl, have).select("uid", "text")] if n_crawl else []
        if n_bg:
            from .io import rows_to_df

            mine.append(rows_to_df(spark, [(f"bg:{lang}:{j}", t) for j, t in enumerate(bg_docs[lang][:n_bg])],
                                   "uid STRING, text STRING"))
            background += n_bg
        took = n_crawl + n_bg
        if n_rep:
            # too few distinct texts of the language: repeat them (whole copies, then the
            # hash-smallest rest) so that it keeps the positives' proportion (bench classifier_quality:
            # Chinese fold B precision 0.28 -> 0.50; classify.negative_plan has the measurements)
            reps = -(-(took + n_rep) // took) - 1
            extra = _union(mine).withColumn("_copy", F.explode(F.sequence(F.lit(1), F.lit(reps)))) \
                .select(F.concat(F.col("uid"), F.lit("#"), F.col("_copy").cast("string")).alias("uid"), "text")
            mine.append(smallest_k(extra.withColumn("_k", hash_key(F.col("uid"), random_seed=random_seed)),
                                   "_k", "uid", n_rep, reps * took).select("uid", "text"))
            repeated[lang] = n_rep
        parts += mine
        by[lang] = took + n_rep
    neg = _union(parts or [candidates.limit(0).select("uid", "text")])
    counts.update({"negatives_available": int(sum(avail.values())), "sampled_negatives": int(sum(by.values())),
                   "positives_by_language": dict(sorted(pos_langs.items())),
                   "available_by_language": dict(sorted(avail.items())),
                   "negatives_by_language": dict(sorted(by.items())), "background_negatives": int(background),
                   "repeated_negatives": dict(sorted(repeated.items()))})
    out = pos.select("uid", "text")
    return out, neg, counts


def _lines_partition(cfg: ClassifierConfig):
    """mapPartitions: (label, uid, text, holdout) -> (label, lid, copy, holdout, line) rows:
    a held-out document is one line prepared by the classifier plugin, a training document its
    ``document_lines``."""
    from .plugins import ship as ship_plugins

    clf = for_config(cfg)       # resolved here: a plugin's class travels with the task (spark.plugins)
    ship_plugins()

    def run(rows):
        for label, uid, text, holdout in rows:
            if holdout:
                yield label, uid, 0, True, clf.prepare(text, cfg)
            else:
                for j, piece in enumerate(clf.document_lines(text, cfg)):
                    yield label, f"{uid}\x1f{j}", 0, False, piece
    return run


LINES_DDL = "label STRING, lid STRING, copy INT, holdout BOOLEAN, line STRING"
TRAIN_LINES = "train_lines"       # folders of the model stage: the training file and held-out file as
HELDOUT_LINES = "heldout_lines"   # text part files, in reading order


def write_training_files(spark, pos_df, neg_df, cfg: ClassifierConfig, random_seed: int, out_dir: str,
                         label: str = classify.LABEL_MATH) -> dict:
    """Write the training file (``out_dir/train_lines``) and the held-out file
    (``out_dir/heldout_lines``) from the executors; returns the counts.

    A document is held out when a hash of (seed, label, text) falls under
    ``cfg.holdout_fraction`` (duplicates stay together).  Training documents become
    chunk lines (the classifier plugin's ``document_lines``); with
    ``cfg.balance_classes`` the smaller class's lines are repeated (whole copies, then
    the hash-smallest rest) to match the larger; lines are sorted by a hash of
    (seed, copy, line id), so the file is the same for the same documents however they
    are partitioned.  Lines are ``<label> <prepared text>`` (``label`` for the positives,
    ``__label__other`` for the negatives).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from .sample import smallest_k

    docs = (pos_df.select(F.lit(label).alias("label"), "uid", "text")
            .unionByName(neg_df.select(F.lit(classify.LABEL_OTHER).alias("label"), "uid", "text")))
    frac = float(cfg.holdout_fraction)
    ho = ((F.xxhash64(F.lit(int(random_seed)), F.lit("holdout"), F.col("label"), F.col("text")) / F.lit(2.0 ** 64)
           + F.lit(0.5)) < F.lit(frac)) if frac > 0 else F.lit(False)
    docs = docs.select("label", "uid", "text", ho.alias("holdout"))
    lines = map_rows(docs, _lines_partition(cfg), LINES_DDL)
    lines = persisted(lines, StorageLevel.MEMORY_AND_DISK)
    try:
        stats = {(r["label"], bool(r["holdout"])): (int(r["docs"]), int(r["lines"])) for r in
                 lines.groupBy("label", "holdout").agg(
                     F.sum(F.when(F.col("holdout") | F.col("lid").endswith("\x1f0"), 1).otherwise(0)).alias("docs"),
                     F.count(F.lit(1)).alias("lines")).collect()}          # at most 4 rows

        def get(label, holdout, i):
            return stats.get((label, holdout), (0, 0))[i]

        counts = {"train_positives": get(label, False, 0), "train_negatives": get(classify.LABEL_OTHER, False, 0),
                  "holdout_positives": get(label, True, 0), "holdout_negatives": get(classify.LABEL_OTHER, True, 0),
                  "train_lines_positive": get(label, False, 1),
                  "train_lines_negative": get(classify.LABEL_OTHER, False, 1)}
        n_math, n_other = counts["train_lines_positive"], counts["train_lines_negative"]
        if not n_math or not n_other:
            raise ValueError("training needs at least one non-empty positive and one non-empty negative text")
        train = lines.where(~F.col("holdout"))
        if getattr(cfg, "balance_classes", False) and n_math != n_other:
            small, big = (label, n_other) if n_math < n_other else (classify.LABEL_OTHER, n_math)
            n_small = min(n_math, n_other)
            reps, rest = divmod(big, n_small)
            s = train.where(F.col("label") == small)
            copies = s.withColumn("copy", F.explode(F.sequence(F.lit(0), F.lit(reps - 1))))
            extra = smallest_k(s.withColumn("_k", F.xxhash64(F.lit(int(random_seed)), F.lit("balance"),
                                                              F.col("lid"))),
                               "_k", "lid", rest, n_small).drop("_k").withColumn("copy", F.lit(reps))
            train = (train.where(F.col("label") != small).unionByName(copies.select(*train.columns))
                     .unionByName(extra.select(*train.columns)))
            counts["balance_copies"] = reps + (1 if rest else 0)
        order = F.xxhash64(F.lit(int(random_seed)), F.col("copy"), F.col("lid"))
        (train.withColumn("_o", order).orderBy("_o", "lid", "copy")
         .select(F.concat_ws(" ", "label", "line").alias("value"))
         .write.mode("overwrite").text(fsmod.to_spark_uri(fsmod.join(out_dir, TRAIN_LINES))))
        (lines.where(F.col("holdout")).orderBy("label", "lid")
         .select(F.concat_ws(" ", "label", "line").alias("value"))
         .write.mode("overwrite").text(fsmod.to_spark_uri(fsmod.join(out_dir, HELDOUT_LINES))))
        return counts
    finally:
        lines.unpersist()


def concat_parts(spark, folder: str, local_file: str) -> int:
    """Stream the ``part-*`` files of a Spark text output, in order, into one local
    file (bytes copied in 1 MB blocks; a remote part is fetched to a scratch file
    first).  Returns the bytes written."""


    fs = fsmod.get_fs(folder, spark)
    parts = [n for n in fs.listdir(folder) if n.startswith("part-")]
    n = 0
    with open(local_file, "wb") as out:
        for name in parts:
            uri = fsmod.join(folder, name)
            if fsmod.is_local(uri):
                src, tmp = fsmod.local_path(uri), None
            else:
                tmp = scratch.mkdtemp("cp_part_")
                src = fs.get_local(uri, os.path.join(tmp, name))
            try:
                with open(src, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
                    n += f.tell()
            finally:
                if tmp:
                    scratch.remove(tmp)
    return n


def train_iteration(spark, pages_df, seed_df, model_dir: str, cfg: ClassifierConfig,
                    random_seed: int, exclude_seed_pages: bool = True,
                    exclude_markup: Optional[bool] = None, markup_column: str = "has_math_markup",
                    label: str = classify.LABEL_MATH) -> dict:
    """Train one iteration's classifier; writes ``model_dir/model.bin``,
    ``model_dir/metrics.json`` and the training and held-out files
    (``model_dir/train_lines``, ``model_dir/heldout_lines``) and returns the metrics
    (held-out precision, recall, f1, pr_curve, counts, training time, model size).

    The texts never reach the driver's Python: the samples and the files are made
    by the executors, the driver streams the part files into one local file that
    the classifier library reads (a scratch file, removed afterwards)."""

    t0 = time.perf_counter()
    pos, neg, sample_counts = training_sets(spark, pages_df, seed_df, cfg, random_seed, exclude_seed_pages,
                                            exclude_markup, markup_column)
    if not sample_counts["seed_positives"]:
        raise ValueError("the seed has no texts: nothing to train on")
    if not sample_counts["sampled_negatives"]:
        raise ValueError("no non-seed pages with text to sample negatives from")
    counts = write_training_files(spark, pos, neg, cfg, random_seed, model_dir, label)
    write_s = time.perf_counter() - t0
    work = scratch.mkdtemp("cp_train_")
    try:
        train_file, heldout_file = os.path.join(work, "train.txt"), os.path.join(work, "heldout.txt")
        counts["train_file_bytes"] = concat_parts(spark, fsmod.join(model_dir, TRAIN_LINES), train_file)
        concat_parts(spark, fsmod.join(model_dir, HELDOUT_LINES), heldout_file)
        metrics = classify.train_from_files(train_file, heldout_file, cfg, random_seed, model_dir=model_dir,
                                     spark=spark, counts={**sample_counts, **counts,
                                                          "sample_write_seconds": round(write_s, 3)})
    finally:
        scratch.remove(work)
    return metrics


# ---------------------------------------------------------------- scoring
def _ship_model(spark, model_dir: str, via_spark_files: Optional[bool] = None) -> tuple[str, str]:
    """('path', p): executors open the local path p directly (classic local master, local model);
    ('spark_file', name): the model was shipped to the executors under a name unique to its
    path (:func:`corpus_pipeline.spark.classic.ship_file`: ``SparkContext.addFile``, or a file
    artifact on Spark Connect), once per session (a second scoring of the same model reuses it),
    and executors open it once each (``classic.shipped_path``).

    Spark refuses a second file of the same name from another path, and every
    iteration's model is ``model.bin``: the shipped file is a hard link (local
    model) or a copy made by the run folder's filesystem (remote model: inside the JVM on a classic
    session, nothing through the driver's Python; on Spark Connect a local copy, which the artifact
    upload needs) under the unique name, in a scratch place removed
    when the command ends (:mod:`corpus_pipeline.scratch`)."""
    from . import classic

    uri = fsmod.join(model_dir, classify.MODEL_FILE)   # every classifier kind writes model.bin (the contract)
    if via_spark_files is None:
        via_spark_files = not (fsmod.is_local(model_dir) and classic.is_classic(spark)
                               and classic.master(spark).startswith("local"))
    if not via_spark_files:
        return "path", os.path.abspath(fsmod.local_path(uri))
    key = fsmod.abspath(uri)
    done = classic.shipped_name(spark, key)
    if done:
        return "spark_file", done
    name = "model-" + hashlib.sha1(f"{fsmod.abspath(uri)}\x1f{time.time_ns()}".encode()).hexdigest()[:16] + ".bin"
    if fsmod.is_local(uri):
        d = scratch.mkdtemp("cp_model_")
        link = os.path.join(d, name)
        src = os.path.abspath(fsmod.local_path(uri))
        try:
            os.link(src, link)                 # no copy of a 200 MB file on the same filesystem
        except OSError:
            shutil.copyfile(src, link)
        target = link
    elif classic.is_classic(spark):
        target = fsmod.join(model_dir.rstrip("/") + ".ship", name)
        scratch.register(model_dir.rstrip("/") + ".ship")
        classic.hadoop_copy(spark, uri, target)
    else:                                      # Spark Connect: an artifact is uploaded from a local file
        target = fsmod.get_fs(uri, spark).get_local(uri, os.path.join(scratch.mkdtemp("cp_model_"), name))
    return "spark_file", classic.ship_file(spark, target, name, key)


def _score_partition(ship: tuple[str, str], cfg: ClassifierConfig, prepared: bool = False):
    """mapPartitions function: (page_id, text) rows -> (page_id, score) rows (``prepared``: the
    texts are the plugin's prepared lines)."""
    from .plugins import ship as ship_plugins

    kind, where = ship
    batch = cfg.score_batch_size
    clf = for_config(cfg)       # resolved here: a plugin's class travels with the task (spark.plugins)
    ship_plugins()

    def run(rows):
        path = where
        if kind == "spark_file":
            from .classic import shipped_path

            path = shipped_path(where)
        model = clf.load(path)              # once per executor Python process (cached)
        ids, texts = [], []
        for page_id, text in rows:
            ids.append(page_id)
            texts.append(text)
            if len(ids) >= batch:
                yield from zip(ids, clf.predict(model, texts, cfg, prepared=prepared))
                ids, texts = [], []
        if ids:
            yield from zip(ids, clf.predict(model, texts, cfg, prepared=prepared))

    return run


def prepare_pages(spark, pages_df, cfg: ClassifierConfig):
    """Every page's text as the classifier plugin reads it: ``schemas.PREPARED`` rows
    (``page_id, line``), so that scoring only predicts (``score_pages(..., prepared=True)``)."""
    from .plugins import ship as ship_plugins

    clf = for_config(cfg)       # resolved here: a plugin's class travels with the task (spark.plugins)
    ship_plugins()

    def run(rows):
        for page_id, text in rows:
            yield page_id, clf.prepare(text, cfg)

    return map_rows(pages_df.select("page_id", "text"), run, schemas.PREPARED)


def score_pages(spark, pages_df, model_dir: str, cfg: ClassifierConfig, *,
                via_spark_files: Optional[bool] = None, prepared: bool = False):
    """Every page's P(math) with ``model_dir/model.bin``: a DataFrame in ``schemas.SCORES``.

    The model reaches the executors as a local path (local master and local model folder)
    or shipped to the executors (otherwise, or ``via_spark_files=True``: :func:`_ship_model`); each
    executor Python process loads it once (:func:`corpus_pipeline.classify.load_model`)
    and scores ``cfg.score_batch_size`` pages per fastText call inside ``mapInArrow``.
    ``prepared``: ``pages_df`` holds ``page_id, line`` (:func:`prepare_pages`), predicted as they are."""
    ship = _ship_model(spark, model_dir, via_spark_files)
    text = "line" if prepared else "text"
    return map_rows(pages_df.select("page_id", text), _score_partition(ship, cfg, prepared), schemas.SCORES)


# ---------------------------------------------------------------- selection
def select_pages(spark, scores_df, pages_df, cfg: SelectConfig, stats: Optional[dict] = None):
    """The pages the classifier selects, in ``schemas.COLLECTED`` (page_id, score, n_tokens).

    * ``threshold``: score >= cfg.threshold.
    * ``tokens``: pages in (score desc, page_id asc) order while the running total of
      n_tokens stays within cfg.token_budget (the first page that would exceed it ends the
      selection; a null n_tokens counts 0).
    * ``fraction``: the same with budget = floor(token_fraction * all pages' tokens).

    Budget selection is exact and does not bring the corpus to the driver: tokens are
    summed per score bucket (2^12 buckets, a small table), the bucket where the budget
    runs out is found on the driver, and only that bucket's pages are sorted by
    (score desc, page_id) -- a range-partitioned sort, so pages with the same score
    (every page at exactly 1.0, say) are spread over tasks -- then each sorted partition's
    token total goes to the driver (one row per partition) and every partition keeps its
    pages whose running total, offset by the partitions before it, is within the budget.
    ``stats`` (optional dict) receives ``edge_partition_rows``: rows per task of that sort.
    """
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
                  .orderBy(F.desc("bucket")).collect())          # at most 2^12 + 1 small rows
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
    # the edge bucket: a distributed sort, then a prefix sum over its partitions (each row tagged
    # with the partition of the sort that holds it).  The sort is computed once (a local checkpoint,
    # released with the returned DataFrame): run twice, its range bounds come from a sample of rows
    # in shuffle-read order, and the tags of the two runs would not match.
    srt = (joined.where(F.col("bucket") == cut_bucket).select(*cols)
           .orderBy(F.desc("score"), F.asc("page_id")).withColumn("_part", F.spark_partition_id())
           .localCheckpoint(eager=True))
    sums = sorted((int(r["_part"]), int(r["n"]), int(r["t"] or 0)) for r in
                  srt.groupBy("_part").agg(F.count(F.lit(1)).alias("n"), F.sum("n_tokens").alias("t"))
                  .collect())                                    # one small row per non-empty partition
    if stats is not None:
        stats["edge_partition_rows"] = [n for _, n, _ in sums]
    offsets, acc = {}, 0
    for i, _, t in sums:
        offsets[i] = acc
        acc += t

    def keep(rows):
        cum = None
        for r in rows:
            if cum is None:
                cum = offsets.get(r[3], 0)
                if cum > remaining:
                    return
            cum += r[2]
            if cum > remaining:
                return
            yield r[:3]

    edge = map_rows(srt, keep, schemas.COLLECTED)
    return above.select(*cols).unionByName(edge)
