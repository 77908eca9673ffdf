"""Pure MinHash functions: normalization, shingles, signatures, band keys, S-curve."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from corpus_pipeline.stages.near_dedup import rules as mh


def test_normalization_keeps_maths_distinct():
    assert mh.tokens("x^2 + 1 = 0") != mh.tokens("x^3 - 1 = 0")
    assert mh.tokens("a+b") != mh.tokens("a-b")
    assert mh.tokens("3.14") == ["3.14"] and mh.tokens("3.15") != mh.tokens("3.14")
    assert mh.tokens(r"\frac{a}{b} \leq c") == ["\\", "frac", "{", "a", "}", "{", "b", "}", "\\", "leq", "c"]
    # case, width and whitespace do not matter; sentence punctuation is dropped
    assert mh.tokens("The  Cat.\nSat!") == mh.tokens("the cat sat")
    assert mh.tokens("ＡＢＣ １２") == mh.tokens("abc 12")
    # CJK characters are tokens of their own
    assert mh.tokens("勾股定理") == ["勾", "股", "定", "理"]
    assert mh.tokens("设n个数x_i") == ["设", "n", "个", "数", "x", "_", "i"]
    shingles_a = mh.shingles("solve x^2 + 5x + 6 = 0 by factoring the left side", 5)
    shingles_b = mh.shingles("solve x^2 - 5x + 6 = 0 by factoring the left side", 5)
    assert shingles_a != shingles_b


def test_shingles_and_ids_agree():
    text = "one two three four five six seven eight one two three four five"
    s = mh.shingles(text, 5)
    ids = mh.shingle_ids(text, 5)
    assert len(s) == ids.size == 8  # the repeated 5-gram counts once
    assert mh.shingles("a b", 5) == {"a b"} and mh.shingle_ids("a b", 5).size == 1
    assert mh.shingles("", 5) == set() and mh.shingle_ids("  ", 5).size == 0
    # ids Jaccard equals string Jaccard on real-looking text
    rng = random.Random(3)
    words = [f"w{rng.randrange(300)}" for _ in range(400)]
    other = list(words)
    for i in rng.sample(range(len(other)), 40):
        other[i] = "zz"
    a, b = " ".join(words), " ".join(other)
    assert mh.jaccard(mh.shingles(a), mh.shingles(b)) == pytest.approx(
        mh.jaccard(mh.shingle_ids(a), mh.shingle_ids(b)))


def test_jaccard_edges():
    assert mh.jaccard(set(), set()) == 0.0
    assert mh.jaccard({"a"}, {"a"}) == 1.0
    assert mh.jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    x = np.array([1, 2, 3], dtype=np.uint64)
    assert mh.jaccard(x, np.array([3, 4], dtype=np.uint64)) == pytest.approx(0.25)


def test_signatures_are_deterministic_and_pinned():
    texts = ["alpha beta gamma delta epsilon zeta eta theta", "", "x^2 + y^2 = z^2 holds for 3 4 5"]
    a = mh.signatures(texts, 112, 1)
    b = mh.signatures(texts, 112, 1)
    assert a[1] is None and b[1] is None
    for x, y in zip(a, b):
        if x is not None:
            assert x.dtype == np.uint32 and x.size == 112 and np.array_equal(x, y)
    c = mh.signatures(texts, 112, 2)
    assert not np.array_equal(a[0], c[0])  # seed matters
    from datasketch import MinHash
    m = MinHash(num_perm=112, seed=1, scheme=mh.SCHEME, hashfunc=mh._identity)
    ids = mh.shingle_ids(texts[0])
    m.update_batch(((ids & np.uint64(0xFFFFFFFF)).astype(np.uint32)).tolist())
    assert np.array_equal(m.hashvalues, a[0])   # same as datasketch's own affine32 path
    assert mh.SCHEME == "affine32"


def test_huge_document_in_batches():
    words = " ".join(f"t{i}" for i in range(30_000))
    sig = mh.Signer(64, 1).signature(words)
    # against one big update_batch
    from datasketch import MinHash
    m = MinHash(num_perm=64, seed=1, scheme=mh.SCHEME, hashfunc=mh._identity)
    m.update_batch(((mh.shingle_ids(words) & np.uint64(0xFFFFFFFF)).astype(np.uint32)).tolist())
    assert np.array_equal(sig, m.hashvalues)


def test_band_keys():
    sig = mh.Signer(112, 1).signature("a b c d e f g h i j k l m n o p")
    keys = mh.band_keys(sig, 14, 8)
    assert len(keys) == 14 and len(set(keys)) == 14
    assert all(-(2 ** 63) <= k < 2 ** 63 for k in keys)
    other = sig.copy()
    other[8 * 3] ^= 1   # change one row of band 3
    k2 = mh.band_keys(other, 14, 8)
    assert [i for i in range(14) if keys[i] != k2[i]] == [3]
    # equal band contents in different bands give different keys
    flat = np.zeros(16, dtype=np.uint32)
    k3 = mh.band_keys(flat, 2, 8)
    assert k3[0] != k3[1]
    with pytest.raises(ValueError):
        mh.band_keys(sig[:10], 14, 8)


def test_s_curve():
    assert mh.s_curve(0.0, 14, 8) == 0.0 and mh.s_curve(1.0, 14, 8) == 1.0
    vals = [mh.s_curve(s / 10, 14, 8) for s in range(11)]
    assert vals == sorted(vals)
    t = mh.threshold(14, 8)
    assert 0.65 < t < 0.8
    assert mh.s_curve(0.9, 14, 8) > 0.99 and mh.s_curve(0.5, 14, 8) < 0.06


def _perturb(words, rate, rng, vocab):
    out = []
    for w in words:
        u = rng.random()
        if u < rate / 2:
            out.append(rng.choice(vocab))       # substitution
        elif u < rate:
            continue                            # deletion
        else:
            out.append(w)
    return out


def test_band_collisions_follow_s_curve(shared_data):
    """Per similarity bucket, the share of pairs with a common band key matches 1-(1-s^r)^b."""
    texts = []
    with open(shared_data / "text" / "seed_sources" / "math_docs.jsonl", encoding="utf-8") as f:
        for line in f:
            words = json.loads(line)["text"].split()
            if len(words) >= 200:
                texts.append(" ".join(words[:400]))   # keep the test fast
    texts = texts[:150]
    rng = random.Random(11)
    bands, rows = 14, 8
    signer = mh.Signer(bands * rows, 1)
    vocab = sorted({w for t in texts[:20] for w in t.split()})
    by_bucket: dict[int, list[tuple[float, bool]]] = {}
    for i, t in enumerate(texts):
        words = t.split()
        for rate in (0.01, 0.03, 0.05, 0.08, 0.12, 0.2):
            p = " ".join(_perturb(words, rate, rng, vocab))
            s = mh.jaccard(mh.shingle_ids(t), mh.shingle_ids(p))
            ka = set(enumerate(mh.band_keys(signer.signature(t), bands, rows)))
            kb = set(enumerate(mh.band_keys(signer.signature(p), bands, rows)))
            by_bucket.setdefault(int(s * 10), []).append((s, bool(ka & kb)))
    checked = 0
    for bucket, pairs in sorted(by_bucket.items()):
        if len(pairs) < 20:
            continue
        expected = sum(mh.s_curve(s, bands, rows) for s, _ in pairs)
        var = sum(mh.s_curve(s, bands, rows) * (1 - mh.s_curve(s, bands, rows)) for s, _ in pairs)
        got = sum(hit for _, hit in pairs)
        assert abs(got - expected) <= 4 * math.sqrt(var) + 0.03 * len(pairs) + 1, (bucket, got, expected, len(pairs))
        checked += 1
    assert checked >= 4
