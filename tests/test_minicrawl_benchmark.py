"""The mini-crawl's made-up benchmark: written where the decontamination loaders look, some items
planted in pages, each planted page caught by the rule it was planted for (no Spark)."""
from __future__ import annotations

import json
import zlib

from corpus_pipeline import decontam as D
from corpus_pipeline.config import DecontamConfig, IngestConfig
from corpus_pipeline.extract import extract_html
from corpus_pipeline.minicrawl import generate
from corpus_pipeline.minicrawl import benchmark as B


def _members(data: bytes) -> bytes:
    """Every complete gzip member of a WARC file (the crawl ends one file with a truncated record)."""
    out = []
    while data:
        d = zlib.decompressobj(wbits=31)
        chunk = d.decompress(data)
        if not d.eof:
            break
        out.append(chunk)
        data = d.unused_data
    return b"".join(out)


def test_benchmark_written_planted_and_caught(tmp_path):
    out = tmp_path / "crawl"
    m = generate(out, pages=300, random_seed=7)
    bm = D.load_benchmarks(out / "benchmarks")
    assert bm.names() == ["gsm8k"] and len(bm.items) == B.N_ITEMS
    planted = m["benchmarks"]["planted"]
    assert [p["rule"] for p in planted] == ["ngram"] * B.PLANTED_LONG + ["short_exact"]
    assert len({p["url"] for p in planted}) == len(planted)
    items = {it.item_id: it for it in bm.items}
    cfg = DecontamConfig()
    index = D.build_index(bm, cfg)
    raw = {f.name: _members(f.read_bytes()) for f in sorted((out / "warc").glob("*.warc.gz"))}
    for p in planted:
        q = items[p["item_id"]].question
        assert sum(data.count(q.encode()) for data in raw.values()) >= 1, p
    # the planted pages' extracted text is caught by the rule it was planted for; others are clean
    found = {}
    for data in raw.values():
        for chunk in data.split(b"WARC/1.0\r\n"):
            for p in planted:
                uri = chunk.split(b"WARC-Target-URI: ", 1)[-1].split(b"\r\n", 1)[0].strip(b"<>")
                if uri == p["url"].encode() and b"msgtype=response" in chunk:
                    html = chunk.split(b"\r\n\r\n", 2)[2].decode("utf-8", "replace")
                    # the bulk extractor (ingest.extractor); trafilatura drops the last paragraph of some
                    # forum posts, planted items included (a known extraction gap, see README)
                    found[p["url"]] = extract_html(html, p["url"], extractor=IngestConfig().extractor).text
    assert set(found) == {p["url"] for p in planted}
    for p in planted:
        res = D.decontaminate_text(found[p["url"]], index, cfg)
        assert (p["item_id"] in {r[1] for r in res.rows}), p
        if p["rule"] == "short_exact":
            assert res.removed
        else:
            assert not res.removed and res.lines_removed == 1
            assert items[p["item_id"]].question not in res.text
    unplanted = set(items) - {p["item_id"] for p in planted}
    assert len(unplanted) == B.N_ITEMS - len(planted)
    text = "\n".join(found.values())
    assert not any(items[k].question in text for k in unplanted)


def test_planting_is_deterministic_and_keeps_the_rest_of_the_crawl(tmp_path):
    a = generate(tmp_path / "a", pages=300, random_seed=7)
    b = generate(tmp_path / "b", pages=300, random_seed=7)
    assert a == b
    assert (tmp_path / "a" / B.FILE).read_bytes() == (tmp_path / "b" / B.FILE).read_bytes()
    lines = [json.loads(x) for x in (tmp_path / "a" / B.FILE).read_text().splitlines()]
    assert all(set(x) == {"id", "question", "answer"} for x in lines)
    # labels do not change with planting (its random stream is separate)
    assert a["label_counts"] == b["label_counts"]
