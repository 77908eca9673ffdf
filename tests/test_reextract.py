"""Two tiers: the final corpus's pages fetched again by warc_file + warc_offset and re-extracted
with ``final.extractor`` (the pure helpers, and the Spark application)."""
from __future__ import annotations

import pytest

from corpus_pipeline import schemas, sources
from corpus_pipeline.config import Config
from corpus_pipeline.counters import Counts
from corpus_pipeline.ingest import process_source
from corpus_pipeline.spark.reextract import needs_reextraction
import reference
from devtools import extract_quality


def _two_tier_cfg() -> Config:
    cfg = Config()
    cfg.ingest.extractor, cfg.final.extractor = "resiliparse", "trafilatura"
    cfg.ingest.extract_timeout_s = 120.0   # a loaded test machine must not turn pages into timeouts
    return cfg


@pytest.fixture(scope="module")
def bulk_rows(shared_data):
    """Rows of the 245 real pages of the derived mini-crawl, extracted by resiliparse (the bulk pass)."""
    cfg = _two_tier_cfg()
    rows = []
    for f in sorted((shared_data / "warc/derived_minicrawl").glob("*.warc.gz")):
        rows += list(process_source(str(f), cfg, Counts()))
    assert len(rows) > 200
    return rows


@pytest.fixture(scope="module")
def truth_by_url(shared_data):
    return {u: t for _, u, _, t in extract_quality.webkit_pages(shared_data) + extract_quality.article_pages(shared_data)}


def test_fetch_page_local_equals_the_full_read(shared_data):
    ref = str(shared_data / "warc/dolma/sample-0001.warc.gz")
    full = list(sources.iter_pages(ref, Config().ingest, Counts()))
    counts = Counts()
    for p in full:
        got = sources.fetch_page(ref, p.warc_offset, Config().ingest, counts)
        assert (got.url, got.warc_offset, got.html, got.fetched_at) == (p.url, p.warc_offset, p.html, p.fetched_at)
    assert counts.as_dict() == {}
    assert sources.fetch_page(ref + ".missing", 0, Config().ingest, counts) is None
    assert counts["refetch_failed"] == 1


def test_reextraction_gives_the_final_extractors_text_and_keeps_every_page(bulk_rows, truth_by_url):
    cfg = _two_tier_cfg()
    assert needs_reextraction(cfg)
    corpus = [{**{c: r.get(c) for c in schemas.columns(schemas.FINAL_CORPUS)}, "score": 0.9, "first_iteration": 1,
               "warc_file": r["warc_file"], "warc_offset": r["warc_offset"]} for r in bulk_rows]
    corpus.append({**corpus[0], "page_id": "no-offset", "warc_offset": None})
    counts = Counts()
    out = list(reference.reextract_rows(corpus, cfg, counts))
    assert [r["page_id"] for r in out] == [r["page_id"] for r in corpus]       # nothing lost, order kept
    assert counts["reextracted"] >= 0.95 * len(bulk_rows) and counts["refetch_no_offset"] == 1
    assert out[-1]["text"] == corpus[-1]["text"]                                # no record: bulk text kept
    # the measurement behind final.extractor's default: on real pages against their ground truth the
    # re-extracted (trafilatura) text is closer than the bulk (resiliparse) text
    scored = [(extract_quality.token_f1(b["text"], truth_by_url[b["url"]]),
               extract_quality.token_f1(o["text"], truth_by_url[b["url"]]))
              for b, o in zip(corpus, out) if b["url"] in truth_by_url and b["page_id"] != "no-offset"]
    bulk_f1 = sum(s[0] for s in scored) / len(scored)
    final_f1 = sum(s[1] for s in scored) / len(scored)
    print(f"\n{len(scored)} pages: token F1 bulk (resiliparse) {bulk_f1:.3f}, re-extracted (trafilatura) {final_f1:.3f}")
    assert len(scored) > 150 and final_f1 > bulk_f1


def test_same_extractor_or_ingest_means_no_second_pass():
    cfg = Config()
    cfg.final.extractor = "ingest"
    assert not needs_reextraction(cfg)
    cfg.final.extractor = cfg.ingest.extractor
    assert not needs_reextraction(cfg)


@pytest.mark.spark
def test_reextract_df_on_spark(spark, shared_data, bulk_rows):
    from corpus_pipeline.spark.io import rows_to_df
    from corpus_pipeline.spark.reextract import reextract_df

    cfg = _two_tier_cfg()
    some = bulk_rows[:40]
    pages = rows_to_df(spark, [schemas.row(schemas.PAGES, r) for r in some], schemas.PAGES)
    corpus = rows_to_df(spark, [schemas.row(schemas.FINAL_CORPUS, {**r, "score": 0.8, "first_iteration": 1})
                                for r in some], schemas.FINAL_CORPUS)
    out = {r["page_id"]: r.asDict() for r in reextract_df(spark, corpus, pages, cfg).collect()}
    expected = {r["page_id"]: r for r in reference.reextract_rows(
        [{**r, "score": 0.8, "first_iteration": 1} for r in some], cfg, Counts())}
    assert out.keys() == expected.keys()
    differ = [k for k in out if out[k]["text"] != expected[k]["text"]]
    assert not differ, differ[:3]
    assert all(out[k]["text"] == expected[k]["text"] and out[k]["n_tokens"] == expected[k]["n_tokens"] for k in out)
    assert sum(out[k]["text"] != r["text"] for r in some for k in [r["page_id"]]) > 0


@pytest.mark.spark
def test_reextraction_outcomes_are_counted_from_spark(spark, shared_data, bulk_rows):
    # every page of the final corpus has one outcome: re-extracted, or the reason it kept its bulk text
    from corpus_pipeline.spark.io import rows_to_df
    from corpus_pipeline.spark.reextract import outcome_counts, reextract_df

    cfg = _two_tier_cfg()
    rows = [{**r, "score": 0.8, "first_iteration": 1} for r in bulk_rows[:12]]
    rows[0] = {**rows[0], "warc_offset": None}                                  # nothing to fetch
    rows[1] = {**rows[1], "warc_file": rows[1]["warc_file"] + ".missing"}       # record not found
    pages = rows_to_df(spark, [schemas.row(schemas.PAGES, r) for r in rows], schemas.PAGES)
    corpus = rows_to_df(spark, [schemas.row(schemas.FINAL_CORPUS, r) for r in rows], schemas.FINAL_CORPUS)
    noted = reextract_df(spark, corpus, pages, cfg, keep_outcome=True)
    got = outcome_counts(noted)
    pure = Counts()
    list(reference.reextract_rows(rows, cfg, pure))
    assert got == pure.as_dict()
    assert sum(got.values()) == len(rows) and got["refetch_no_offset"] == 1 and got["reextracted"] >= 8
    assert noted.count() == len(rows)
