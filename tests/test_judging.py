"""The sampling and estimation core of ``judge`` (pure, no Spark): strata, hash-ordered samples,
sample sizes from the margin, the estimators and their intervals' coverage on synthetic frames."""
from __future__ import annotations

import math
import random

import pytest

from corpus_pipeline import judging as jg


def test_strata_and_bands():
    assert jg.stratum(True, False, 0.95) == "collected 0.9-1.0"
    assert jg.stratum(True, True, 0.55) == "collected 0.5-0.7"          # flagged only splits uncollected
    assert jg.stratum(False, True, 0.05) == jg.FLAGGED
    assert jg.stratum(False, False, None) == "uncollected 0.0-0.1"
    assert jg.stratum(False, False, 1.0) == "uncollected 0.9-1.0"


def test_draw_is_deterministic_nested_and_seed_dependent():
    frame = [(f"p{i}", i / 1000, i % 3 == 0, i % 7 == 0) for i in range(1000)]
    sizes = {h: 5 for h in jg.strata_counts(frame)}
    a, b = jg.draw(frame, 1, sizes), jg.draw(frame, 1, sizes)
    assert a == b and jg.draw(frame, 2, sizes) != a
    bigger = jg.draw(frame, 1, {h: 9 for h in sizes})
    assert all(bigger[h][:5] == a[h] for h in a)        # more judgements extend the same order


def test_sample_sizes_from_the_margin():
    assert jg.precision_size(10**9, 0.05) == 404      # 385 for p = 0.5, plus 5%
    assert jg.precision_size(100, 0.05) < 100 and jg.precision_size(10, 0.05) == 10
    strata = {"collected 0.9-1.0": {"N": 9000, "mean_score": 0.97}, "collected 0.7-0.9": {"N": 1000, "mean_score": 0.8},
              "uncollected 0.0-0.1": {"N": 10**6, "mean_score": 0.01}, jg.FLAGGED: {"N": 5000, "mean_score": 0.3}}
    k = jg.allocate(strata, 0.05)
    assert 390 <= k["collected 0.9-1.0"] + k["collected 0.7-0.9"] <= 410
    assert k[jg.FLAGGED] / 5000 > 4 * k["uncollected 0.0-0.1"] / 10**6    # Neyman: the likelier stratum sampled harder


def test_verdicts_majority_and_kappa():
    js = [{"page_id": "a", "judge": "x", "verdict": "math", "at": "1"},
          {"page_id": "a", "judge": "y", "verdict": "math", "at": "2"},
          {"page_id": "b", "judge": "x", "verdict": "math", "at": "1"},
          {"page_id": "b", "judge": "y", "verdict": "not-math", "at": "2"},
          {"page_id": "c", "judge": "x", "verdict": "math", "at": "1"},
          {"page_id": "c", "judge": "x", "verdict": "not-math", "at": "3"}]     # x changed their mind
    assert jg.page_verdicts(js) == {"a": "math", "b": "unsure", "c": "not-math"}
    (k,) = jg.cohen_kappa(js)
    assert k["judges"] == ["x", "y"] and k["pages"] == 2 and k["agreement"] == 0.5


def test_estimates_use_the_judged_prefix_only():
    strata = {"collected 0.9-1.0": {"N": 100, "k": 4}, "uncollected 0.0-0.1": {"N": 1000, "k": 3}}
    order = {"collected 0.9-1.0": ["a", "b", "c", "d"], "uncollected 0.0-0.1": ["u", "v", "w"]}
    # d judged but c not: the prefix stops at b
    v = {"a": "math", "b": "not-math", "d": "math", "u": "not-math", "v": "unsure"}
    e = jg.estimates(strata, order, v)
    assert e["estimated_precision"]["value"] == 0.5 and e["estimated_precision"]["n"] == 2
    assert e["estimated_recall"]["value"] == 1.0 and e["estimated_recall"]["high"] == 1.0
    assert e["judged"] == 4 and e["to_judge"] == 3
    assert jg.estimates(strata, order, {})["estimated_precision"] is None


def _synthetic(n_pages, seed, prevalence_scale=1.0):
    """A frame with scores and the truth: maths likelier at high scores, flagged hosts richer in maths."""
    rnd = random.Random(seed)
    frame, truth = [], {}
    for i in range(n_pages):
        s = rnd.random() ** 3
        collected = s >= 0.5
        flagged = rnd.random() < 0.05
        p = min(1.0, prevalence_scale * (0.9 * s ** 2 + (0.2 if flagged else 0.002)))
        frame.append((f"p{i}", s, collected, flagged))
        truth[f"p{i}"] = "math" if rnd.random() < p else "not-math"
    return frame, truth


def _with_unsure(frame, truth, seed, where, share):
    """``truth`` with a ``share`` of the pages of the strata ``where`` picks made "unsure" (nobody can
    decide them), maths pages first there: the unsure pages gather in one band, where maths is rarest."""
    rnd = random.Random(seed)
    out = dict(truth)
    for pid, s, c, f in frame:
        if where(s, c, f) and rnd.random() < share * (1.5 if truth[pid] == "math" else 0.7):
            out[pid] = jg.UNSURE
    return out


