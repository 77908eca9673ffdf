"""Classifier quality on labeled real pages in no training set (``python -m bench classifier_quality``).

The issue's target is precision and recall >= 0.9 for English and Chinese at the default
threshold; it is NOT met (measured with the defaults, starter seed, domain-split protocol:
English labeled pages P 0.82 / R 0.64, average precision 0.72 (0.67 before the maths delimiters
were unified); the development crawl's English source pages P 0.99 / R 0.78; Chinese source pages
P 0.42 / R 1.00, because the crawl holds no Chinese programming pages outside OI Wiki to draw as
negatives: every Chinese page scores high, though the maths ones score higher (average precision
0.97)).  This test holds the measured level, about one page under it, so that a change that makes
it worse fails; raise the floors when the classifier improves.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FLOORS = {  # (precision, recall, average precision): measured minus about one page's worth of margin
    "pages/en": (0.78, 0.6, 0.7),
    "sources/en": (0.97, 0.76, 0.97),
    "sources/zh": (0.4, 0.96, 0.95),
}


@pytest.mark.slow
def test_quality_on_real_pages_holds_the_measured_level(shared_data):
    sys.path.insert(0, str(ROOT))
    from bench.bench_classifier_quality import load, measure

    d = load(shared_data)
    res = measure(d)
    for k, m in res.items():
        if not k.startswith("_"):
            print(k, m["n_positive"], m["n_negative"], m["precision"], m["recall"], m["average_precision"])
    assert res["pages/en"]["n_positive"] >= 25 and res["pages/en"]["n_negative"] >= 500
    for k, (p, r, ap) in FLOORS.items():
        m = res[k]
        assert m["precision"] >= p and m["recall"] >= r and m["average_precision"] >= ap, (
            k, m["precision"], m["recall"], m["average_precision"])
