"""No single-task hot spots: a page copied 5,000 times (one huge LSH bucket per band) and
2,000 pages with the same score (one budget bucket).  Results equal a plain reference, and
the rows of the big bucket / the tied pages are spread over tasks (row counts per
partition and per join key)."""
from __future__ import annotations

import random
from collections import defaultdict

import pytest

from corpus_pipeline import schemas
from corpus_pipeline.config import DedupConfig, SelectConfig
from corpus_pipeline.stages.near_dedup import rules as mh

from test_classify_spark import _reference as budget_reference   # the same straightforward rule
from test_near_dedup import union_find

pytestmark = pytest.mark.spark

COPIES = 5000


def _real_texts(shared_data, n):
    import json

    out = []
    with open(shared_data / "text" / "negatives_general" / "article_extraction_benchmark_articles.jsonl",
              encoding="utf-8") as f:
        for line in f:
            words = (json.loads(line).get("text") or "").split()
            if len(words) >= 200:
                out.append(words[:250])
            if len(out) >= n:
                break
    assert len(out) == n
    return out


@pytest.fixture(scope="module")
def skewed(shared_data):
    texts = _real_texts(shared_data, 61)
    items = [(f"dup{i:05d}", " ".join(texts[0])) for i in range(COPIES)]        # one page, 5,000 times
    for i, w in enumerate(texts[1:41]):                                          # 40 pairs, J ~ 0.98
        items += [(f"p{i:02d}a", " ".join(w)), (f"p{i:02d}b", " ".join(w[:-1] + ["changed"]))]
    triples = []
    for i, w in enumerate(texts[41:61]):
        # a (the smallest id) = b plus 120 other words: J(a, b) ~ 0.66 < 0.7, J(b, c) ~ 0.98
        extra = [f"x{i}w{j}" for j in range(120)]
        ids = (f"t{i:02d}a", f"t{i:02d}b", f"t{i:02d}c")
        items += [(ids[0], " ".join(w + extra)), (ids[1], " ".join(w)), (ids[2], " ".join(w[:-1] + ["other"]))]
        triples.append(ids)
    return items, triples


def _reference(items, t):
    """Components of the graph of all pairs with shingle Jaccard >= t; survivor = longest
    text, then smallest page_id: {removed page: survivor}."""
    by_text = defaultdict(list)
    for pid, text in items:
        by_text[text].append(pid)
    reps = [(sorted(ps)[0], text) for text, ps in by_text.items()]
    edges = [(p, ps[0]) for ps in by_text.values() for p in ps[1:]]
    sets = [mh.shingles(text) for _, text in reps]
    edges += [(reps[i][0], reps[j][0]) for i in range(len(reps)) for j in range(i + 1, len(reps))
              if mh.jaccard(sets[i], sets[j]) >= t]
    find = union_find([pid for pid, _ in items], edges)
    length = dict((pid, len(text)) for pid, text in items)
    comps = defaultdict(list)
    for pid, _ in items:
        comps[find(pid)].append(pid)
    out = {}
    for members in comps.values():
        if len(members) > 1:
            keep = min(members, key=lambda p: (-length[p], p))
            out.update({p: keep for p in members if p != keep})
    return out


def test_huge_bucket_spread_and_equal_to_reference(spark, skewed, tmp_path):
    from pyspark.sql import functions as F

    from corpus_pipeline.spark.arrow import map_rows
    from corpus_pipeline.spark.io import rows_to_df
    from corpus_pipeline.stages.near_dedup.step import (BANDS_DDL, GROUP_COLS, _band_partition, bucket_groups,
                                               group_edges, near_dedup)

    items, triples = skewed
    cfg = DedupConfig(verify_jaccard=0.7, sample_pairs=0)
    rows = [schemas.row(schemas.PAGES, {"page_id": p, "text": t}) for p, t in items]
    pages = rows_to_df(spark, rows, schemas.PAGES, num_slices=4)
    res = near_dedup(spark, pages, cfg, str(tmp_path / "ckpt"))
    got = {r["page_id"]: r["kept_page_id"] for r in res.duplicates.collect()}
    want = _reference(items, 0.7)
    assert got == want
    assert sum(1 for p in got if p.startswith("dup")) == COPIES - 1
    for a, b, c in triples:
        assert got.get(b, b) == got.get(c, c) and a not in got and a not in got.values()
    # spread: no join key (group) holds more than a bounded share of the big bucket
    band = map_rows(pages.select("page_id", "text"),
                    _band_partition(cfg.bands, cfg.rows, cfg.minhash_seed, cfg.shingle_size), BANDS_DDL)
    groups = bucket_groups(band, cfg.sub_buckets)
    biggest = groups.groupBy(*GROUP_COLS).count().agg(F.max("count")).first()[0]
    assert biggest <= 3 * COPIES // cfg.sub_buckets, biggest             # a window task held all 5,000
    # rows per task of the join that builds the edges (adaptive coalescing off: at this tiny
    # size it would merge every shuffle partition into one task, whatever the keys)
    key = "spark.sql.adaptive.coalescePartitions.enabled"
    old = spark.conf.get(key)
    spark.conf.set(key, "false")
    try:
        per_part = group_edges(groups).where(F.col("band") == 0).rdd.glom().map(len).collect()
    finally:
        spark.conf.set(key, old)
    assert sum(per_part) >= COPIES - 1 and max(per_part) <= 0.6 * sum(per_part), per_part


