"""The ingest stage on Spark: WARC files -> RUN/pages (+ pages_skips, pages_duplicates).

1. Sources are resolved on the driver (a list of file references; S3
   listings paginated there).
2. One task per ``ingest.files_per_task`` files: ``mapPartitions`` applies the
   pure :func:`ingest.process_source`; each task yields its page rows and then
   its counters as rows of the same staging table (counts are data, so a
   retried task cannot count twice).  The staging table is written once
   (``RUN/_work/ingest/extracted``) and everything after reads it.
3. URL dedup: per normalized URL (``page_id``) the latest fetch survives
   (``fetched_at`` descending; ties: ``warc_file``, then ``warc_offset``
   descending, i.e. the later record).  Exact dedup: per normalized-text hash
   the smallest ``page_id`` survives.  Both rules ignore partitioning.
4. Near dedup (``dedup.near``): :func:`spark.minhash.near_dedup`.
5. Commits, each atomic: ``RUN/pages_duplicates`` (url, exact and near
   removals), ``RUN/pages_skips`` (every skip reason per source file), then
   ``RUN/pages`` last, whose marker carries the stage's counts.  A committed
   ``RUN/pages`` makes a rerun skip the whole stage.

Only aggregates (counts by reason) reach the driver.
"""
from __future__ import annotations

import time

from .. import fs as fsmod
from .. import schemas
from ..config import Config
from ..counters import Counts
from ..errors import NoInputError, UsageError
from ..ingest import LANG_PREFIX, STAT_KEYS, process_source, split_totals
from ..runfolder import RunFolder, StageResult
from ..sources import resolve
from .io import rdd_to_df, read_table, write_table

STAGE = "ingest"
STAGED = ("kind STRING, " + schemas.EXTRACTED +
          ", c_stage STRING, c_reason STRING, c_source STRING, c_count BIGINT")
_N_EXTRACTED = len(schemas.columns(schemas.EXTRACTED))
_PAGE_COLS = schemas.columns(schemas.EXTRACTED)


def _task(cfg: Config):
    """The mapPartitions function: a partition holds lists of file references."""
    def run(groups):
        for group in groups:
            for ref in group:
                counts = Counts(STAGE, ref)
                c0 = time.process_time()
                for row in process_source(ref, cfg, counts):
                    yield ("page",) + schemas.row(schemas.EXTRACTED, row) + (None, None, None, None)
                counts.add("cpu_ms", int(1000 * (time.process_time() - c0)))
                for c_stage, reason, source, n in counts.rows():
                    yield ("count",) + (None,) * _N_EXTRACTED + (c_stage, reason, source, n)
    return run


def _chunks(refs: list[str], n: int) -> list[list[str]]:
    return [refs[i:i + n] for i in range(0, len(refs), n)]


def extract_to_staging(spark, refs: list[str], cfg: Config, path: str) -> None:
    """Run process_source over every file (one task per group) and write the staging table."""
    groups = _chunks(refs, cfg.ingest.files_per_task)
    rdd = spark.sparkContext.parallelize(groups, len(groups)).mapPartitions(_task(cfg))
    df = rdd_to_df(spark, rdd, STAGED)
    df.write.mode("overwrite").parquet(fsmod.to_spark_uri(path))


def url_dedup(pages):
    """(kept, duplicates): one row per page_id, the latest fetch (ties by warc_file, warc_offset)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = Window.partitionBy("page_id").orderBy(
        F.col("fetched_at").desc_nulls_last(), F.col("warc_file").desc_nulls_last(),
        F.col("warc_offset").desc_nulls_last())
    ranked = pages.withColumn("_rn", F.row_number().over(w))
    kept = ranked.where(F.col("_rn") == 1).drop("_rn")
    dups = ranked.where(F.col("_rn") > 1).select(
        F.col("page_id"), F.col("page_id").alias("kept_page_id"), F.lit("url").alias("kind"),
        F.lit(1.0).alias("similarity"))
    return kept, dups


def exact_dedup(pages):
    """(kept, duplicates): one row per text_hash, the smallest page_id survives."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = Window.partitionBy("text_hash").orderBy(F.col("page_id").asc())
    ranked = pages.withColumn("_rn", F.row_number().over(w)).withColumn("_keep", F.first("page_id").over(w))
    kept = ranked.where(F.col("_rn") == 1).drop("_rn", "_keep")
    dups = ranked.where(F.col("_rn") > 1).select(
        F.col("page_id"), F.col("_keep").alias("kept_page_id"), F.lit("exact").alias("kind"),
        F.lit(1.0).alias("similarity"))
    return kept, dups


def _empty(spark, ddl: str):
    from .io import rows_to_df

    return rows_to_df(spark, [], ddl)


