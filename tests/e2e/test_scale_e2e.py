"""The whole loop, two iterations, on a 20,000-page mini-crawl with a 15,000-document
Parquet seed folder (real maths text, Hugging Face layout ``data/train-*.parquet``), in a
fresh process with 1 GB of driver heap and ``spark.driver.maxResultSize=1m``: nothing
proportional to the crawl or the seed may reach the driver, and no temporary file is left.  The
classifier trains with 32-dimensional vectors instead of the product's 256 (model size and training
time are the driver's own work, not data brought to it; the held-out floors below still apply)."""
from __future__ import annotations

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_two_iterations_20k_pages_15k_seed_under_1m_result_size(tmp_path):
    from bench.bench_scale import run_job_subprocess

    out = run_job_subprocess(20_000, 15_000, str(tmp_path), timeout=3 * 3600, dim=32)
    assert out["max_result_size"] == "1m" and out["driver_memory"] == "1g"
    assert out["iterations"] == 2 and out["stopped_because"] in ("max_iterations", "saturated")
    it1, it2 = out["iteration_counts"]
    assert it1["seed"]["seed_positives"] == 15_000                       # every distinct seed document
    model = it1["model"]
    assert model["seed_positives"] == 15_000
    # negatives_per_positive (3) asks for 45,000; the crawl has fewer pages without maths markup
    assert 15_000 < model["negatives_available"] < 20_000
    assert model["sampled_negatives"] == min(3 * 15_000, model["negatives_available"])
    assert model["train_positives"] + model["holdout_positives"] == 15_000
    assert model["precision"] > 0.9 and model["recall"] > 0.9              # held-out seed vs crawl pages
    assert it2["seed"]["seed_positives"] >= 15_000
    assert it1["scores"]["pages_scored"] == it2["scores"]["pages_scored"] == out["pages_kept"] > 15_000
    for it in (it1, it2):
        assert it["collected"]["collected_pages"] > 0
        assert it["eval"]["true_precision"] > 0.8
    assert it2["eval"]["true_recall"] >= it1["eval"]["true_recall"] > 0.3
    assert out["scratch_pending"] == [] and out["tmp_leftovers"] == [] and out["run_leftovers"] == []