def test_pair_unlike_its_bucket_root_is_still_found(spark, skewed, tmp_path):
    """One band of one row: a, b, c share the bucket whenever their minimum shingle hash
    agrees; the root a (smallest id) is unlike both b and c, so only the rescue round
    compares b with c."""
    from corpus_pipeline.spark.io import rows_to_df
    from corpus_pipeline.stages.near_dedup.step import near_dedup

    _, triples = skewed
    items = [x for x in skewed[0] if x[0][0] == "t"]
    cfg = DedupConfig(bands=1, rows=1, verify_jaccard=0.7, sample_pairs=0)
    keys = {pid: key for pid, _, key in mh.doc_band_rows(items, 1, 1, cfg.minhash_seed, cfg.shingle_size)}
    shared_root = [t for t in triples if keys[t[0]] == keys[t[1]] == keys[t[2]]]
    assert len(shared_root) >= 5                     # the case happens (~65% of triples)
    rows = [schemas.row(schemas.PAGES, {"page_id": p, "text": t}) for p, t in items]
    res = near_dedup(spark, rows_to_df(spark, rows, schemas.PAGES, num_slices=2), cfg, str(tmp_path / "c"))
    got = {r["page_id"]: r["kept_page_id"] for r in res.duplicates.collect()}
    for a, b, c in triples:
        if keys[b] == keys[c]:
            assert got.get(b, b) == got.get(c, c) != a and a not in got, (a, b, c)
    assert res.counts["rescued_pairs"] >= len(shared_root)
    cfg0 = DedupConfig(bands=1, rows=1, verify_jaccard=0.7, sample_pairs=0, rescue_rounds=0)
    res0 = near_dedup(spark, rows_to_df(spark, rows, schemas.PAGES, num_slices=2), cfg0, str(tmp_path / "c0"))
    got0 = {r["page_id"] for r in res0.duplicates.collect()}
    assert all(t[1] not in got0 and t[2] not in got0 for t in shared_root)    # without rescue: missed


def test_tied_scores_spread_and_equal_to_reference(spark):
    from corpus_pipeline.spark.classify import select_pages
    from corpus_pipeline.spark.io import rows_to_df

    rng = random.Random(7)
    ids = [f"q{i:05d}" for i in range(3000)]
    scores = {p: (1.0 if i < 2000 else rng.random() * 0.9) for i, p in enumerate(ids)}   # 2,000 at exactly 1.0
    tokens = {p: rng.choice([1, 5, 50, 300]) for p in ids}
    scores_df = rows_to_df(spark, list(scores.items()), schemas.SCORES, num_slices=4)
    pages_df = rows_to_df(spark, [schemas.row(schemas.PAGES, {"page_id": p, "n_tokens": tokens[p]}) for p in ids],
                          schemas.PAGES, num_slices=3)
    tied = sum(tokens[p] for p in ids[:2000])
    key = "spark.sql.adaptive.coalescePartitions.enabled"    # at this size it would merge all tasks into one
    old = spark.conf.get(key)
    spark.conf.set(key, "false")
    try:
        for budget in (tied // 3, tied - 1):
            stats = {}
            got = {r["page_id"] for r in select_pages(spark, scores_df, pages_df,
                                                      SelectConfig(mode="tokens", token_budget=budget),
                                                      stats=stats).collect()}
            assert got == budget_reference(scores, tokens, budget)
            parts = stats["edge_partition_rows"]
            assert sum(parts) == 2000 and len(parts) >= 2 and max(parts) <= 0.6 * 2000, parts
    finally:
        spark.conf.set(key, old)
