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
    from corpus_pipeline.classify import OTHER_LANGUAGES, negative_quotas
    from corpus_pipeline.seeds import load_background

    out = run_job_subprocess(20_000, 15_000, str(tmp_path), timeout=3 * 3600, dim=32)
    assert out["max_result_size"] == "1m" and out["driver_memory"] == "1g"
    assert out["iterations"] == 2 and out["stopped_because"] in ("max_iterations", "saturated")
    it1, it2 = out["iteration_counts"]
    assert it1["seed"]["seed_positives"] == 15_000                       # every distinct seed document
    model = it1["model"]
    assert model["seed_positives"] == 15_000
    # negatives_per_positive (3) asks for 45,000, drawn per language in the positives' proportions; the
    # crawl has fewer pages without maths markup, so each quota is filled from the crawl's pages of that
    # language, then from the shipped background (en, zh), then by repeating them; a language the seed
    # has and the crawl lacks (no background either) gets none
    assert 15_000 < model["negatives_available"] < 20_000
    pos, avail, by = model["positives_by_language"], model["available_by_language"], model["negatives_by_language"]
    assert sum(pos.values()) == 15_000 and sum(avail.values()) == model["negatives_available"]
    quotas = negative_quotas(pos, avail, 3 * 15_000)
    bg = {lang: len(load_background(lang)) for lang in quotas if lang != OTHER_LANGUAGES}
    for lang, q in quotas.items():
        assert by.get(lang, 0) == (q if avail.get(lang, 0) or bg.get(lang) else 0), lang
    assert model["sampled_negatives"] == sum(by.values()) <= 3 * 15_000
    assert model["background_negatives"] == sum(min(bg[k], max(0, by[k] - avail.get(k, 0))) for k in bg if by.get(k))
    assert model["repeated_negatives"] == {k: by[k] - min(by[k], avail.get(k, 0)) - min(bg[k], max(0, by[k] - avail.get(k, 0)))
                                           for k in bg if by.get(k, 0) > avail.get(k, 0) + bg[k]}
    assert model["train_positives"] + model["holdout_positives"] == 15_000
    assert model["precision"] > 0.9 and model["recall"] > 0.9              # held-out seed vs crawl pages
    assert it2["seed"]["seed_positives"] >= 15_000
    assert it1["scores"]["pages_scored"] == it2["scores"]["pages_scored"] == out["pages_kept"] > 15_000
    for it in (it1, it2):
        assert it["collected"]["collected_pages"] > 0
        assert it["eval"]["true_precision"] > 0.8
    assert it2["eval"]["true_recall"] >= it1["eval"]["true_recall"] > 0.3
    assert out["scratch_pending"] == [] and out["tmp_leftovers"] == [] and out["run_leftovers"] == []
