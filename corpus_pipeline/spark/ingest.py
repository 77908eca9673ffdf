"""The ingest stage on Spark: WARC files -> RUN/pages (+ pages_skips, pages_duplicates).

Ingest walks the committed stages of :data:`corpus_pipeline.stages.INGEST`;
each commits on its own, so a rerun after any kill redoes only what was not
committed:

1. ``RUN/ingest/extract/batch=NNNNN/``: sources are resolved on the driver;
   the files not yet extracted are cut into batches of
   ``ingest.files_per_commit`` files, and each batch is one Spark job (two in
   flight, so one batch's tail overlaps the next) with one task per
   ``ingest.files_per_task`` files applying the pure
   :func:`ingest.process_source`.  Each task yields its page rows and then its
   counters as rows of the same table (counts are data, so a retried task
   cannot count twice).  A batch's marker lists its files: that is the
   recorded progress.  Once every file is in a committed batch, the extract
   stage's own marker (``RUN/ingest/extract/_COMMIT.json``) records the totals.
2. ``RUN/ingest/url_dedup``: per normalized URL (``page_id``) the latest fetch
   survives (``fetched_at`` descending; ties: ``warc_file``, then
   ``warc_offset`` descending, i.e. the later record).
3. ``RUN/ingest/exact_dedup``: per normalized-text hash the smallest
   ``page_id`` survives.
4. ``RUN/ingest/near_dedup`` (``dedup.near``): :func:`spark.minhash.near_dedup`.
   Each dedup stage stores only what it removed (``DEDUP_REMOVED``); its input
   is the extracted pages minus the earlier stages' removals, so no stage
   copies the corpus and every rule ignores partitioning.
5. ``RUN/pages_duplicates`` (the three removal tables), ``RUN/pages_skips``
   (every skip reason per source file), then ``RUN/pages`` last, whose marker
   carries the stage's counts.  A committed ``RUN/pages`` makes a rerun skip
   the whole of ingest.

Counts are computed once from data (one aggregate over the counter rows, one
count per small removal table) and carried forward through the markers; the
page count is the extracted pages minus the removals.  Only aggregates reach
the driver.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from .. import fs as fsmod
from .. import schemas
from .. import stages as st
from ..config import Config
from ..counters import Counts
from ..errors import NoInputError, UsageError
from ..ingest import LANG_PREFIX, STAT_KEYS, process_source, split_totals
from ..runfolder import RunFolder, StageResult
from ..sources import resolve
from .io import rdd_to_df, read_table, write_counted, write_table

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
    write_table(rdd_to_df(spark, rdd, STAGED), path)


def url_dedup(pages):
    """(kept, duplicates): one row per page_id, the latest fetch (ties by warc_file, warc_offset).
    Duplicates carry the removed record's ``warc_file`` and ``warc_offset`` (``DEDUP_REMOVED``)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = Window.partitionBy("page_id").orderBy(
        F.col("fetched_at").desc_nulls_last(), F.col("warc_file").desc_nulls_last(),
        F.col("warc_offset").desc_nulls_last())
    ranked = pages.withColumn("_rn", F.row_number().over(w))
    kept = ranked.where(F.col("_rn") == 1).drop("_rn")
    dups = ranked.where(F.col("_rn") > 1).select(
        F.col("page_id"), F.col("page_id").alias("kept_page_id"), F.lit("url").alias("kind"),
        F.lit(1.0).alias("similarity"), "warc_file", "warc_offset")
    return kept, dups


