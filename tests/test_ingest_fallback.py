"""No page lost at ingest that an extractor can extract: real pages whose bulk text (resiliparse) is
empty or too short are re-extracted with the fallback extractor (trafilatura) before they are
skipped; ``pages`` records which extractor made each text; a page both lose keeps its reason."""
from __future__ import annotations

import gzip
import json

import pytest

from corpus_pipeline.config import Config
from corpus_pipeline.counters import Counts
from corpus_pipeline.extract import Extracted, extract_html
from corpus_pipeline.ingest import is_stat, process_source
from test_ingest import make_warc


@pytest.fixture(scope="module")
def lost_by_bulk(shared_data):
    """(url, html) of the labeled real pages whose resiliparse text is under ingest.min_text_chars,
    and for each whether trafilatura extracts enough."""
    cfg = Config().ingest
    out = []
    for r in (json.loads(x) for x in open(shared_data / "labeled" / "pages_labeled.jsonl", encoding="utf-8")):
        if not r["url"].startswith(("http://", "https://")):
            continue                                  # a crawled page has a real URL
        p = shared_data / r["path"]
        html = (gzip.open(p).read() if r.get("compressed") else p.read_bytes()).decode("utf-8", "replace")
        a = extract_html(html, r["url"], timeout_s=60, extractor="resiliparse")
        if isinstance(a, Extracted) and len(a.text.strip()) >= cfg.min_text_chars:
            continue
        b = extract_html(html, r["url"], timeout_s=60, extractor="trafilatura")
        out.append((r["url"], html, isinstance(b, Extracted) and len(b.text.strip()) >= cfg.min_text_chars))
    return out


def test_pages_the_bulk_extractor_loses_are_kept_by_the_fallback(lost_by_bulk, tmp_path):
    assert sum(ok for *_, ok in lost_by_bulk) >= 10          # the real pages of the kind are there
    warc = make_warc(tmp_path / "lost.warc.gz", [(u, h, "2024-05-20T00:00:00Z") for u, h, _ in lost_by_bulk])
    cfg = Config()
    assert cfg.ingest.extractor == "resiliparse" and cfg.ingest.fallback() == "trafilatura"
    counts = Counts()
    rows = list(process_source(warc, cfg, counts))
    rescued = {u for u, _, ok in lost_by_bulk if ok}
    assert {r["url"] for r in rows} == rescued
    assert all(r["extractor"] == "trafilatura" and len(r["text"]) >= cfg.ingest.min_text_chars for r in rows)
    c = counts.as_dict()
    assert c["bulk_fallback"] == len(rescued) and is_stat("bulk_fallback")
    lost = len(lost_by_bulk) - len(rescued)                  # both failed: the bulk extractor's reason
    assert sum(v for k, v in c.items() if not is_stat(k) and k in ("extract_empty", "text_too_short")) == lost

    cfg.ingest.fallback_extractor = "none"                    # off: every one of them skipped, counted
    counts = Counts()
    assert list(process_source(warc, cfg, counts)) == []
    c = counts.as_dict()
    assert c.get("bulk_fallback", 0) == 0
    assert c.get("extract_empty", 0) + c.get("text_too_short", 0) == len(lost_by_bulk)


def test_a_page_the_bulk_extractor_keeps_says_so(shared_data, tmp_path):
    html = "<html><head><title>T</title></head><body><article>" + "<p>" + "word " * 80 + "</p></article></body></html>"
    warc = make_warc(tmp_path / "ok.warc.gz", [("https://example.org/a", html, "2024-05-20T00:00:00Z")])
    counts = Counts()
    (row,) = list(process_source(warc, Config(), counts))
    assert row["extractor"] == "resiliparse" and counts.as_dict().get("bulk_fallback", 0) == 0


def test_fallback_setting_is_checked():
    from corpus_pipeline.config import ConfigError, load_config

    assert load_config(None, ['ingest.extractor="trafilatura"']).ingest.fallback() is None
    assert load_config(None, ['ingest.fallback_extractor="none"']).ingest.fallback() is None
    with pytest.raises(ConfigError, match="ingest.fallback_extractor"):
        load_config(None, ['ingest.fallback_extractor="nope"'])
