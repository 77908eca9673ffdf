"""near_dedup on local[2]: known duplicates, chains, determinism, agreement with brute force."""
from __future__ import annotations

import gzip
import itertools
import json
import math
import random
from collections import defaultdict

import pytest

from corpus_pipeline.config import DedupConfig
from corpus_pipeline.stages.near_dedup import rules as mh
from corpus_pipeline.schemas import DUPLICATES, PAGES, columns, row

pytestmark = pytest.mark.spark


# ----------------------------------------------------------------- helpers
def _real_texts(shared_data, n: int, min_words: int = 120, max_words: int = 300) -> list[str]:
    """Distinct real documents (news, Common Crawl, maths sources), cut to max_words."""
    text_dir = shared_data / "text"
    sources = [text_dir / "negatives_general" / "article_extraction_benchmark_articles.jsonl",
               text_dir / "negatives_general" / "llm_webkit_nonmath_pages_groundtruth.jsonl",
               text_dir / "seed_sources" / "math_docs.jsonl"]
    sources += sorted((text_dir / "dolma_cc_en_head").glob("*.gz"))
    per_source = []
    for p in sources:
        opener = gzip.open if p.suffix == ".gz" else open
        docs = []
        with opener(p, "rt", encoding="utf-8") as f:
            for line in f:
                words = (json.loads(line).get("text") or "").split()
                if len(words) >= min_words:
                    docs.append(" ".join(words[:max_words]))
        per_source.append(docs)
    out, seen = [], set()
    for group in itertools.zip_longest(*per_source):   # interleave the sources
        for t in group:
            if t is not None and t not in seen:
                seen.add(t)
                out.append(t)
    return out[:n]


def _perturb(text: str, rate: float, rng: random.Random, vocab: list[str]) -> str:
    out = []
    for w in text.split():
        u = rng.random()
        if u < rate / 2:
            out.append(rng.choice(vocab))    # substitution
        elif u < rate:
            continue                         # deletion
        else:
            out.append(w)
    return " ".join(out)


def _pages_df(spark, items):
    rows = [row(PAGES, {"page_id": pid, "text": text, "url": f"https://example.org/{pid}"})
            for pid, text in items]
    from corpus_pipeline.spark.io import rows_to_df
    return rows_to_df(spark, rows, PAGES, num_slices=2)


def _run(spark, df, cfg, tmp_path, name):
    from corpus_pipeline.stages.near_dedup.step import near_dedup
    return near_dedup(spark, df, cfg, str(tmp_path / f"ckpt_{name}"))


def _clusters(dups_rows):
    """page_id -> survivor for every page in a cluster (survivors map to themselves)."""
    out = {}
    for r in dups_rows:
        out[r["page_id"]] = r["kept_page_id"]
        out[r["kept_page_id"]] = r["kept_page_id"]
    return out


# ----------------------------------------------------------------- known duplicates, chains, determinism
@pytest.fixture(scope="module")
def known(shared_data):
    texts = _real_texts(shared_data, 40)
    rng = random.Random(5)
    vocab = sorted({w for t in texts for w in t.split()})
    items, expect = [], {}
    # 10 pairs: original + one near-copy with 1% edits (Jaccard ~0.9)
    for i in range(10):
        a, b = f"k{i:02d}a", f"k{i:02d}b"
        items += [(a, texts[i]), (b, _perturb(texts[i], 0.01, rng, vocab))]
        expect[(a, b)] = True
    # 3 chains A~B~C where A and C are not similar enough, with the smallest id at A, B or C in turn
    chains = []
    for c, order in enumerate(["abc", "bac", "cab"]):
        base = texts[10 + c].split()
        half = len(base) // 2
        # every 20th word of one half replaced: ~75% of that half's shingles survive, so
        # J(A,B) = J(B,C) ~ 0.78 and J(A,C) ~ 0.6
        A = base
        B = [f"zb{p}" if p >= half and p % 20 == 10 else w for p, w in enumerate(base)]
        C = [f"zc{p}" if p < half and p % 20 == 10 else w for p, w in enumerate(B)]
        ids = [f"c{c}{order[j]}" for j in range(3)]
        chains.append(ids)
        items += [(ids[0], " ".join(A)), (ids[1], " ".join(B)), (ids[2], " ".join(C))]
    # 20 unrelated real pages, plus two pages that differ only in their maths
    items += [(f"u{i:02d}", texts[20 + i]) for i in range(20)]
    def drill(a):
        return " ".join(f"exercise {j}: solve x^2 + {j + a}x + {j * a} = 0, the roots are -{j} and -{a}."
                        for j in range(1, 40))
    eq = " ".join(f"step {j}: we have x^{j} + {j} = y_{j} and therefore" for j in range(60))
    items += [("m1", drill(3)), ("m2", drill(4)), ("m3", eq), ("m4", eq.replace("+", "-"))]
    # pages without text are never anybody's duplicate; short identical pages are
    items += [("e1", ""), ("e2", None), ("e3", "  \n "), ("t1", "a b c d e f g"), ("t2", "a b c d e f g")]
    return items, chains