FRAMES = {
    "plain": lambda: _synthetic(6000, 3, 1.0),
    "rare maths": lambda: _synthetic(6000, 3, 0.1),
    # the real-content case: a quarter of the collected 0.7-0.9 band cannot be decided
    "unsure in one collected band": lambda: (lambda f, t: (f, _with_unsure(f, t, 5, lambda s, c, fl: c and 0.7 <= s < 0.9,
                                                                          0.3)))(*_synthetic(6000, 3, 1.0)),
    # and among the uncollected pages of flagged hosts (what recall's missed pages are made of)
    "unsure among missed pages": lambda: (lambda f, t: (f, _with_unsure(f, t, 6, lambda s, c, fl: not c and fl, 0.3)))(
        *_synthetic(6000, 3, 1.0)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FRAMES))
def test_intervals_cover_on_synthetic_frames(name):
    """200 samples of one frame (of a frame with 10x rarer maths: proportions near 0; of frames where
    the "unsure" pages gather in one stratum): the 95% intervals cover the precision and recall over
    decidable pages in >= 93%, the precision half-width stays within the margin, and the estimated
    unsure share covers the collected pages' true one."""
    from judgecov import coverage

    frame, truth = FRAMES[name]()
    c = coverage(frame, truth, 0.05, 200)
    print(c)
    assert c["precision_coverage"] >= 0.93 and c["recall_coverage"] >= 0.93, c
    # the margin sizes the decided judgements: a share u of unsure ones widens it by about 1/sqrt(1-u)
    assert c["max_half_width"] <= 0.05 / math.sqrt(1 - c["unsure"]), c
    assert abs(c["share_mean"] - c["share"]) < 0.1 and c["share_coverage"] >= 0.9, c
    assert c["unsure_coverage"] >= 0.9, c
    if "unsure" in name:
        assert sum(v == jg.UNSURE for v in truth.values()) > 50
        assert abs(c["precision_mean"] - c["precision"]) < 0.01, c        # no drift where they gather


def test_unsure_pages_are_neither_maths_nor_not():
    """Precision over decidable pages weights each stratum by its decidable pages: unsure pages in a
    low-precision stratum no longer pull the estimate towards that stratum's share."""
    strata = {"collected 0.9-1.0": {"N": 100, "k": 4}, "collected 0.5-0.7": {"N": 100, "k": 4},
              "uncollected 0.0-0.1": {"N": 100, "k": 2}}
    order = {"collected 0.9-1.0": ["a", "b", "c", "d"], "collected 0.5-0.7": ["e", "f", "g", "h"],
             "uncollected 0.0-0.1": ["u", "v"]}
    v = {"a": "math", "b": "math", "c": "math", "d": "math",
         "e": "math", "f": "not-math", "g": "unsure", "h": "unsure", "u": "not-math", "v": "math"}
    e = jg.estimates(strata, order, v)
    # decidable: 100 + 50; maths: 100 + 25 -> 125/150 (giving unsure pages the band's share: 150/200 = 0.75)
    assert e["estimated_precision"]["value"] == pytest.approx(125 / 150)
    assert e["estimated_recall"]["value"] == pytest.approx(125 / 175)
    u = e["estimated_unsure"]
    assert u["collected"]["value"] == pytest.approx(50 / 200) and u["all"]["value"] == pytest.approx(50 / 300)
    assert u["collected"]["low"] <= 0.25 <= u["collected"]["high"] and u["n"] == 10
    assert [s["unsure"] for s in e["strata"]] == [2, 0, 0]
    # no unsure verdict: nothing is estimated unsure
    none = jg.estimates(strata, order, {**v, "g": "math", "h": "not-math"})
    assert none["estimated_unsure"]["all"] == {"value": 0.0, "low": 0.0, "high": 0.0}


def test_report_section_says_so_in_words_without_a_sample_or_judgements():
    from corpus_pipeline.report.html import judging_section

    none = judging_section({"iterations": [{"iteration": 1, "judging": None}]})
    assert "No iteration has a judging sample yet" in none and "<svg" not in none
    strata = {"collected 0.9-1.0": {"N": 10, "k": 2}, "uncollected 0.0-0.1": {"N": 10, "k": 2}}
    j = jg.estimates(strata, {"collected 0.9-1.0": ["a", "b"], "uncollected 0.0-0.1": ["c", "d"]}, {})
    html = judging_section({"iterations": [{"iteration": 1, "judging": j, "estimated_precision": None,
                                            "estimated_recall": None}]})
    assert "0 of the sample&#x27;s pages judged, 4 left: no estimate yet" in html or \
        "0 of the sample's pages judged, 4 left: no estimate yet" in html


def test_a_later_iteration_needs_only_what_its_strata_add():
    """Keys belong to pages, not iterations: when the next iteration collects a few more pages, most
    of its sample was judged for the previous one, and those verdicts count in its estimates."""
    frame1, truth = _synthetic(6000, 4)
    frame2 = [(p, s, c or 0.45 <= s < 0.5, f) for p, s, c, f in frame1]          # the threshold lowered a little
    s1, s2 = (jg.allocate(jg.strata_counts(f), 0.05) for f in (frame1, frame2))
    d1, d2 = jg.draw(frame1, 9, s1), jg.draw(frame2, 9, s2)
    judged = {p for v in d1.values() for p in v}
    second = [p for v in d2.values() for p in v]
    new = [p for p in second if p not in judged]
    assert len(new) < 0.25 * len(second), (len(new), len(second))
    strata2 = {h: {"N": c["N"], "k": s2[h]} for h, c in jg.strata_counts(frame2).items()}
    partial = jg.estimates(strata2, d2, {p: truth[p] for p in judged})
    assert partial["judged"] > 0.5 * len(second) and partial["to_judge"] >= len(new)
