"""Spark layer of the classifier: training from pages + seed, scoring equal to local
scoring row for row, exact selection by threshold and by token budget."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from corpus_pipeline import classify as C
from corpus_pipeline import schemas
from corpus_pipeline.config import ClassifierConfig, SelectConfig
from corpus_pipeline.text import count_tokens

pytestmark = pytest.mark.spark

# dim/bucket small: these tests are about the Spark layer, not the model's quality; one pool of
# negatives (the per-language draw is test_negatives_follow_the_positives_languages)
CFG = ClassifierConfig(dim=32, bucket=20000, score_batch_size=7, negatives_per_positive=1.0,
                       negatives_by_language=False)


@pytest.fixture(scope="module")
def data(shared_data, spark):
    from corpus_pipeline.seeds import render_markup
    from corpus_pipeline.spark.io import rows_to_df

    src = shared_data / "text" / "seed_sources"
    math = [json.loads(line) for line in open(src / "math_docs.jsonl", encoding="utf-8")]
    non = [json.loads(line) for line in open(src / "nonmath_docs.jsonl", encoding="utf-8")]
    math_texts = [render_markup(r["text"], r["format"])[:2500] for r in math[::4]]     # 127
    non_texts = [render_markup(r["text"], r["format"])[:2500] for r in non]             # 198
    page_texts = math_texts[:60] + non_texts + [None, ""]
    pages = []
    for i, t in enumerate(page_texts):
        pages.append(schemas.row(schemas.PAGES, {"page_id": f"p{i:04d}", "url": f"https://h{i % 9}.example/{i}",
                                                 "host": f"h{i % 9}.example", "text": t,
                                                 "n_tokens": count_tokens(t or "")}))
    seed = [schemas.row(schemas.SEED, {"seed_id": f"s-doc-{i:03d}", "page_id": None, "source": "seed",
                                       "added_in": 1, "text": t}) for i, t in enumerate(math_texts[60:])]
    seed += [schemas.row(schemas.SEED, {"seed_id": f"s-page-{i:03d}", "page_id": f"p{i:04d}",
                                        "source": "path:h.example/x", "added_in": 2, "text": None})
             for i in range(0, 60, 3)]
    pages_df = rows_to_df(spark, pages, schemas.PAGES, num_slices=3)
    seed_df = rows_to_df(spark, seed, schemas.SEED, num_slices=2)
    return {"pages_df": pages_df, "seed_df": seed_df, "pages": pages, "seed": seed}


def _texts(df):
    return sorted((r["uid"], r["text"]) for r in df.collect())


def test_training_sets_positives_and_deterministic_negatives(spark, data):
    from corpus_pipeline.spark.classify import training_sets

    pos_df, neg_df, counts = training_sets(spark, data["pages_df"], data["seed_df"], CFG, 5)
    pos, neg = [t for _, t in _texts(pos_df)], [t for _, t in _texts(neg_df)]
    n_seed = len(data["seed"])
    assert len(pos) == n_seed == len(neg) == counts["seed_positives"] == counts["sampled_negatives"]
    by_id = {r[0]: r[5] for r in data["pages"]}
    seed_pages = {r[1] for r in data["seed"] if r[1]}
    assert {by_id[p] for p in seed_pages} <= set(pos)                  # page seeds got their page's text
    assert not set(neg) & {by_id[p] for p in seed_pages}               # negatives are never seeds
    assert all(t and t.strip() for t in neg)
    # the negatives are the n pages with the smallest xxhash64(page_id, seed) (a plain reference)
    import pyspark.sql.functions as F
    ranked = (data["pages_df"].where(F.length(F.trim(F.coalesce("text", F.lit("")))) > 0)
              .where(~F.col("page_id").isin(sorted(seed_pages)))
              .select("page_id", F.xxhash64("page_id", F.lit(5)).alias("h")).collect())
    want = [p for _, p in sorted((r["h"], r["page_id"]) for r in ranked)[:n_seed]]
    assert sorted(u for u, _ in _texts(neg_df)) == sorted(want)
    # same sample whatever the partitioning; another seed gives another sample
    p2, n2, _ = training_sets(spark, data["pages_df"].repartition(5), data["seed_df"].repartition(3), CFG, 5)
    assert (_texts(p2), _texts(n2)) == (_texts(pos_df), _texts(neg_df))
    _, n3, _ = training_sets(spark, data["pages_df"], data["seed_df"], CFG, 6)
    assert set(_texts(n3)) != set(_texts(neg_df))


def test_negatives_follow_the_positives_languages(spark, data):
    """Per language in the positives' proportions, other languages at their crawl share, the shipped
    background set where the crawl is short of a language, repeated texts when even that is short."""
    from dataclasses import replace

    from corpus_pipeline.seeds import load_background
    from corpus_pipeline.spark.classify import training_sets
    from corpus_pipeline.spark.io import rows_to_df

    langs = {"en": 120, "zh": 6, "de": 40}                  # a crawl short of Chinese pages
    pages, k = [], 0
    for lang, n in langs.items():
        for _ in range(n):
            text = f"{lang} page {k} " + " ".join(random.Random(k).choice(["alpha", "river", "market", "song"])
                                                   for _ in range(40))
            pages.append(schemas.row(schemas.PAGES, {"page_id": f"q{k:04d}", "url": f"https://{lang}.example/{k}",
                                                     "host": f"{lang}.example", "text": text, "lang": lang}))
            k += 1
    en = [r for r in data["seed"] if r[4]][:30]
    zh_seed = [schemas.row(schemas.SEED, {"seed_id": f"z{i}", "page_id": None, "source": "seed", "added_in": 1,
                                          "text": "设 $a$ 为整数，证明 $a^2$ 除以 4 的余数是 0 或 1。" * (i + 1)})
               for i in range(10)]
    pages_df = rows_to_df(spark, pages, schemas.PAGES, num_slices=3)
    seed_df = rows_to_df(spark, en + zh_seed, schemas.SEED, num_slices=2)
    cfg = replace(CFG, negatives_by_language=True, negatives_per_positive=2.0)
    pos, neg, c = training_sets(spark, pages_df, seed_df, cfg, 5)
    assert c["positives_by_language"] == {"en": 30, "zh": 10}
    assert c["available_by_language"] == langs
    n_neg = 80
    de_share = round(n_neg * 40 / 166)                       # German keeps its share of the crawl
    by = c["negatives_by_language"]
    assert by["*"] == de_share and by["zh"] + by["en"] == n_neg - de_share
    assert by["zh"] == round((n_neg - de_share) * 10 / 40) and by["en"] == (n_neg - de_share) - by["zh"]
    rows = neg.collect()
    assert len(rows) == n_neg == c["sampled_negatives"] and len({r["uid"] for r in rows}) == n_neg
    zh_rows = [r for r in rows if r["uid"].startswith("bg:zh") or r["text"].startswith("zh ")]
    assert len(zh_rows) == by["zh"]                           # 6 crawl pages, the rest from the background
    assert c["background_negatives"] == by["zh"] - 6 > 0
    assert {r["text"] for r in zh_rows if r["uid"].startswith("bg:")} <= set(load_background("zh"))
    # the same draw whatever the partitioning
    _, neg2, _ = training_sets(spark, pages_df.repartition(4), seed_df.repartition(3), cfg, 5)
    assert sorted(r["uid"] for r in neg2.collect()) == sorted(r["uid"] for r in rows)
    # without the background: the six Chinese pages repeated to the quota
    _, neg3, c3 = training_sets(spark, pages_df, seed_df, replace(cfg, background_negatives=False), 5)
    zh3 = [r for r in neg3.collect() if r["text"].startswith("zh ")]
    assert len(zh3) == by["zh"] and len({r["text"] for r in zh3}) == 6 and c3["repeated_negatives"] == {"zh": by["zh"] - 6}
    assert c3["background_negatives"] == 0
    # capped positives: the same hash-smallest seeds as without languages, counted per language
    capped = replace(cfg, max_positives=25)
    pos4, _, c4 = training_sets(spark, pages_df, seed_df, capped, 5)
    pos5, _, c5 = training_sets(spark, pages_df, seed_df, replace(capped, negatives_by_language=False), 5)
    assert _texts(pos4) == _texts(pos5) and len(_texts(pos4)) == 25
    assert c4["seed_positives_available"] == c5["seed_positives_available"] == 40
    got = Counter("zh" if r["uid"].startswith("z") else "en" for r in pos4.collect())
    assert c4["positives_by_language"] == dict(got) and sum(got.values()) == 25


def test_training_set_caps_and_files_do_not_depend_on_partitioning(spark, data, tmp_path):
    """Caps respected, samples deterministic for a seed, and the training / held-out files
    written by the executors are byte-identical for any partitioning."""
    from dataclasses import replace

    from corpus_pipeline.spark import sample
    from corpus_pipeline.spark.classify import HELDOUT_LINES, TRAIN_LINES, training_sets, write_training_files

    cfg = replace(CFG, max_positives=17, max_negatives=9)
    old = sample.WINDOW_ROWS
    sample.WINDOW_ROWS = 5              # force the bucket narrowing on this small input
    try:
        runs = []
        for k, (np_, ns) in enumerate(((3, 2), (7, 1), (1, 4))):
            pos, neg, c = training_sets(spark, data["pages_df"].repartition(np_), data["seed_df"].repartition(ns),
                                        cfg, 9)
            out = tmp_path / f"r{k}"
            counts = write_training_files(spark, pos, neg, cfg, 9, str(out))
            files = []
            for name in (TRAIN_LINES, HELDOUT_LINES):
                parts = sorted(p for p in (out / name).iterdir() if p.name.startswith("part-"))
                files.append("".join(p.read_text(encoding="utf-8") for p in parts))
            runs.append((_texts(pos), _texts(neg), c, counts, files))
    finally:
        sample.WINDOW_ROWS = old
    pos, neg, c, counts, (train, held) = runs[0]
    assert len(pos) == 17 and len(neg) == 9 and c["seed_positives_available"] == len(data["seed"]) > 17
    assert all(r[:2] == (pos, neg) and r[4] == [train, held] for r in runs[1:])
    # the cap keeps the 17 seeds with the smallest xxhash64(seed_id, 9)
    import pyspark.sql.functions as F
    ranked = sorted((r["h"], r["seed_id"]) for r in data["seed_df"].select(
        "seed_id", F.xxhash64("seed_id", F.lit(9)).alias("h")).collect())
    assert [u for u, _ in pos] == sorted(s for _, s in ranked[:17])
    lines = train.splitlines()
    math = [ln for ln in lines if ln.startswith(C.LABEL_MATH + " ")]
    other = [ln for ln in lines if ln.startswith(C.LABEL_OTHER + " ")]
    assert len(math) + len(other) == len(lines) and abs(len(math) - len(other)) == 0      # balanced
    assert counts["train_positives"] + counts["holdout_positives"] == 17
    assert counts["train_negatives"] + counts["holdout_negatives"] == 9
    assert len(held.splitlines()) == counts["holdout_positives"] + counts["holdout_negatives"]
    # `corpus-pipeline train` (in memory) holds out exactly the documents the loop's Spark step holds out
    expected = []
    for label, docs in ((C.LABEL_MATH, pos), (C.LABEL_OTHER, neg)):
        _, ho = C.split_holdout([t for _, t in docs], cfg.holdout_fraction, 9, label)
        expected += [f"{label} {C.prepare(t, cfg.max_words)}" for t in ho]
    assert expected and sorted(held.splitlines()) == sorted(expected)
    # another seed: another order
    pos2, neg2, _ = training_sets(spark, data["pages_df"], data["seed_df"], cfg, 10)
    assert _texts(pos2) != pos


@pytest.fixture(scope="module")
def model_dir(spark, data, tmp_path_factory):
    from corpus_pipeline.spark.classify import train_iteration

    d = str(tmp_path_factory.mktemp("iter") / "model")
    m = train_iteration(spark, data["pages_df"], data["seed_df"], d, CFG, 11)
    assert m["seed_positives"] == len(data["seed"]) and m["sampled_negatives"] == len(data["seed"])
    assert m["train_positives"] + m["holdout_positives"] == len(data["seed"])
    return d


def test_train_iteration_writes_model_and_metrics(model_dir):
    from pathlib import Path

    m = json.loads((Path(model_dir) / "metrics.json").read_text())
    assert (Path(model_dir) / "model.bin").stat().st_size == m["model_bytes"] > 0
    for k in ("precision", "recall", "f1", "pr_curve", "holdout_positives", "train_seconds"):
        assert k in m
    assert m["precision"] is None or 0 <= m["precision"] <= 1


@pytest.mark.parametrize("via_files", [False, True])
def test_spark_scores_equal_local_scores(spark, data, model_dir, via_files):
    from corpus_pipeline.spark.classify import score_pages

    df = score_pages(spark, data["pages_df"].repartition(4), model_dir, CFG, via_spark_files=via_files)
    assert df.schema.simpleString() == "struct<page_id:string,score:double>"
    got = {r["page_id"]: r["score"] for r in df.collect()}
    model = C.load_model(model_dir + "/model.bin")
    want = dict(zip([r[0] for r in data["pages"]], C.predict_proba(model, [r[5] for r in data["pages"]], CFG)))
    assert got == want                                                  # exact, row for row
    assert len(set(want.values())) > 20


def _reference(scores: dict, tokens: dict, budget: int) -> set:
    out, acc = set(), 0
    for pid in sorted(scores, key=lambda p: (-scores[p], p)):
        acc += tokens.get(pid) or 0
        if acc > budget:
            break
        out.add(pid)
    return out


def test_select_pages_threshold_and_exact_budgets(spark):
    from corpus_pipeline.spark.classify import select_pages
    from corpus_pipeline.spark.io import rows_to_df

    rng = random.Random(3)
    ids = [f"q{i:05d}" for i in range(1500)]
    # many exact ties, near-ties inside one budget bucket, 0.0, 1.0 and rounding-edge values
    values = [0.0, 1.0, 0.5, 0.25, 0.9999999, 1 - 2 ** -17, 0.7] + [rng.random() for _ in range(40)]
    scores = {p: (rng.choice(values) if rng.random() < 0.6 else rng.random()) for p in ids}
    tokens = {p: (None if rng.random() < 0.02 else rng.choice([0, 1, 5, 50, 300, 1200])) for p in ids}
    scores_df = rows_to_df(spark, [(p, s) for p, s in scores.items()], schemas.SCORES, num_slices=4)
    pages_df = rows_to_df(spark, [schemas.row(schemas.PAGES, {"page_id": p, "n_tokens": tokens[p]}) for p in ids],
                          schemas.PAGES, num_slices=3)
    total = sum(t or 0 for t in tokens.values())

    def run(cfg):
        df = select_pages(spark, scores_df, pages_df, cfg)
        assert df.columns == schemas.columns(schemas.COLLECTED)
        rows = df.collect()
        assert all(r["score"] == scores[r["page_id"]] and r["n_tokens"] == (tokens[r["page_id"]] or 0) for r in rows)
        return {r["page_id"] for r in rows}

    assert run(SelectConfig(mode="threshold", threshold=0.5)) == {p for p, s in scores.items() if s >= 0.5}
    order = sorted(ids, key=lambda p: (-scores[p], p))
    exact = sum(tokens[p] or 0 for p in order[:377])                    # a budget met exactly
    for budget in (1, exact, total // 3, total * 2):
        got = run(SelectConfig(mode="tokens", token_budget=budget))
        assert got == _reference(scores, tokens, budget), budget
        assert sum(tokens[p] or 0 for p in got) <= budget
        if budget == exact:
            assert got >= set(order[:377])
    got = run(SelectConfig(mode="fraction", token_fraction=0.5))
    assert got == _reference(scores, tokens, int(0.5 * total))
