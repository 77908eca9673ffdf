"""RUN/final/corpus/README.md: the final corpus as a Hugging Face dataset (no Spark: the corpus is
written with pyarrow in the schema the final stage writes)."""
from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from corpus_pipeline import schemas
from corpus_pipeline.config import load_config
from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.report import write_report
from corpus_pipeline.report.card import features, render_card, size_category, write_card
from corpus_pipeline.runfolder import RunFolder

_ARROW = {"string": pa.string(), "float64": pa.float64(), "int32": pa.int32(), "int64": pa.int64()}


def _commit(run, path, counts, build=None):
    run.stage(path, build or (lambda s: counts), log=lambda m: None)


def _corpus_run(tmp_path, n=5):
    run = RunFolder(tmp_path / "run")
    view = RunView(run)
    _commit(run, view.location("pages"), {"pages": 40, "skips": {"non_response": 30, "not_html": 2},
                                          "url_duplicates": 1, "exact_duplicates": 0, "near_duplicates": 2})
    for i, (pages, ov) in enumerate([(4, None), (5, 0.99)], 1):
        _commit(run, view.location("seed", i), {"seed_positives": 3 + i, "seed_added": 1})
        _commit(run, view.location("model", i), {"precision": 0.9, "recall": 0.8, "f1": 0.85})
        _commit(run, view.location("collected", i), {"collected_pages": pages, "collected_tokens": 100 * pages,
                                                     "overlap_with_previous": ov, "new_pages": 1})
    schema = pa.schema([(c, _ARROW[t]) for c, t in features()])
    rows = [{"page_id": f"p{k}", "url": f"https://a.org/{k}", "host": "a.org", "text": f"Let $x={k}$.",
             "score": 0.9, "first_iteration": 1, "n_tokens": 2, "title": "t", "lang": "no" if k == 0 else "en",
             "fetched_at": "2024-01-01T00:00:00Z", "warc_file": "a.warc.gz", "warc_offset": k} for k in range(n)]

    def build(staging):
        import os

        os.makedirs(staging, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), f"{staging}/part-00000-x.snappy.parquet")
        return {"pages": n, "tokens": 2 * n, "pages_removed_by_decontamination": 1, "segments_removed": 2,
                "decontam": {"by_benchmark": {"gsm8k": {"segment_removed": 2, "page_removed": 1}}}}

    _commit(run, view.location("corpus"), None, build)
    run.write_json(run.path("loop.json"), {"stopped_because": "saturated"})
    run.write_json(run.path("run.json"), {"config": load_config(None, []).to_dict(), "seed_corpus": None,
                                          "created_at": "2026-01-01T00:00:00Z"})
    return run, rows


def _front(text: str) -> dict:
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert m, text[:200]
    return yaml.safe_load(m.group(1))


def test_the_card_loads_the_corpus_with_its_features(tmp_path):
    import datasets
    run, rows = _corpus_run(tmp_path)
    assert write_card(RunFolder(str(tmp_path / "empty")), {}) is None        # no corpus yet: no card
    write_report(run)                                                          # the report writes the card
    path = str(tmp_path / "run" / "final" / "corpus" / "README.md")
    text = open(path, encoding="utf-8").read()
    meta = _front(text)
    card_features = {f["name"]: f["dtype"] for f in meta["dataset_info"]["features"]}
    assert list(card_features) == [c for c, _ in features()] == schemas.columns(schemas.FINAL_CORPUS)
    ds = datasets.load_dataset(str(tmp_path / "run" / "final" / "corpus"), split="train",
                               cache_dir=str(tmp_path / "hf"))
    assert ds.num_rows == len(rows)
    assert {k: v.dtype for k, v in ds.features.items()} == card_features
    assert sorted(ds["page_id"]) == sorted(r["page_id"] for r in rows)
    # no path, no time: two runs of the same code write the same bytes
    assert str(tmp_path) not in text and "/run" not in text
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d|\d{8}T\d{6}", text), re.search(r"\d{4}-\d\d-\d\dT\d\d", text)
    assert meta["size_categories"] == ["n<1K"] and meta["license"] == "other"
    assert "gsm8k" in text and "1 pages were removed" in text.replace(",", "")


def test_card_languages_seed_licences_and_canaries():
    s = {"iterations": [{"iteration": 1, "collected_pages": 3, "collected_tokens": 30, "overlap_with_previous": None,
                         "new_pages": 3, "flagged_domains": 1, "seed_positives": 2, "seed_added": 0,
                         "classifier": {"precision": 1.0, "recall": 0.5, "f1": 0.667}, "true_precision": None}],
         "stopped_because": "saturated", "final": {"pages": 3, "tokens": 40, "pages_removed_by_decontamination": None},
         "decontamination_canaries": {"measures": "the rules on planted items", "pages_sampled": 40,
                                      "kinds": {"short": {"n": 12, "caught": 11, "share": 0.9167, "low95": 0.646,
                                                          "high95": 0.9851}}}}
    text = render_card(s, {"select": {"mode": "threshold", "threshold": 0.5}}, {"en": 2, "no": 1}, "- **Seed A**: CC BY",
                       own_seed=False)
    meta = _front(text)
    assert meta["language"] == ["en", "no"]                      # `no` stays Norwegian, not false
    assert "Norwegian (`no`)" in text and "1.000/0.500/0.667" in text
    assert "Seed A" in text and "not part of this corpus" in text and "publisher" in text
    assert "## Decontamination canaries" in text and "| short | 12 | 11 | 91.7% | 64.6%–98.5% |" in text
    assert "Not decontaminated" in text
    own = render_card(s, {}, {}, None, own_seed=True)
    assert "Seed A" not in own and "--seed-corpus" in own and "language" not in _front(own)


def test_size_categories():
    assert [size_category(n) for n in (0, 999, 1000, 12_345, 2_000_000)] == \
        ["n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "1M<n<10M"]
