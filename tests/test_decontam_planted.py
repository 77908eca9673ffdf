"""Decontamination of benchmark text written in formulas (pure), on planted cases built from the
shared benchmark sets and real maths pages: MATH solution blocks that are mostly formula (as they are,
TeX-varied, hard-wrapped), short and 10-12-token formula problems pasted whole as a line, one item on
many pages; and the generic runs that share tokens with benchmarks but no text (counting sequences,
bit strings, array headers, generic matrices, primes, standard identities, stock sentences) on clean
pages, which must keep every line.  The canaries (:mod:`corpus_pipeline.canaries`) are checked here
too: the rule as shipped catches the planted kinds, a rule broken on purpose shows a low figure."""
from __future__ import annotations

import gzip
import json
import random
import re
from dataclasses import replace

import pytest

from corpus_pipeline import canaries as C
from corpus_pipeline import decontam as D
from corpus_pipeline.config import DecontamConfig
from corpus_pipeline.seeds import render_markup
import reference

pytestmark = pytest.mark.slow          # the index of every shared benchmark (about 20 s)

_BLOCK = re.compile(r"\\\[(.+?)\\\]|\\begin\{align\*?\}(.+?)\\end\{align\*?\}", re.S)


@pytest.fixture(scope="module")
def full(shared_data):
    cfg = DecontamConfig()
    bm = D.load_benchmarks(shared_data / "benchmarks", cfg)
    return bm, D.build_index(bm, cfg), cfg