def run_ingest(spark, inputs: list[str], run: RunFolder, cfg: Config,
               log=print) -> StageResult:
    """WARC sources -> committed RUN/pages, RUN/pages_skips, RUN/pages_duplicates.

    Raises :class:`UsageError` when an input matches nothing and
    :class:`NoInputError` when no file could be read at all.
    """
    from pyspark.sql import functions as F

    if run.is_committed(run.pages):
        log(f"[skip] pages already committed in {run.uri}")
        m = run.marker(run.pages) or {}
        return StageResult(run.pages, dict(m.get("counts", {})), dict(m.get("config", {})), True)
    refs = resolve(list(inputs), cfg.ingest)
    if not refs:
        raise UsageError("ingest: no input")
    log(f"[ingest] {len(refs)} WARC file(s), {cfg.ingest.files_per_task} per task")
    fs = run.fs
    work = run.path("_work", "ingest")
    staged_path = fsmod.join(work, "extracted")
    deduped_path = fsmod.join(work, "deduped")
    kept_path = fsmod.join(work, "kept")
    ckpt = cfg.spark.checkpoint_dir or run.path("_checkpoints", "ingest")
    if fs.exists(work):
        fs.delete(work)

    # 1-2. extraction, written once
    extract_to_staging(spark, refs, cfg, staged_path)
    staged = read_table(spark, staged_path, STAGED)
    count_rows = staged.where(F.col("kind") == "count")
    totals = {r["c_reason"]: int(r["n"]) for r in
              count_rows.groupBy("c_reason").agg(F.sum("c_count").alias("n")).collect()}
    stats, skips, langs = split_totals(totals)
    if stats["files_read"] == 0:
        fs.delete(work)
        raise NoInputError(f"ingest: none of the {len(refs)} input file(s) could be read "
                           f"({', '.join(f'{k}={v}' for k, v in skips.items()) or 'no records'})")

    # 3. URL and exact dedup, materialized once for near dedup and the writes below
    pages = staged.where(F.col("kind") == "page").select(*_PAGE_COLS)
    dup_parts = []
    if cfg.dedup.url:
        pages, url_dups = url_dedup(pages)
        dup_parts.append(url_dups)
    if cfg.dedup.exact:
        pages, exact_dups = exact_dedup(pages)
        dup_parts.append(exact_dups)
    write_table(pages, deduped_path, schemas.EXTRACTED)
    deduped = read_table(spark, deduped_path, schemas.EXTRACTED).select(*schemas.columns(schemas.PAGES))
    small_dups = fsmod.join(work, "dups_url_exact")
    if dup_parts:
        d = dup_parts[0]
        for other in dup_parts[1:]:
            d = d.unionByName(other)
        write_table(d, small_dups, schemas.DUPLICATES)
    else:
        write_table(_empty(spark, schemas.DUPLICATES), small_dups, schemas.DUPLICATES)

    # 4. near dedup
    near_counts: dict = {}
    if cfg.dedup.near:
        from .minhash import near_dedup

        res = near_dedup(spark, deduped, cfg.dedup, ckpt)
        kept, near_dups, near_counts = res.kept, res.duplicates, dict(res.counts or {})
    else:
        kept, near_dups = deduped, _empty(spark, schemas.DUPLICATES)
    write_table(kept, kept_path, schemas.PAGES)

    # 5. commits: duplicates, skips, then pages (last: its marker means "ingest done")
    all_dups = read_table(spark, small_dups, schemas.DUPLICATES).unionByName(
        near_dups.select(*schemas.columns(schemas.DUPLICATES)))

    def build_dups(staging: str) -> dict:
        write_table(all_dups, staging, schemas.DUPLICATES)
        written = read_table(spark, staging, schemas.DUPLICATES)
        by_kind = {r["kind"]: int(r["n"]) for r in written.groupBy("kind").agg(F.count("*").alias("n")).collect()}
        return {f"{k}_duplicates": by_kind.get(k, 0) for k in ("url", "exact", "near")}

    dres = run.stage(run.pages_duplicates, build_dups, cfg.section("dedup"), force=True, log=log)

    def build_skips(staging: str) -> dict:
        rows = (count_rows.where(~F.col("c_reason").isin(*STAT_KEYS) & ~F.col("c_reason").startswith(LANG_PREFIX))
                .select(F.col("c_stage").alias("stage"), F.col("c_reason").alias("reason"),
                        F.col("c_source").alias("source"), F.col("c_count").alias("count")))
        write_table(rows.coalesce(1), staging, schemas.SKIPS)
        return dict(skips)

    run.stage(run.pages_skips, build_skips, cfg.section("ingest"), force=True, log=log)

    def build_pages(staging: str) -> dict:
        fs.rename(kept_path, staging)
        n_pages = read_table(spark, staging, schemas.PAGES).count()
        counts = dict(stats)
        counts.update({
            "inputs": len(refs),
            "pages": n_pages,
            "skips": dict(skips),
            "skipped_records": sum(skips.values()),
            "languages": dict(langs),
        })
        counts.update(dres.counts)
        if near_counts:
            counts["near_dedup"] = near_counts
        return counts

    config = {"ingest": cfg.section("ingest"), "dedup": cfg.section("dedup"), "inputs": list(inputs)}
    result = run.stage(run.pages, build_pages, config, log=log)
    fs.delete(work)
    if cfg.spark.checkpoint_dir is None and fs.exists(ckpt):
        fs.delete(ckpt)
    for parent in (run.path("_work"), run.path("_checkpoints")):
        if fs.exists(parent) and not fs.listdir(parent):
            fs.delete(parent)
    return result


def summarize(result: StageResult) -> str:
    c = result.counts
    return (f"pages={c.get('pages', 0)} files={c.get('files', 0)} read={c.get('files_read', 0)} "
            f"records={c.get('records', 0)} extracted={c.get('pages_extracted', 0)} "
            f"url_dups={c.get('url_duplicates', 0)} exact_dups={c.get('exact_duplicates', 0)} "
            f"near_dups={c.get('near_duplicates', 0)} skipped={c.get('skipped_records', 0)}")
