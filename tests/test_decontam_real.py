"""Decontamination on real maths pages against every shared benchmark: what it removes is benchmark
text, not maths (the false-removal rate, measured on the frozen judged list of tests/data)."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow          # a measurement over every real maths page (about a minute)

from corpus_pipeline import decontam as D
from corpus_pipeline.config import DecontamConfig

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.decontam_removals import (PROBLEM_SITE, devcrawl_pages, false_rows, load_judged,  # noqa: E402
                                     real_math_pages, removals)


@pytest.fixture(scope="module")
def full_index(shared_data):
    cfg = DecontamConfig()
    return D.build_index(D.load_benchmarks(shared_data / "benchmarks", cfg), cfg), cfg


@pytest.fixture(scope="module")
def pages(shared_data):
    return list(real_math_pages(shared_data))


@pytest.fixture(scope="module")
def crawl_pages(shared_data):
    return list(devcrawl_pages(shared_data))


# the grams the issue found removed on real crawls: shared with a benchmark item, but only as numbers,
# single letters and formula fragments (the product's tokens in brackets)
NOT_BENCHMARK_TEXT = [
    # [1 2 3 4 5 6 7 8 9 10], a group-theory post (MATH counting_and_probability/110, number_theory/51, ...)
    "The cyclic group of order ten has the elements 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 under addition mod 11, "
    "and every one of them except the identity generates it.",
    # [1 1 1 1 0 0 0 0 0 0], a post on computing homology (MATH intermediate_algebra/44)
    "The boundary matrix has rows (1, 1, 1, 1, 0, 0, 0, 0, 0, 0) and (0, 0, 0, 1, 1, 1, 0, 0, 0, 0), so the "
    "rank of the first homology group is the nullity minus the rank.",
    # [f n f n 1 f n 2 for n], a Python tutorial's Fibonacci recurrence (MATH intermediate_algebra/1421)
    "def fib(n):\n    # f(n) = f(n-1) + f(n-2) for n >= 2, with f(0) = 0 and f(1) = 1\n    return n if n < 2 "
    "else fib(n - 1) + fib(n - 2)",
    # [x 1 x 2 x 3 x 4 x 5], a problem page (MATH intermediate_algebra/613)
    "Let x_1, x_2, x_3, x_4, x_5 be the roots of the polynomial; show that their sum is the negated "
    "coefficient of the second highest power.",
    # [frac x 1 x 1 frac x 1 x 2], an ASCIIMath tutorial (MATH intermediate_algebra/657)
    "Type frac(x+1)(x-1) frac(x+1)(x-2) to get two fractions next to each other; ASCIIMath renders "
    "them with MathJax on the page.",
]


def test_notation_shared_with_a_benchmark_is_not_contamination(full_index, shared_data):
    index, cfg = full_index
    for text in NOT_BENCHMARK_TEXT:
        r = D.decontaminate_text(text, index, cfg)
        assert r.rows == [] and r.text == text, (text[:60], r.rows)
    # while the earlier rule (every 10-gram of tokens) called the first and the Fibonacci one contamination
    old = DecontamConfig(max_items=0, min_specific=0, generic_items=0, min_span=0, short_specific=0, min_coverage=0,
                         max_stock=0)
    old_index = D.build_index(D.load_benchmarks(shared_data / "benchmarks", old), old)
    assert D.decontaminate_text(NOT_BENCHMARK_TEXT[0], old_index, old).rows
    assert D.decontaminate_text(NOT_BENCHMARK_TEXT[2], old_index, old).rows


def test_real_maths_pages_lose_only_benchmark_text(full_index, pages, crawl_pages):
    """False rows <= 5% of rows and <= 5 per 1,000 real maths pages, judged on the frozen list, on the
    real maths pages and every page of the development crawl, its problem site of MATH train problems
    (MATH test's siblings: same authors, same templates) included."""
    index, cfg = full_index
    assert len(pages) >= 1000 and {p["source"] for p in pages} == {"html", "math_docs", "math_web_en"}
    assert len(crawl_pages) >= 2000
    judged = load_judged()
    assert len(judged) >= 400
    web = pages + [p for p in crawl_pages if p["source"] != "devcrawl:" + PROBLEM_SITE]
    problems = [p for p in crawl_pages if p["source"] == "devcrawl:" + PROBLEM_SITE]
    rows, stats = removals(web, None, cfg, index=index)
    false = false_rows(rows, judged)
    p_rows, _ = removals(problems, None, cfg, index=index)
    p_false = false_rows(p_rows, judged)
    n_maths = len(pages) + sum(1 for p in crawl_pages if p["label"] == "math")
    print(f"\n{len(web)} pages: {len(rows)} contamination rows on {len({r['key'] for r in rows})} pages, "
          f"{len(false)} false (index: {stats})")
    print(f"problem site: {len(problems)} pages, {len(p_rows)} rows, {len(p_false)} false "
          f"({', '.join(r['benchmark'] + ' ' + r['item_id'] for r in p_false)})")
    assert len(false) <= 0.05 * len(rows)       # the web pages on their own (measured: no row at all)
    all_rows, all_false = len(rows) + len(p_rows), len(false) + len(p_false)
    assert all_false <= 0.05 * all_rows
    assert all_false <= 5 * n_maths / 1000
    # the problem site's copies and restatements of MATH test items are still found (measured: 26 true
    # rows, 1 false; the last release's word rule 28 and 1: the two restatements it found and this rule
    # does not match the item only in formula and stock phrasing, `what is the value of frac x 1 cdot x 2
    # cdot x 3 dots x`, `find the sum of all values of x such that f x 0`); its stock sentences are not
    assert len(p_rows) - len(p_false) >= 26
    span_only = replace(cfg, min_coverage=0)
    s_rows, _ = removals(problems, None, span_only, index=index)
    # measured: 4 false without the question rule (the last release's word rule: 13), 1 with it
    assert len(false_rows(s_rows, judged)) > len(p_false)
    for r in rows + p_rows:                 # every row shows its evidence and what it removed
        assert r["evidence"] and r["removed_text"]
