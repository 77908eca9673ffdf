"""Classifier quality on labeled real pages in no training set (``python -m bench classifier_quality``).

The issue's target is precision and recall >= 0.9 for English and Chinese at the default
threshold; it is NOT met yet (measured with the defaults, starter seed, domain-split protocol:
English labeled pages P 0.82 / R 0.64; the development crawl's English source pages P 0.99 /
R 0.83; Chinese source pages P 0.42 / R 1.00, because the crawl holds few Chinese non-maths
pages to draw as negatives).  This test holds the measured level so that a change that makes
it worse fails; raise the floors when the classifier improves.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FLOORS = {  # (precision, recall): measured minus about one page's worth of margin
    "pages/en": (0.7, 0.55),
    "sources/en": (0.9, 0.75),
    "sources/zh": (0.3, 0.9),
}


@pytest.mark.slow
def test_quality_on_real_pages_holds_the_measured_level(shared_data):
    sys.path.insert(0, str(ROOT))
    from bench.bench_classifier_quality import load, measure

    d = load(shared_data)
    res = measure(d)
    for k, m in res.items():
        if not k.startswith("_"):
            print(k, m["n_positive"], m["n_negative"], m["precision"], m["recall"])
    assert res["pages/en"]["n_positive"] >= 25 and res["pages/en"]["n_negative"] >= 500
    for k, (p, r) in FLOORS.items():
        assert res[k]["precision"] >= p and res[k]["recall"] >= r, (k, res[k]["precision"], res[k]["recall"])