KNOWN_CFG = dict(bands=20, rows=5, verify_jaccard=0.7, sample_pairs=5)   # threshold ~0.55


def _summary(res):
    dups = sorted(tuple(x) for x in res.duplicates.collect())
    kept = sorted(x[0] for x in res.kept.select("page_id").collect())
    return dups, kept, {k: v for k, v in res.counts.items() if k != "cc_rounds"}, res.sample_pairs


@pytest.fixture(scope="module")
def known_result(spark, known, tmp_path_factory):
    items, _ = known
    return _run(spark, _pages_df(spark, items), DedupConfig(**KNOWN_CFG), tmp_path_factory.mktemp("known"), "k")


def test_known_duplicates_chains_and_distinct_pages(known, known_result):
    items, chains = known
    sh = {pid: mh.shingles(t) for pid, t in items}
    text = {pid: t or "" for pid, t in items}
    # the premise of the chain test: A~B and B~C pass the check, A~C does not
    for a, b, c in chains:
        assert mh.jaccard(sh[a], sh[b]) >= 0.7 and mh.jaccard(sh[b], sh[c]) >= 0.7
        assert mh.jaccard(sh[a], sh[c]) < 0.7
    # same words, different maths: only the numbers / only the operators differ
    assert mh.jaccard(sh["m1"], sh["m2"]) < 0.5 and mh.jaccard(sh["m3"], sh["m4"]) < 0.6

    res = known_result
    dups = [r.asDict() for r in res.duplicates.collect()]
    assert res.duplicates.columns == columns(DUPLICATES)
    clusters = _clusters(dups)

    for i in range(10):
        a, b = f"k{i:02d}a", f"k{i:02d}b"
        assert clusters.get(a) is not None and clusters[a] == clusters[b]
    for ids in chains:
        assert len({clusters.get(x) for x in ids}) == 1 and clusters.get(ids[0]) is not None, ids
    for pid in [f"u{i:02d}" for i in range(20)] + ["m1", "m2", "m3", "m4", "e1", "e2", "e3"]:
        assert pid not in clusters
    assert clusters["t2"] == "t1"
    # survivor rule: longest text, then smallest page_id
    members = defaultdict(list)
    for pid, s in clusters.items():
        members[s].append(pid)
    for s, ms in members.items():
        assert s == min(ms, key=lambda p: (-len(text[p]), p))
    for r in dups:
        assert r["kind"] == "near"
        assert r["similarity"] == pytest.approx(mh.jaccard(sh[r["page_id"]], sh[r["kept_page_id"]]), abs=1e-9)
    kept = {r["page_id"] for r in res.kept.select("page_id").collect()}
    assert kept == {pid for pid, _ in items} - {r["page_id"] for r in dups}
    assert res.kept.columns == columns(PAGES)
    c = res.counts
    assert c["removed"] == len(dups) == 10 + 2 * 3 + 1
    assert c["clusters"] == 14 and c["no_shingles"] == 3
    assert c["verified_pairs"] <= c["candidate_pairs"]
    assert len(res.sample_pairs) == 5
    assert all(p["kept_page_id"] == clusters[p["page_id"]] and p["text"] for p in res.sample_pairs)


def test_same_result_across_partitions_and_reruns(spark, known, known_result, tmp_path):
    items, _ = known
    df = _pages_df(spark, items)
    cfg = DedupConfig(**KNOWN_CFG)
    first = _summary(known_result)              # 2 input partitions
    one = _summary(_run(spark, df.repartition(1), cfg, tmp_path, "p1"))
    four = _summary(_run(spark, df.repartition(4), cfg, tmp_path, "p4"))
    assert first[0] and first == one == four


