"""Near dedup's DataFrame step: MinHash LSH near-duplicate removal on a pages DataFrame (its pure rules:
:mod:`.rules`; the stage that commits its removals: :mod:`.stage`).

Steps (nothing proportional to the corpus is collected to the driver: only
``count()`` aggregates and the small ``sample_pairs`` list reach it):

1. **Band keys** — ``mapPartitions`` over ``(page_id, text)`` computes datasketch
   signatures in the executors (``rules.doc_band_rows``) and emits one
   ``(page_id, band, key)`` row per band.  The table is persisted (signatures
   are computed once).  One aggregate over its buckets counts the pages without
   shingles and finds the buckets that hold two or more pages; when none does,
   no candidate edge exists and the steps below are skipped.
2. **Candidate edges** — each bucket ``(band, key)`` is split into
   ``cfg.sub_buckets`` sub-buckets by a hash of the page_id; every member of a
   sub-bucket gets an edge to the sub-bucket's smallest page_id and every
   sub-bucket root one to the bucket's smallest page_id (stars of stars, not all
   pairs; :func:`bucket_groups`), computed by aggregations and joins whose keys
   hold at most max(size / sub_buckets, sub_buckets) rows, so a bucket of
   thousands of copies of one page is spread over tasks; edges deduplicated over bands.
3. **Verification** (``cfg.verify_jaccard``) — shingle ids are recomputed in
   the executors only for pages that appear in a candidate edge; the exact
   Jaccard of each edge is computed in Spark SQL (``array_intersect`` /
   ``array_union``) and edges below the threshold are dropped.  The members of a
   bucket whose edge to their group's root failed are grouped again (split the
   same way by another hash) without the roots they failed against, for
   ``cfg.rescue_rounds`` rounds: two near-copies in a bucket whose root is unlike
   both are still compared.  (The shingle
   ids of candidate pages are computed even when verification is off: they
   give the ``similarity`` column and the text lengths for the survivor rule.)
   With ``cfg.verify_with = "signatures"`` the candidate pages carry their MinHash
   signature instead (``bands x rows`` values, whatever the text's length) and the
   similarity is the share of agreeing signature positions, an unbiased estimate of
   the Jaccard (standard error 0.043 at 0.7 with 112 values): the rows a verification
   join moves stay the same small size when a bucket's root is a very long page.
4. **Connected components** of the kept edges in Spark (``spark.components``).
5. **Survivor** per cluster, by rule: the page with the longest text (in
   characters); ties go to the smallest page_id.  Independent of partitioning
   and of reruns.  Every other member is removed; its ``similarity`` in the
   duplicates table is the exact shingle Jaccard between it and its survivor
   (which can be below the threshold when it joined the cluster through a
   chain A~B~C).

Edges are stars, so a bucket {a<b<c} gives candidate edges b-a and c-a first;
with verification on, when both fail the check the rescue round compares c with b.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ... import fs as fsmod
from ...config import Config, DedupConfig
from ...profiles import for_config as profile_of
from ...schemas import DUPLICATES, columns
from ...spark.arrow import local_rows, map_rows
from ...spark.classic import persisted, set_checkpoint_dir
from ...spark.components import components_counted, materialize, materialize_counted
from . import rules

BANDS_DDL = "page_id STRING, band INT, bkey BIGINT"
SHINGLES_DDL = "page_id STRING, n_chars INT, sh ARRAY<BIGINT>"


@dataclass
class NearDedupResult:
    kept: DataFrame                 # pages_df's columns, near-duplicates removed
    duplicates: DataFrame           # schemas.DUPLICATES rows, kind "near"
    counts: dict = field(default_factory=dict)
    sample_pairs: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)   # seconds per step (for benchmarks and logs)


def _band_partition(bands: int, rows: int, minhash_seed: int, k: int):
    def run(it):
        return rules.doc_band_rows(((r[0], r[1]) for r in it), bands, rows, minhash_seed, k)
    return run


def _shingle_partition(k: int):
    def run(it):
        return rules.doc_shingle_rows(((r[0], r[1]) for r in it), k)
    return run


def _signature_partition(num_perm: int, minhash_seed: int, k: int):
    def run(it):
        return rules.doc_signature_rows(((r[0], r[1]) for r in it), num_perm, minhash_seed, k)
    return run


def _signature_sim_col(a: str, b: str):
    """Share of equal positions of two signature arrays (rules.signature_similarity in SQL)."""
    same = F.aggregate(F.zip_with(F.col(a), F.col(b), lambda x, y: F.when(x == y, 1).otherwise(0)),
                       F.lit(0), lambda acc, v: acc + v)
    n = F.size(F.col(a))
    return F.when((n > 0) & (n == F.size(F.col(b))), same / n).otherwise(F.lit(0.0)).cast("double")


def _jaccard_col(a: str, b: str):
    inter = F.size(F.array_intersect(F.col(a), F.col(b)))
    union = F.size(F.array_union(F.col(a), F.col(b)))
    return F.when(union > 0, inter / union).otherwise(F.lit(0.0)).cast("double")


def _excerpt(text: Optional[str], n: int = 300) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[:n] + "…"


GROUP_COLS = ["band", "bkey", "salt", "round"]


def bucket_groups(band_df: DataFrame, sub_buckets: int, rnd: int = 0,
                  multi: Optional[DataFrame] = None) -> DataFrame:
    """The groups whose members get an edge to the group's smallest page_id.

    A band bucket (band, key) is split into ``sub_buckets`` sub-buckets by a hash of
    (page_id, band): level ``salt >= 0`` groups are the sub-buckets' members; the level
    ``salt = -1`` group of a bucket with two or more pages holds its sub-buckets' roots.
    A small bucket whose pages fall in different sub-buckets gets the plain star; a bucket
    of a million copies gets 64 stars of ~16k and one of 64, so no group (no join key)
    holds more than max(size / sub_buckets, sub_buckets) rows.  Both levels are computed
    by aggregations (partial aggregation on the map side), never by a window over a whole
    bucket.  Rescue round ``rnd`` splits the failed members of a bucket the same way
    with another hash.  ``multi``: the (band, bkey) of the buckets with two or more pages when
    the caller has them already (near dedup counts them first), else computed here from the
    sub-buckets.  Columns: band, bkey, salt, round, page_id."""
    h = F.xxhash64("page_id", "band") if not rnd else F.xxhash64("page_id", "band", F.lit(int(rnd)))
    b = (band_df.where(F.col("band") >= 0)
         .select("band", "bkey", F.pmod(h, F.lit(int(sub_buckets))).cast("int").alias("salt"), "page_id"))
    sub = b.groupBy("band", "bkey", "salt").agg(F.min("page_id").alias("root"), F.count(F.lit(1)).alias("n"))
    if multi is None:
        multi = sub.groupBy("band", "bkey").agg(F.sum("n").alias("size")).where(F.col("size") > 1)
    top = (sub.join(multi.select("band", "bkey"), ["band", "bkey"], "left_semi")
           .select("band", "bkey", F.lit(-1).alias("salt"), F.col("root").alias("page_id")))
    return b.unionByName(top).withColumn("round", F.lit(int(rnd)))


def group_edges(groups: DataFrame) -> DataFrame:
    """Star edges (src -> the group's smallest page_id) of every group with two or more
    members, with the group's columns kept (for the rescue rounds)."""
    roots = (groups.groupBy(*GROUP_COLS).agg(F.min("page_id").alias("dst"), F.count(F.lit(1)).alias("n"))
             .where(F.col("n") > 1).drop("n"))
    return (groups.join(roots, GROUP_COLS).where(F.col("page_id") != F.col("dst"))
            .select(*GROUP_COLS, F.col("page_id").alias("src"), "dst"))


def near_dedup(spark, pages_df: DataFrame, cfg: DedupConfig, checkpoint_dir: str) -> NearDedupResult:
    """Remove near-duplicate pages (MinHash LSH + connected components).

    ``pages_df`` needs ``page_id`` (unique) and ``text``; other columns are
    carried through to ``kept`` unchanged.  ``checkpoint_dir`` holds the
    checkpoints of the component rounds and of the duplicates table, which the
    returned DataFrames read from: delete it only after they are written.
    """
    ckpt = fsmod.to_spark_uri(checkpoint_dir)
    set_checkpoint_dir(spark, ckpt)
    timings: dict = {}
    clock = [time.perf_counter()]

    def lap(name: str) -> None:
        now = time.perf_counter()
        timings[name] = round(now - clock[0], 3)
        clock[0] = now

    k, bands, rows = cfg.shingle_size, cfg.bands, cfg.rows
    docs = pages_df.select("page_id", "text")

    # 1. band keys, computed once in the executors
    band_df = map_rows(docs, _band_partition(bands, rows, cfg.minhash_seed, k), BANDS_DDL) \
        .persist(StorageLevel.MEMORY_AND_DISK)
    # one aggregate over the buckets gives the pages without shingles (their band is -1) and
    # whether any bucket holds two pages; the shared buckets are kept for the candidate plan
    sizes = persisted(band_df.groupBy("band", "bkey").agg(F.count(F.lit(1)).alias("size"))
                      .where((F.col("band") < 0) | (F.col("size") > 1)), StorageLevel.MEMORY_AND_DISK)
    row = sizes.agg(F.sum(F.when(F.col("band") < 0, F.col("size")).otherwise(0)).alias("none"),
                    F.count(F.when(F.col("band") >= 0, 1)).alias("shared")).first()
    no_shingles, shared_buckets = int(row["none"] or 0), int(row["shared"] or 0)
    lap("signatures")

    # 2. candidate edges: stars inside hash sub-buckets, sub-bucket roots to the bucket root
    if shared_buckets:
        multi = sizes.where(F.col("band") >= 0).select("band", "bkey")
        groups = bucket_groups(band_df, cfg.sub_buckets, multi=multi)
        cand_ctx = persisted(group_edges(groups), StorageLevel.MEMORY_AND_DISK)
        cand = persisted(cand_ctx.select("src", "dst").distinct(), StorageLevel.MEMORY_AND_DISK)
        candidate_pairs = cand.count()
    else:
        # no bucket holds two pages: no candidate edge (the plan below would run on empty groups)
        cand_ctx = cand = None
        candidate_pairs = 0
    band_df.unpersist()
    sizes.unpersist()
    lap("candidates")
    stats = {"candidate_pairs": candidate_pairs, "verified_pairs": 0, "rescued_pairs": 0, "clusters": 0,
             "removed": 0, "no_shingles": no_shingles, "cc_rounds": 0, "bands": bands, "rows": rows,
             "threshold": round(rules.threshold(bands, rows), 4), "verify_jaccard": cfg.verify_jaccard,
             "verify_with": cfg.verify_with}
    if candidate_pairs == 0:
        # no page shares a bucket with another (common in small or clean inputs): the verification,
        # component and survivor jobs would all run on empty tables
        _unpersist(cand, cand_ctx)
        return _no_near_duplicates(spark, pages_df, stats, timings)

    # 3. shingle ids for candidate pages only, exact Jaccard per edge; members whose edge to
    #    their group's root fails form a new group without it (rescue rounds)
    nodes = cand.select(F.col("src").alias("page_id")).union(cand.select(F.col("dst").alias("page_id"))).distinct()
    cand_docs = docs.join(nodes.hint("shuffle_hash"), "page_id")
    if cfg.verify_with == "signatures":
        sh_fn = _signature_partition(bands * rows, cfg.minhash_seed, k)
        sim_col = _signature_sim_col
    else:
        sh_fn = _shingle_partition(k)
        sim_col = _jaccard_col
    sh = persisted(map_rows(cand_docs.select("page_id", "text"), sh_fn, SHINGLES_DDL), StorageLevel.MEMORY_AND_DISK)
    sa = sh.select(F.col("page_id").alias("src"), F.col("sh").alias("sa"))
    sb = sh.select(F.col("page_id").alias("dst"), F.col("sh").alias("sb"))
    rescued_pairs = 0
    if cfg.verify_jaccard is not None:
        t = float(cfg.verify_jaccard)
        kept_parts, ctx = [], cand_ctx
        for rnd in range(cfg.rescue_rounds + 1):
            pairs = ctx.select("src", "dst").distinct()
            sims = (pairs.join(sa.hint("shuffle_hash"), "src").join(sb.hint("shuffle_hash"), "dst")
                    .select("src", "dst", sim_col("sa", "sb").alias("sim")))
            # checkpointed: each round's plan starts from data, not from the previous rounds' plans
            judged = materialize(ctx.join(sims, ["src", "dst"]), reliable=True)
            ok = judged.where(F.col("sim") >= F.lit(t)).select("src", "dst")
            kept_parts.append(ok)
            if rnd:
                rescued_pairs += ok.distinct().count()
            if rnd == cfg.rescue_rounds:
                break
            # every member of a bucket that failed (in any sub-bucket or at the top) is regrouped
            failed = (judged.where(F.col("sim") < F.lit(t))
                      .select(F.col("src").alias("page_id"), "band", "bkey").distinct())
            ctx, n_ctx = materialize_counted(group_edges(bucket_groups(failed, cfg.sub_buckets, rnd + 1)),
                                             reliable=True)
            if n_ctx == 0:
                break
        edges = kept_parts[0]
        for part in kept_parts[1:]:
            edges = edges.unionByName(part)
        # deduplicated, cached and counted by the components' first convergence test
    else:
        edges = cand
    lap("verify")

    # 4. connected components in Spark; their first convergence test counts the verified pairs
    #    (edges are src > dst: distinct undirected edges = distinct pairs), the last one the
    #    components and their non-root members
    comps, rounds, cc = components_counted(edges, checkpoint_dir=ckpt, max_iterations=cfg.max_iterations_cc)
    verified_pairs = cc["input_edges"]
    stats.update(verified_pairs=verified_pairs, rescued_pairs=rescued_pairs)
    if verified_pairs == 0:   # every candidate failed its check: nothing to cluster
        _unpersist(cand, cand_ctx, sh)
        return _no_near_duplicates(spark, pages_df, stats, timings)
    lap("components")

    # 5. survivor: longest text, then smallest page_id
    # (every component member is a candidate page, so its length is in sh)
    lens = sh.select("page_id", "n_chars")
    members = comps.join(lens.hint("shuffle_hash"), comps.node == lens.page_id).select(
        F.col("node").alias("page_id"), "component", "n_chars")
    surv = (members.groupBy("component")
            .agg(F.min(F.struct((-F.col("n_chars")).alias("neg_len"), F.col("page_id").alias("pid")))
                 .alias("best"))
            .select("component", F.col("best.pid").alias("kept_page_id")))
    removed = (members.join(surv.hint("shuffle_hash"), "component")
               .where(F.col("page_id") != F.col("kept_page_id"))
               .select("page_id", "kept_page_id"))
    dups = (removed
            .join(sh.select("page_id", F.col("sh").alias("sa")).hint("shuffle_hash"), "page_id")
            .join(sh.select(F.col("page_id").alias("kept_page_id"), F.col("sh").alias("sb")).hint("shuffle_hash"),
                  "kept_page_id")
            .select("page_id", "kept_page_id", F.lit("near").alias("kind"),
                    sim_col("sa", "sb").alias("similarity"))
            .select(*columns(DUPLICATES)))
    dups = materialize(dups, reliable=True)   # the returned tables read from the checkpoint
    _unpersist(cand, cand_ctx, sh)
    # one survivor per component, every other member removed: the counts of the last convergence test
    n_removed, clusters = cc["non_roots"], cc["components"]
    lap("survivors")

    kept = pages_df.join(dups.select("page_id").hint("shuffle_hash"), "page_id", "left_anti") \
        .select(*pages_df.columns)

    # small, deterministic sample for the report: only sample_pairs rows and
    # 2 x sample_pairs text excerpts (cut in Spark) reach the driver
    sample_pairs = []
    if cfg.sample_pairs > 0:
        picked = (dups.orderBy(F.xxhash64("page_id"), "page_id").limit(cfg.sample_pairs)
                  .select("page_id", "kept_page_id", "similarity").collect())
        ids = sorted({r["page_id"] for r in picked} | {r["kept_page_id"] for r in picked})
        extra = [c for c in ("url",) if c in pages_df.columns]
        info = {}
        if ids:
            for r in (pages_df.where(F.col("page_id").isin(ids))
                      .select("page_id", *extra, F.substring(F.coalesce("text", F.lit("")), 1, 600).alias("t"))
                      .collect()):
                info[r["page_id"]] = r
        for r in picked:
            a, b = info.get(r["page_id"]), info.get(r["kept_page_id"])
            d = {"page_id": r["page_id"], "kept_page_id": r["kept_page_id"], "similarity": r["similarity"],
                 "text": _excerpt(a["t"] if a else ""), "kept_text": _excerpt(b["t"] if b else "")}
            for c in extra:
                d[c] = a[c] if a else None
                d["kept_" + c] = b[c] if b else None
            sample_pairs.append(d)

    lap("sample")
    stats.update(clusters=clusters, removed=n_removed, cc_rounds=rounds)
    return NearDedupResult(kept=kept, duplicates=dups, counts=stats, sample_pairs=sample_pairs,
                           timings=timings)


def _unpersist(*dfs: DataFrame) -> None:
    """Release the cached tables, each once (``edges`` is ``cand`` when verification is off; None,
    a table never made, is skipped)."""
    for df in {id(x): x for x in dfs if x is not None}.values():
        df.unpersist()


def _no_near_duplicates(spark, pages_df: DataFrame, stats: dict, timings: dict) -> NearDedupResult:
    """The result when no pair survives: every page kept, an empty duplicates table."""
    empty = local_rows(spark, [], DUPLICATES)
    return NearDedupResult(kept=pages_df.select(*pages_df.columns), duplicates=empty, counts=stats,
                           sample_pairs=[], timings=timings)


def near_removals(spark, pages, cfg: Config, checkpoint_dir: str, log=print):
    """(counts, removed rows as DEDUP_REMOVED, the persisted input to unpersist once written)."""
    # near dedup reads its input several times: computed once (the earlier removals applied)
    docs = persisted(pages.select(*columns(profile_of(cfg).pages_schema)), StorageLevel.MEMORY_AND_DISK)
    res = near_dedup(spark, docs, cfg.dedup, checkpoint_dir)
    log("[ingest] near dedup seconds: " + ", ".join(f"{k} {v}" for k, v in (res.timings or {}).items()))
    dups = res.duplicates.select(*columns(DUPLICATES),
                                 F.lit(None).cast("string").alias("warc_file"),
                                 F.lit(None).cast("bigint").alias("warc_offset"))
    return dict(res.counts or {}), dups, docs