@pytest.fixture(scope="module")
def hosts(shared_data, full):
    """Clean real maths pages (cp-algorithms, StatProofBook, ... as the crawl serves them): 2-8 kB each,
    no contamination row."""
    _bm, index, cfg = full
    out = []
    with gzip.open(shared_data / "text" / "web_sources" / "math_web_en.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            text = render_markup(r["text"], r.get("format") or "text")
            if 2000 <= len(text) <= 8000 and not D.decontaminate_text(text, index, cfg).rows:
                out.append(text)
    assert len(out) >= 60
    return out[::max(1, len(out) // 60)][:60]


def formula_blocks(bm, n: int = 30, seed: int = 3) -> list:
    """(item, block) of MATH test solutions: display blocks of 20+ tokens that are mostly formula (under
    a fifth of their tokens words) with 3 or more distinct numbers of two or more digits (the item's
    data, not a generic identity)."""
    out = []
    for it in bm.items:
        if it.benchmark != "math":
            continue
        for sol in it.texts[1:]:
            for m in _BLOCK.finditer(sol):
                block = m.group(0)
                toks = D.raw_tokens(block)
                nums = {t for t in toks if t.isdigit() and len(t) >= 2}
                if len(toks) >= 20 and sum(map(D.is_word, toks)) < 0.2 * len(toks) and len(nums) >= 3:
                    out.append((it, block))
    assert len(out) >= 200
    return random.Random(seed).sample(out, n)


def _planted(host: str, block: str, rng) -> tuple[str, list]:
    return C.plant(host, block, rng)


def _removed_share(text: str, planted: list, r) -> float:
    lines = text.split("\n")
    total = sum(len(D.tokens(lines[i])) for i in planted)
    if r.removed:
        return 1.0
    return sum(len(D.tokens(lines[i])) for i in planted if i in set(r.removed_lines)) / total


def test_tex_variants_tokenise_alike():
    """The TeX written differently for one formula gives the same tokens, on both sides."""
    a = "$\\frac{25}{3} \\cdot \\frac{27}{300} = (x+1) \\le 5$ cm"
    b = "$\\displaystyle\\dfrac{25}{3}\\,\\cdot\\;\\tfrac{27}{300} \\quad = \\left( x+1 \\right) \\leq 5$ \\text{cm}"
    assert D.tokens(a) == D.tokens(b) == D.tokens(C.tex_varied(a))
    assert [t for t in D._page_tokens(b).toks] == D.tokens(a)
    assert D.tokens("\\frac12") == D.tokens("\\frac{1}{2}")
    # a page's lines are kept: normalising never adds or removes a line break
    text = "x \\left(\n1\\right) \\quad\n\\,y"
    assert D.normalize_tex(text).count("\n") == text.count("\n")


def test_formula_solution_blocks_are_removed(full, hosts):
    """A MATH solution's display block that is mostly formula, pasted into a real page as it is,
    TeX-varied or hard-wrapped at 40 characters, loses its lines (at least 90% of its tokens); the
    host's own lines stay.  Measured on 100 blocks: 97%, 96%, 96% of the copies lose 90% or more; the
    others share their grams with a second MATH question (common: never evidence, by design) or are
    made of generic runs (``\\sqrt{1,\\!000,\\!000} = \\sqrt{10^6}``, ``(ax^2 + bx + c)^2``)."""
    bm, index, cfg = full
    rng = random.Random(5)
    blocks = formula_blocks(bm)
    for v, name in enumerate(("as is", "TeX-varied", "hard-wrapped")):
        caught = 0
        for it, block in blocks:
            variant = (block, C.tex_varied(block), C.hard_wrapped(block))[v]
            host = hosts[rng.randrange(len(hosts))]
            text, planted = _planted(host, variant, rng)
            r = D.decontaminate_text(text, index, cfg)
            caught += _removed_share(text, planted, r) >= 0.9
            assert not r.removed and set(r.removed_lines) <= set(planted), (it.item_id, r.rows)
            assert all(row[4].startswith("[specific ") for row in r.rows)
        assert caught >= 0.9 * len(blocks), (name, caught)
    # the example: 1421 \div 7 + 47 = ... then 250 \div 50 \cdot 9 = ...
    item = next(i for i in bm.items if i.item_id == "test/prealgebra/1510.json")
    block = "\n".join(m.group(0) for m in _BLOCK.finditer(item.texts[1]))
    assert sum(map(D.is_word, D.raw_tokens(block))) < 4        # under the last release's min_words
    text, planted = _planted(hosts[0], block, rng)
    r = D.decontaminate_text(text, index, cfg)
    assert _removed_share(text, planted, r) == 1.0 and ("math", "test/prealgebra/1510.json") in \
        {(row[0], row[1]) for row in r.rows}
    # a rule that refuses every span keeps them all: the planted blocks were caught by the span rule
    never = replace(cfg, min_specific=10 ** 6)
    assert D.decontaminate_text(text, index, never).rows == []


SHORT = ["Evaluate $|(4+2i)|\\cdot|(6-3i)|$.", "What is $0^{(5^{6431564})}$?",
         "Find $\\frac{25}{3} \\cdot \\frac{27}{300}$."]


def short_formula_questions(bm, index, lo: int, hi: int, n: int, seed: int = 7) -> list:
    """Questions of lo..hi tokens, at least half of them not words, that the index looks up whole."""
    used = {int(k) for _h, si in index.short.values() for k in si.tolist()}
    out = []
    for k, it in enumerate(bm.items):
        toks = D.raw_tokens(it.question)
        if k in used and lo <= len(toks) <= hi and sum(map(D.is_word, toks)) <= len(toks) / 2:
            out.append(it)
    assert len(out) >= n
    return random.Random(seed).sample(out, n)


def test_short_formula_problems_are_removed(full, hosts):
    """A short problem that is a verb and a formula, pasted whole as a line (as it is and TeX-varied),
    removes the page under 10 tokens (the paper's exact 3-9-gram rule) and its line from 10 to 12."""
    bm, index, cfg = full
    rng = random.Random(11)
    by_q = {it.question.strip(): it for it in bm.items}
    items = [by_q[q] for q in SHORT] + short_formula_questions(bm, index, 3, 9, 20) + \
        short_formula_questions(bm, index, 10, 12, 20)
    for it in items:
        n = len(D.tokens(it.question))
        for variant in (it.question.strip(), C.tex_varied(it.question.strip())):
            text, planted = _planted(hosts[rng.randrange(len(hosts))], variant, rng)
            r = D.decontaminate_text(text, index, cfg)
            if n < cfg.ngram:
                assert r.removed and any(row[3] == D.R_SHORT for row in r.rows), (it.item_id, variant)
            else:
                assert r.removed or set(planted) <= set(r.removed_lines), (it.item_id, variant)
    # the report's figure: per benchmark, short items used and left out as generic
    use = index.stats["short_by_benchmark"]
    assert use["math"]["used"] > 0 and use["math"]["generic"] > 0
    assert sum(u["generic"] for u in use.values()) == index.stats["short_generic"]
    assert sum(u["used"] for u in use.values()) >= index.stats["short_questions"]


def test_one_item_on_many_pages_is_removed_everywhere(full, hosts):
    """A benchmark item copied onto many sites is the contamination to catch: the same block on 40
    pages is removed from each (no commonness measured on the crawl by default)."""
    bm, index, cfg = full
    it, block = formula_blocks(bm, n=1, seed=13)[0]
    rng = random.Random(17)
    pages = []
    for i, host in enumerate(hosts[:40]):
        text, planted = _planted(host, block, rng)
        pages.append({"page_id": str(i), "text": text})
    out, rows, counts = reference.decontaminate_pages(pages, index, cfg)
    assert counts["pages_cleaned"] == 40 and all(block.split("\n")[0] not in p["text"] for p in out)
    assert {r[0] for r in rows} == {str(i) for i in range(40)}


GENERIC = [
    # counting sequences and bit strings
    "Write the numbers $1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20$ in a row.",
    "The received word is $0 1 0 0 1 1 0 0 1 0 1 1 0 1 0 0 1 0 1 1$ and its parity bit is wrong.",
    "Rows 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34 of the table hold the totals.",
    # an array header and generic matrices (a 2x2 matrix squared entry by entry, Cayley-Hamilton)
    "$$\\begin{array}{ccccccccc} 1 & 0 & 0 & 1 & 0 & 1 & 1 & 0 & 1 \\end{array}$$",
    "Für $A = \\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}$ gilt $A^2 = \\begin{pmatrix} a^2 + bc & ab + bd"
    " \\\\ ac + cd & bc + d^2 \\end{pmatrix}$, also $A^2 - (a+d)A + (ad-bc)I = 0$.",
    "Ist $\\begin{pmatrix} x \\\\ y \\end{pmatrix}$ ein Eigenvektor, so ist auch $\\begin{pmatrix} x \\\\ y "
    "\\end{pmatrix}$ mal $t$ einer; $\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix} \\begin{pmatrix} x \\\\ y "
    "\\end{pmatrix} = \\begin{pmatrix} ax + by \\\\ cx + dy \\end{pmatrix}$.",
    # primes, identities, the alphabet in a formula
    "The primes below 90 are 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, "
    "83, 89.",
    "Recall $a^3 - b^3 = (a-b)(a^2+ab+b^2)$ and $a^3 + b^3 = (a+b)(a^2-ab+b^2)$, and "
    "$\\sin(x+y) = \\sin x \\cos y + \\cos x \\sin y$.",
    "$$\\binom{4}{0} + \\binom{4}{1} + \\binom{4}{2} + \\binom{4}{3} + \\binom{4}{4} = 2^4$$",
    "Label the points $m, n, o, p, q, r, s, t, u, v, w, x, y, z$ in order.",
    # stock template sentences of benchmark questions
    "Find the number of ordered pairs $(a,b)$ of integers such that $a + b = ab$; express your answer in "
    "simplest radical form.",
]


def test_generic_runs_on_clean_pages_keep_every_line(full, hosts):
    """Runs that share tokens with benchmark items but no text of one: every line stays (the linear
    algebra notes that matched MATH solutions in 2x2 matrix notation among them)."""
    bm, index, cfg = full
    rng = random.Random(19)
    for run in GENERIC:
        for host in rng.sample(hosts, 3):
            text, _ = _planted(host, run, rng)
            r = D.decontaminate_text(text, index, cfg)
            assert r.rows == [] and r.text == text, (run[:60], r.rows)
    # while every 10-gram of them matches some benchmark text (the index without the information rules)
    loose = DecontamConfig(max_items=0, min_specific=0, generic_items=0, min_span=0, short_specific=0,
                           min_coverage=0, max_stock=0)
    li = D.build_index(bm, loose)
    hit = [run for run in GENERIC if D.decontaminate_text(run + "\n" + hosts[0], li, loose).rows]
    assert len(hit) >= 6, hit


def test_canaries_measure_the_rules(full, hosts):
    """Canaries on real pages: the rules catch the planted kinds; a rule broken on purpose (the
    specificity threshold refusing every span, the short questions all generic) shows a low figure."""
    bm, index, cfg = full
    pool = [(str(i), h) for i, h in enumerate(hosts)]
    generic: dict = {}
    rows = C.run(pool, bm, index, cfg, n=30, seed=1, generic=generic)
    s = C.summary(rows)
    # a solution generic on its own (CARP: stock words, single digits and letters) is left out and counted;
    # a MATH solution's formula block is planted
    assert generic["solution"] > 0
    assert not C.stands_alone("According to the problem, we have $2 k - 1 = 1$. Solving for $k$, we get $k = 1$.",
                              index)
    assert C.stands_alone("$1421 \\div 7 + 47 = (1421 \\div 7) + 47 = 203 + 47 = 250$", index)
    assert set(s) == set(C.KINDS) and all(v["n"] == 30 for v in s.values())
    assert all(v["share"] >= 0.8 for v in s.values()), s
    assert s["short"]["pages_removed_short_rule"] > 0
    broken = replace(cfg, min_specific=10 ** 6, min_coverage=0, long_span=0)
    b = C.summary(C.run(pool, bm, index, broken, n=30, seed=1))
    assert all(b[k]["share"] <= 0.2 for k in ("problem", "solution", "solution_tex", "chinese")), b
    lo, hi = C.wilson(97, 100)
    assert 0.91 < lo < 0.97 < hi < 1.0 and C.wilson(0, 0) == (0.0, 1.0)