def test_no_pair_left_skips_the_empty_steps(spark, known, tmp_path):
    """Distinct pages (no candidate pair), and pages whose candidates all fail verification:
    every page kept, an empty duplicates table of the right schema, and the steps after the
    last non-empty one not run (the timed steps the log shows)."""
    items, _ = known
    unrelated = [(p, t) for p, t in items if p.startswith("u")]
    base = [("x1", unrelated[0][1]), ("x2", unrelated[0][1])] + unrelated[1:]   # one exact pair
    cfg = DedupConfig(**KNOWN_CFG)
    res = _run(spark, _pages_df(spark, base), cfg, tmp_path, "a")
    assert _summary(res)[2]["removed"] == 1
    assert set(res.timings) == {"signatures", "candidates", "verify", "components", "survivors", "sample"}

    res = _run(spark, _pages_df(spark, unrelated), cfg, tmp_path, "b")
    dups, kept, counts, samples = _summary(res)
    assert counts["candidate_pairs"] == 0 and counts["removed"] == 0 and counts["clusters"] == 0
    assert dups == [] and samples == [] and kept == sorted(p for p, _ in unrelated)
    assert res.duplicates.columns == columns(DUPLICATES)
    assert set(res.timings) == {"signatures", "candidates"}

    # a 1%-edited copy (Jaccard about 0.9) is a candidate, and a check at 0.99 rejects it
    strict = DedupConfig(**{**KNOWN_CFG, "verify_jaccard": 0.99, "rescue_rounds": 0})
    pair = [(p, t) for p, t in items if p in ("k00a", "k00b")]
    res = _run(spark, _pages_df(spark, pair), strict, tmp_path, "c")
    dups, kept, counts, _ = _summary(res)
    assert counts["candidate_pairs"] == 1 and counts["verified_pairs"] == 0
    assert dups == [] and kept == ["k00a", "k00b"]
    assert set(res.timings) == {"signatures", "candidates", "verify"}


# ----------------------------------------------------------------- agreement with brute force
RATES = (0.004, 0.01, 0.02, 0.03, 0.045, 0.06, 0.08, 0.11, 0.15)


@pytest.fixture(scope="module")
def corpus(shared_data):
    """~240 real pages plus one perturbed copy each, with brute-force all-pairs Jaccard."""
    texts = _real_texts(shared_data, 240)
    rng = random.Random(17)
    vocab = sorted({w for t in texts[:50] for w in t.split()})
    items = []
    for i, t in enumerate(texts):
        items.append((f"r{i:03d}o", t))
        items.append((f"r{i:03d}p", _perturb(t, RATES[i % len(RATES)], rng, vocab)))
    sets = [mh.shingles(t) for _, t in items]
    sims = {}
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            s = mh.jaccard(sets[i], sets[j])
            if s > 0.0:
                sims[(items[i][0], items[j][0])] = s
    return items, sims