def exact_dedup(pages):
    """(kept, duplicates): one row per text_hash, the smallest page_id survives (``DEDUP_REMOVED``)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = Window.partitionBy("text_hash").orderBy(F.col("page_id").asc())
    ranked = pages.withColumn("_rn", F.row_number().over(w)).withColumn("_keep", F.first("page_id").over(w))
    kept = ranked.where(F.col("_rn") == 1).drop("_rn", "_keep")
    dups = ranked.where(F.col("_rn") > 1).select(
        F.col("page_id"), F.col("_keep").alias("kept_page_id"), F.lit("exact").alias("kind"),
        F.lit(1.0).alias("similarity"), "warc_file", "warc_offset")
    return kept, dups


def _empty(spark, ddl: str):
    from .io import rows_to_df

    return rows_to_df(spark, [], ddl)


IN_FLIGHT = 2     # extraction batches submitted at once: one batch's last tasks overlap the next


def files_per_commit(spark, cfg: Config) -> int:
    """Files per committed extraction batch: the setting, or two task waves of the cluster."""
    if cfg.ingest.files_per_commit:
        return cfg.ingest.files_per_commit
    return 2 * max(1, spark.sparkContext.defaultParallelism) * cfg.ingest.files_per_task


def extract_progress(run: RunFolder) -> dict[str, str]:
    """Recorded progress: input file -> the committed batch folder that holds its rows."""
    done = {}
    for b in st.extract_batches(run):
        m = run.marker(b)
        for f in (m or {}).get("counts", {}).get("files", []):
            done[f] = b
    return done


def extract(spark, refs: list[str], run: RunFolder, cfg: Config, log=print) -> tuple[list[str], dict]:
    """Stage 1: every file extracted in committed batches; returns (batch data folders, totals).

    Files already in a committed batch are not read again; batches that
    are not committed (a killed run's) are removed first.
    """
    from pyspark.sql import functions as F

    base = st.EXTRACT.location(run)
    settings = st.EXTRACT.settings(cfg)
    if run.is_committed(base):
        m = run.marker(base) or {}
        log(f"[skip] {run._rel(base)} already committed")
        return [run.data(fsmod.join(base, b)) for b in m.get("config", {}).get("batches", [])], \
            dict(m.get("counts", {}))
    wanted = set(refs)
    for b in st.extract_batches(run):               # unfinished attempts, or files no longer in the inputs
        files = (run.marker(b) or {}).get("counts", {}).get("files")
        if files is None or not set(files) <= wanted:
            run.fs.delete(b)
    done = extract_progress(run)
    todo = [r for r in refs if r not in done]
    per = files_per_commit(spark, cfg)
    batches = [todo[k:k + per] for k in range(0, len(todo), per)]
    numbers = [int(b.rsplit("=", 1)[1]) for b in st.extract_batches(run)]
    first = max(numbers, default=-1) + 1
    log(f"[ingest] extract: {len(done)} of {len(refs)} file(s) already extracted; {len(todo)} to read in "
        f"{len(batches)} batch(es) of <= {per} file(s), {cfg.ingest.files_per_task} per task")

    def one(k: int, files: list[str]) -> str:
        path = fsmod.join(base, f"batch={first + k:05d}")

        def build(attempt: str) -> dict:
            extract_to_staging(spark, files, cfg, attempt)
            return {"files": list(files)}

        run.stage(path, build, config={"batch": first + k}, settings=settings, log=log)
        return path

    t0 = time.time()
    if batches:
        with ThreadPoolExecutor(max_workers=IN_FLIGHT) as pool:
            for fut in [pool.submit(one, k, files) for k, files in enumerate(batches)]:
                fut.result()
    log(f"[ingest] extract: {len(todo)} file(s) in {time.time() - t0:.1f}s")

    order = sorted(set(extract_progress(run).values()))
    paths = [run.data(b) for b in order]
    order = [b.rsplit("/", 1)[1] for b in order]
    staged = _read_batches(spark, paths)
    totals = {r["c_reason"]: int(r["n"]) for r in
              staged.where(F.col("kind") == "count").groupBy("c_reason").agg(F.sum("c_count").alias("n")).collect()}
    stats, skips, langs = split_totals(totals)
    if stats["files_read"] == 0:
        run.fs.delete(base)
        raise NoInputError(f"ingest: none of the {len(refs)} input file(s) could be read "
                           f"({', '.join(f'{k}={v}' for k, v in skips.items()) or 'no records'})")
    counts = {**stats, "inputs": len(refs), "skips": skips, "skipped_records": sum(skips.values()),
              "languages": langs, "batches": len(order), "files_extracted_now": len(todo)}
    run.commit_in_place(base, counts, config={"batches": order}, settings=settings)
    return paths, counts


def _read_batches(spark, paths: list[str]):
    from .io import struct

    return spark.read.schema(struct(STAGED)).parquet(*[fsmod.to_spark_uri(p) for p in paths])


def _remaining(pages, removed: list):
    """The extracted pages minus the rows earlier dedup steps removed ((kind, rows, how many))."""
    for kind, df, n in removed:
        if not n:
            continue                      # the step removed nothing: no join
        if kind == "url":
            # a removed fetch has its survivor's page_id, and a record read twice (a retried file) has
            # its twin's WARC position too: re-apply the deterministic rule instead of an anti-join
            pages = url_dedup(pages)[0]
        else:
            pages = pages.join(df.select("page_id"), "page_id", "left_anti")
    return pages


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
    t_start = time.time()
    refs = list(dict.fromkeys(resolve(list(inputs), cfg.ingest, spark)))   # a file named twice is read once
    if not refs:
        raise UsageError("ingest: no input")
    log(f"[ingest] {len(refs)} WARC file(s), {cfg.ingest.files_per_task} per task")
    fs = run.fs
    ckpt = cfg.spark.checkpoint_dir or run.path("_checkpoints", "ingest")
    seconds: dict = {}

    def lap(name: str, t0: float) -> None:
        seconds[name] = round(time.time() - t0, 2)

    # 1. extraction, in committed batches
    t0 = time.time()
    paths, ext = extract(spark, refs, run, cfg, log)
    lap("extract", t0)
    extracted = _read_batches(spark, paths).where(F.col("kind") == "page").select(*_PAGE_COLS)

    # 2-4. one committed stage per dedup step; each stores what it removed
    removed: list = []
    dedup_counts: dict = {}

    def dedup_stage(stage: st.Stage, kind: str, enabled: bool, step) -> None:
        t0 = time.time()

        def build(attempt: str) -> dict:
            if enabled:
                extra, df = step(_remaining(extracted, removed))
                n = write_counted(df, attempt, schemas.DEDUP_REMOVED)
            else:
                extra = {}
                write_table(_empty(spark, schemas.DEDUP_REMOVED), attempt, schemas.DEDUP_REMOVED)
                n = 0
            return {f"{kind}_duplicates": n, **extra}

        res = run.stage(stage.location(run), build, config={"dedup": cfg.section("dedup")},
                        settings=stage.settings(cfg), log=log)
        removed.append((kind, read_table(spark, stage.location(run), schemas.DEDUP_REMOVED),
                        res.counts.get(f"{kind}_duplicates", 0)))
        dedup_counts.update(res.counts)
        lap(stage.name, t0)

    dedup_stage(st.URL_DEDUP, "url", cfg.dedup.url, lambda pages: ({}, url_dedup(pages)[1]))
    dedup_stage(st.EXACT_DEDUP, "exact", cfg.dedup.exact, lambda pages: ({}, exact_dedup(pages)[1]))

    def near(pages):
        from .minhash import near_dedup

        from pyspark import StorageLevel

        # near dedup reads its input several times: computed once (the earlier removals applied)
        docs = pages.select(*schemas.columns(schemas.PAGES)).persist(StorageLevel.MEMORY_AND_DISK)
        res = near_dedup(spark, docs, cfg.dedup, ckpt)
        log("[ingest] near dedup seconds: " + ", ".join(f"{k} {v}" for k, v in (res.timings or {}).items()))
        dups = res.duplicates.select(*schemas.columns(schemas.DUPLICATES),
                                     F.lit(None).cast("string").alias("warc_file"),
                                     F.lit(None).cast("bigint").alias("warc_offset"))
        unpersist.append(docs)
        return {"near_dedup": dict(res.counts or {})}, dups

    unpersist: list = []
    dedup_stage(st.NEAR_DEDUP, "near", cfg.dedup.near, near)
    for df in unpersist:
        df.unpersist()

    # 5. commits: duplicates, skips, then pages (last: its marker means "ingest done")
    t0 = time.time()

    def build_dups(attempt: str) -> dict:
        d = removed[0][1]
        for _, other, _n in removed[1:]:
            d = d.unionByName(other)
        write_table(d, attempt, schemas.DUPLICATES)
        return {f"{k}_duplicates": dedup_counts.get(f"{k}_duplicates", 0) for k in ("url", "exact", "near")}

    dres = run.stage(run.pages_duplicates, build_dups, cfg.section("dedup"), log=log)

    def build_skips(attempt: str) -> dict:
        rows = (_read_batches(spark, paths).where((F.col("kind") == "count") & ~F.col("c_reason").isin(*STAT_KEYS)
                & ~F.col("c_reason").startswith(LANG_PREFIX))
                .select(F.col("c_stage").alias("stage"), F.col("c_reason").alias("reason"),
                        F.col("c_source").alias("source"), F.col("c_count").alias("count")))
        write_table(rows.coalesce(1), attempt, schemas.SKIPS)
        return dict(ext.get("skips", {}))

    run.stage(run.pages_skips, build_skips, cfg.section("ingest"), log=log)

    def build_pages(attempt: str) -> dict:
        write_table(_remaining(extracted, removed), attempt, schemas.PAGES)
        counts = {k: ext.get(k, 0) for k in STAT_KEYS}
        removed_rows = sum(dres.counts.get(f"{k}_duplicates", 0) for k in ("url", "exact", "near"))
        counts.update({
            "inputs": len(refs),
            "pages": counts["pages_extracted"] - removed_rows,   # every removal row is one extracted row
            "skips": dict(ext.get("skips", {})),
            "skipped_records": ext.get("skipped_records", 0),
            "languages": dict(ext.get("languages", {})),
        })
        counts.update(dres.counts)
        if dedup_counts.get("near_dedup"):
            counts["near_dedup"] = dedup_counts["near_dedup"]
        return counts

    config = {"ingest": cfg.section("ingest"), "dedup": cfg.section("dedup"), "inputs": list(inputs)}
    result = run.stage(run.pages, build_pages, config, log=log)
    lap("commit", t0)
    if cfg.spark.checkpoint_dir is None and fs.exists(ckpt):
        fs.delete(ckpt)
    parent = run.path("_checkpoints")
    if fs.exists(parent) and not fs.listdir(parent):
        fs.delete(parent)
    seconds["total"] = round(time.time() - t_start, 2)
    log("[ingest] seconds per stage: " + ", ".join(f"{k} {v}" for k, v in seconds.items()))
    return result


def summarize(result: StageResult) -> str:
    c = result.counts
    return (f"pages={c.get('pages', 0)} files={c.get('files', 0)} read={c.get('files_read', 0)} "
            f"records={c.get('records', 0)} extracted={c.get('pages_extracted', 0)} "
            f"url_dups={c.get('url_duplicates', 0)} exact_dups={c.get('exact_duplicates', 0)} "
            f"near_dups={c.get('near_duplicates', 0)} skipped={c.get('skipped_records', 0)}")