def union_find(nodes, edges):
    """find(node) -> its component's root in the graph of ``edges`` (union-find with path halving)."""
    parent = {n: n for n in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for a, b in edges:
        parent[find(a)] = find(b)
    return find


def _true_components(items, sims, t):
    """find(page) -> its component's root in the graph of pairs with true Jaccard >= t."""
    return union_find([p for p, _ in items], [pair for pair, s in sims.items() if s >= t])


def _same_cluster(clusters, a, b):
    return clusters.get(a) is not None and clusters.get(a) == clusters.get(b)


def _check_bucket(pairs, detected, bands, rows, lo, hi, label):
    """Observed detections among pairs with lo <= s < hi agree with the S-curve (binomial margin)."""
    sel = [(s, d) for s, d in zip(pairs, detected) if lo <= s < hi]
    if len(sel) < 10:
        return None
    ps = [mh.s_curve(s, bands, rows) for s, _ in sel]
    expected, sd = sum(ps), math.sqrt(sum(p * (1 - p) for p in ps))
    got = sum(d for _, d in sel)
    assert abs(got - expected) <= 4 * sd + 0.05 * len(sel) + 1, (label, lo, hi, got, expected, len(sel))
    return got, expected, len(sel)


def test_agreement_with_brute_force_no_verification(spark, corpus, tmp_path):
    """Without verification, two pages sharing a band end in one cluster: detection per
    similarity bucket follows 1-(1-s^r)^b, and unrelated pages are not merged."""
    items, sims = corpus
    bands, rows = 14, 8
    res = _run(spark, _pages_df(spark, items), DedupConfig(bands=bands, rows=rows, verify_jaccard=None,
                                                           sample_pairs=0), tmp_path, "bf_nover")
    clusters = _clusters([r.asDict() for r in res.duplicates.collect()])
    keys = list(sims)
    s_list = [sims[k] for k in keys]
    det = [_same_cluster(clusters, a, b) for a, b in keys]
    checked = [b for b in (_check_bucket(s_list, det, bands, rows, lo / 10, (lo + 1) / 10 + (lo == 9), "nover")
                           for lo in range(3, 10)) if b]
    assert len(checked) >= 4
    # pairs below 0.3 (and all pairs with no shared shingle) are essentially never merged
    low = [(s, d) for s, d in zip(s_list, det) if s < 0.3]
    n_pairs_total = len(items) * (len(items) - 1) // 2
    false_merges = sum(d for _, d in low) + sum(
        _same_cluster(clusters, a, b) for a, b in itertools.combinations([p for p, _ in items], 2)
        if (a, b) not in sims and clusters.get(a) is not None)
    expected_low = sum(mh.s_curve(s, bands, rows) for s, _ in low)
    assert false_merges <= expected_low + 4 * math.sqrt(expected_low + 1) + 2, (false_merges, expected_low,
                                                                                 n_pairs_total)


@pytest.fixture(scope="module")
def verified(spark, corpus, tmp_path_factory):
    """near_dedup of the corpus with exact verification at 0.7 (14 x 8 bands)."""
    items, _ = corpus
    return _run(spark, _pages_df(spark, items), DedupConfig(bands=14, rows=8, verify_jaccard=0.7, sample_pairs=0),
                tmp_path_factory.mktemp("verified"), "bf_ver")


def test_agreement_with_brute_force_verified(corpus, verified):
    """With verification at t: clusters never join pages that are not linked by pairs with
    Jaccard >= t (precision), and pairs >= t are found at the S-curve's rate (recall)."""
    items, sims = corpus
    bands, rows, t = 14, 8, 0.7
    res = verified
    dups = [r.asDict() for r in res.duplicates.collect()]
    clusters = _clusters(dups)
    # brute-force components of the graph of pairs with Jaccard >= t
    find = _true_components(items, sims, t)
    by_cluster = defaultdict(set)
    for p, s in clusters.items():
        by_cluster[s].add(p)
    for members in by_cluster.values():   # precision: every predicted cluster lies inside one true component
        assert len({find(p) for p in members}) == 1, members
    keys = [k for k, s in sims.items() if s >= t]
    s_list = [sims[k] for k in keys]
    det = [_same_cluster(clusters, a, b) for a, b in keys]
    # recall: being in one cluster is at least as likely as sharing a band
    found = sum(det)
    expected = sum(mh.s_curve(s, bands, rows) for s in s_list)
    sd = math.sqrt(sum(mh.s_curve(s, bands, rows) * (1 - mh.s_curve(s, bands, rows)) for s in s_list))
    assert found >= expected - 4 * sd - 0.05 * len(keys) - 1, (found, expected, len(keys))
    for lo, hi in ((0.7, 0.8), (0.8, 0.9), (0.9, 1.01)):
        sel = [d for s, d in zip(s_list, det) if lo <= s < hi]
        exp = sum(mh.s_curve(s, bands, rows) for s in s_list if lo <= s < hi)
        if len(sel) >= 10:
            assert sum(sel) >= exp - 4 * math.sqrt(exp * (1 - exp / len(sel)) + 1) - 0.05 * len(sel), (lo, hi)
    assert res.counts["removed"] == len(dups) and all(r["similarity"] > 0 for r in dups)


def test_signature_verification_estimates_jaccard_and_agrees_with_exact(spark, corpus, verified, tmp_path):
    """dedup.verify_with = signatures: each removed page's similarity is the share of agreeing
    MinHash positions (the pure reference, exactly); clusters only join pages linked by pairs of
    true Jaccard >= t - 0.15 (3.5 standard errors of the estimate); pairs clearly above t are
    found as often as with exact shingle verification."""
    items, sims = corpus
    bands, rows, t = 14, 8, 0.7
    common = dict(bands=bands, rows=rows, verify_jaccard=t, sample_pairs=0)
    est = _run(spark, _pages_df(spark, items), DedupConfig(verify_with="signatures", **common), tmp_path, "sig")
    exact = verified                                  # the same settings, exact shingle Jaccard
    assert est.counts["verify_with"] == "signatures" and exact.counts["verify_with"] == "shingles"
    dups = [r.asDict() for r in est.duplicates.collect()]
    assert dups
    sig = {pid: s for pid, _, s in mh.doc_signature_rows(items, bands * rows, 1, 5)}
    for r in dups:
        assert r["similarity"] == pytest.approx(mh.signature_similarity(sig[r["page_id"]], sig[r["kept_page_id"]]))
    find = _true_components(items, sims, t - 0.15)
    by_cluster = defaultdict(set)
    for p, k in _clusters(dups).items():
        by_cluster[k].add(p)
    for members in by_cluster.values():
        assert len({find(p) for p in members}) == 1, members
    c_est, c_exact = _clusters(dups), _clusters([r.asDict() for r in exact.duplicates.collect()])
    clear = [k for k, s in sims.items() if s >= 0.85]
    assert len(clear) >= 50
    found_est = sum(_same_cluster(c_est, a, b) for a, b in clear)
    found_exact = sum(_same_cluster(c_exact, a, b) for a, b in clear)
    assert found_est >= found_exact - max(2, 0.03 * len(clear)), (found_est, found_exact, len(clear))


def test_signature_similarity_reference():
    a = mh.doc_signature_rows([("x", "the quick brown fox jumps over the lazy dog " * 3)], 112, 1, 5)
    (_, n_chars, sa), = list(a)
    assert len(sa) == 112 and n_chars > 0
    assert mh.signature_similarity(sa, sa) == 1.0
    assert mh.signature_similarity(sa, [v + 1 for v in sa]) == 0.0
    assert mh.signature_similarity([], []) == 0.0 and mh.signature_similarity(sa, sa[:10]) == 0.0
    (_, _, empty), = list(mh.doc_signature_rows([("e", "")], 112, 1, 5))
    assert empty == []


# ----------------------------------------------------------------- nothing proportional to the corpus on the driver
@pytest.mark.slow
def test_50k_pages_with_tiny_max_result_size():
    """50k generated pages in a fresh session with spark.driver.maxResultSize=1m (subprocess)."""
    from bench.bench_minhash import run_job_subprocess

    out = run_job_subprocess(50_000, "1m", timeout=1800)
    assert out["max_result_size"] == "1m"
    c = out["counts"]
    assert out["kept"] == out["n"] - c["removed"]
    # copies with <= 2% edits (Jaccard >~ 0.8, S-curve >~ 0.92) are found; nothing much beyond the copies
    assert 0.85 * out["light_copies"] <= c["removed"] <= 1.02 * out["expected_copies"], out
    assert c["clusters"] <= c["removed"] and out["sample_pairs"] == 20


def test_connected_components_against_union_find(spark, tmp_path):
    """Long paths and a cycle need several large-star/small-star rounds; result = union-find."""
    from corpus_pipeline.spark.components import connected_components

    rng = random.Random(2)
    nodes = [f"n{rng.randrange(10**6):06d}" for _ in range(400)]
    nodes = sorted(set(nodes), key=lambda _: rng.random())
    edges = [(nodes[i], nodes[i + 1]) for i in range(0, 30)]                       # a path of 31 nodes
    edges += [(nodes[i], nodes[i + 1]) for i in range(70, 90)] + [(nodes[90], nodes[70])]  # a cycle
    edges += [(nodes[i], nodes[rng.randrange(100, 200)]) for i in range(100, 200)]  # random forest-ish
    edges += [(nodes[0], nodes[0])]                                                 # a self loop
    members = {n for e in edges for n in e}
    find = union_find(members, edges)
    groups = defaultdict(set)
    for n in members:
        groups[find(n)].add(n)
    expect = {n: min(g) for g in groups.values() for n in g}

    df = spark.createDataFrame(edges, "src STRING, dst STRING").repartition(3)
    comps, rounds = connected_components(df, str(tmp_path / "cc"), max_iterations=30)
    got = {r["node"]: r["component"] for r in comps.collect()}
    assert got == expect and rounds >= 2
    with pytest.raises(RuntimeError):
        connected_components(df, None, max_iterations=1)
    # the counts its convergence tests give (near dedup's verified pairs, removed pages, clusters)
    from corpus_pipeline.spark.components import components_counted

    comps2, rounds2, c = components_counted(df, str(tmp_path / "cc2"), max_iterations=30)
    undirected = {tuple(sorted(e)) for e in edges if e[0] != e[1]}
    assert c == {"input_edges": len(undirected), "nodes": len(expect), "components": len(groups),
                 "non_roots": len(expect) - len(groups)} and rounds2 == rounds
