"""WARC reading on real files (Common Crawl, wget crawl, warcio's broken files) and damaged copies."""
from __future__ import annotations

import gzip
import io

import pytest

from corpus_pipeline import warc
from corpus_pipeline.config import IngestConfig as _IngestConfig
from corpus_pipeline.counters import Counts

# Every test runs with each WARC reader (ingest.warc_reader): the same records and counts.
READER = {"name": "warcio"}


def IngestConfig(**kw):  # noqa: N802 - stands in for the config class with the reader under test
    kw.setdefault("warc_reader", READER["name"])
    return _IngestConfig(**kw)


@pytest.fixture(autouse=True, params=warc.READERS)
def warc_reader(request):
    READER["name"] = request.param
    yield request.param

RECORD_REASONS = {"non_response", "no_http_headers", "not_html", "page_too_large", "truncated_record",
                  "decode_failed", "http_status_invalid", "invalid_target_uri"}


def read_all(path, cfg=None, counts=None):
    cfg = cfg or IngestConfig()
    counts = counts if counts is not None else Counts("ingest", str(path))
    pages = list(warc.read_file(lambda: open(path, "rb"), str(path), cfg, counts))
    return pages, counts


def read_bytes(data: bytes, cfg=None, name="mem.warc.gz"):
    cfg = cfg or IngestConfig()
    counts = Counts("ingest", name)
    pages = list(warc.read_file(lambda: io.BytesIO(data), name, cfg, counts))
    return pages, counts


def record_outcomes(counts: Counts, n_pages: int) -> int:
    d = counts.as_dict()
    return n_pages + sum(v for k, v in d.items() if k in RECORD_REASONS or k.startswith("http_status_"))


def make_warc(records, gz=True) -> bytes:
    """records: (url, status, content_type, body bytes, date) -> WARC bytes written by warcio."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buf = io.BytesIO()
    w = WARCWriter(buf, gzip=gz)
    for url, status, ctype, body, date in records:
        headers = [("Content-Type", ctype)] if ctype else []
        http = StatusAndHeaders(f"{status} X", headers + [("Content-Length", str(len(body)))],
                                protocol="HTTP/1.1")
        rec = w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                   warc_headers_dict={"WARC-Date": date})
        w.write_record(rec)
    return buf.getvalue()


# ---------------------------------------------------------------- real files
def test_common_crawl_sample(shared_data):
    path = shared_data / "warc/whirlwind/whirlwind.warc.gz"
    pages, counts = read_all(path)
    assert [p.url for p in pages] == ["https://an.wikipedia.org/wiki/Escopete"]
    p = pages[0]
    assert counts["records"] == 4 and counts["non_response"] == 3 and counts["files_read"] == 1
    assert "Escopete" in p.html and p.charset == "utf-8"
    assert p.fetched_at and p.fetched_at.endswith("Z") and len(p.fetched_at) == 20
    # the offset addresses the record: a reader started there sees this response first
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as f:
        f.seek(p.warc_offset)
        rec = next(iter(ArchiveIterator(f)))
        assert rec.rec_type == "response"
        assert rec.rec_headers.get_header("WARC-Target-URI") == p.url
        assert warc.normalize_date(rec.rec_headers.get_header("WARC-Date")) == p.fetched_at


def test_wget_crawl_uri_wrapper_and_refetches(shared_data):
    pages = []
    counts = Counts()
    for f in sorted((shared_data / "warc/dolma").glob("sample-*.warc.gz")):
        pages += read_all(f, counts=counts)[0]
    assert pages and all(not p.url.startswith("<") and not p.url.endswith(">") for p in pages)
    allen = [p for p in pages if p.url == "https://allenai.org/"]
    assert len(allen) == 3
    assert len({p.fetched_at for p in allen}) >= 2
    assert record_outcomes(counts, len(pages)) == counts["records"]


def test_warcio_broken_files_never_raise(shared_data):
    folder = shared_data / "warc/warcio_testdata"
    files = sorted(p for p in folder.iterdir() if p.name not in ("LICENSE", "NOTICE"))
    assert len(files) >= 15
    total = Counts()
    for f in files:
        pages, counts = read_all(f)
        assert counts["files"] == 1
        total.merge(counts)
        for p in pages:
            assert p.url and isinstance(p.html, str)
    # the damage is counted, not raised
    c = total.as_dict()
    assert c.get("corrupt_record", 0) + c.get("truncated_record", 0) + c.get("non_chunked_gzip_file", 0) >= 3


def test_whole_file_gzip_is_read_through_a_decoder(shared_data):
    pages, counts = read_all(shared_data / "warc/warcio_testdata/example-bad.warc.gz.bad")
    assert counts["non_chunked_gzip_file"] == 1
    # the same records as its decompressed content, without addressable offsets
    raw = gzip.decompress((shared_data / "warc/warcio_testdata/example-bad.warc.gz.bad").read_bytes())
    plain, plain_counts = read_bytes(raw, name="plain.warc")
    assert pages and [p.url for p in pages] == [p.url for p in plain]
    assert counts["records"] == plain_counts["records"]
    assert all(p.warc_offset is None for p in pages)


# ---------------------------------------------------------------- damage
@pytest.fixture(scope="module")
def sample_bytes(shared_data) -> bytes:
    return (shared_data / "warc/dolma/sample-0000.warc.gz").read_bytes()


def test_truncated_file_keeps_every_record_before_the_cut(sample_bytes):
    full, _ = read_bytes(sample_bytes)
    for frac in (0.3, 0.5, 0.8):
        cut = int(len(sample_bytes) * frac)
        pages, counts = read_bytes(sample_bytes[:cut])
        assert [p.url for p in pages] == [p.url for p in full[:len(pages)]]
        assert 0 < len(pages) < len(full)
        # what lies behind the cut is counted as damage
        assert counts["truncated_record"] + counts["corrupt_gzip"] + counts["corrupt_record"] >= 1
        assert counts["files_read"] == 1


def test_corrupt_gzip_member_is_counted(sample_bytes):
    full, _ = read_bytes(sample_bytes)
    bad = bytearray(sample_bytes)
    mid = len(bad) // 3
    for i in range(mid, mid + 200):
        bad[i] ^= 0xFF
    pages, counts = read_bytes(bytes(bad))
    assert counts["corrupt_gzip"] + counts["corrupt_record"] + counts["truncated_record"] >= 1
    assert [p.url for p in pages] == [p.url for p in full[:len(pages)]]
    assert len(pages) < len(full)


def test_not_a_warc_at_all():
    # judged by the first bytes: counted not_warc and not read further (no record counted)
    cases = [b"<!doctype html><html><body>hello</body></html>\n" * 20,
             gzip.compress(b"not a warc file\n" * 100),
             # lines of five or six words parse as ARC headers: the first bytes say otherwise
             b"<!doctype html><html><body>this is not a WARC</body></html>\n" * 10,
             b"PK\x03\x04" + bytes(range(256)) * 4]
    for data in cases:
        pages, counts = read_bytes(data)
        assert pages == [] and counts["not_warc"] == 1 and counts["files_read"] == 0
        assert counts["records"] == 0 and counts["files"] == 1
    pages, counts = read_bytes(b"")
    assert pages == [] and counts["empty_file"] == 1 and counts["files_read"] == 0


def test_sniff_decides_by_the_first_bytes(sample_bytes):
    from corpus_pipeline.warc import sniff

    assert sniff(sample_bytes[:4096]) is None                      # per-record gzip
    assert sniff(gzip.decompress(sample_bytes)[:4096]) is None     # plain WARC
    assert sniff(gzip.compress(gzip.decompress(sample_bytes))[:4096]) is None    # whole-file gzip
    assert sniff(b"\r\nWARC/1.0\r\n") is None
    assert sniff(b"filedesc://x.arc 0.0.0.0 20240101000000 text/plain 10\n") is None    # ARC
    assert sniff(b"") == "empty_file"
    assert sniff(b"WARD/1.0") == "not_warc"
    assert sniff(gzip.compress(b"<html>")) == "not_warc"
    assert sniff(b"\x1f\x8b\x08\x00garbage" * 50) == "not_warc"
    assert sniff(gzip.compress(b"")) == "empty_file"
    # a gzip cut inside its header: counted truncated_record, not read
    assert sniff(sample_bytes[:6]) == "truncated_record"
    pages, counts = read_bytes(sample_bytes[:6])
    assert pages == [] and counts["files_read"] == 0 and counts["truncated_record"] == 1
    # cut after its first record: what it holds is read, the cut counted
    pages, counts = read_bytes(sample_bytes[:len(sample_bytes) // 2])
    assert counts["files_read"] == 1 and counts["truncated_record"] + counts["corrupt_gzip"] >= 1


def test_missing_file_is_counted(tmp_path):
    pages, counts = read_all(tmp_path / "nope.warc.gz")
    assert pages == [] and counts["file_not_found"] == 1 and counts["files_read"] == 0


# ---------------------------------------------------------------- record filters
def test_status_type_size_and_charset_filters():
    d = "2024-01-02T03:04:05Z"
    big = b"<html><body>" + b"x" * 5000 + b"</body></html>"
    data = make_warc([
        ("<http://a.example/ok>", 200, "text/html; charset=utf-8", "<html><body>é ok</body></html>".encode(), d),
        ("http://a.example/moved", 301, "text/html", b"<html>moved</html>", d),
        ("http://a.example/missing", 404, "text/html", b"<html>missing</html>", d),
        ("http://a.example/img.png", 200, "image/png", b"\x89PNG....", d),
        ("http://a.example/big", 200, "text/html", big, d),
        ("http://a.example/latin", 200, "text/html; charset=ISO-8859-1", "<p>café crème</p>".encode("latin-1"), d),
        ("http://a.example/gbk", 200, "text/html",
         '<meta charset="gb2312"><p>数学是研究数量的学科</p>'.encode("gbk"), d),
        ("http://a.example/xhtml", 200, "application/xhtml+xml", b"<html><body>x</body></html>", d),
        ("http://a.example/nohdr", 200, None, b"<!DOCTYPE html><html><body>sniffed</body></html>", d),
        ("http://a.example/nohdr-bin", 200, None, b"\x00\x01\x02binary", d),
    ])
    cfg = IngestConfig(max_page_bytes=4000)
    pages, counts = read_bytes(data, cfg)
    by_url = {p.url: p for p in pages}
    assert set(by_url) == {"http://a.example/ok", "http://a.example/latin", "http://a.example/gbk",
                           "http://a.example/xhtml", "http://a.example/nohdr"}
    assert counts["http_status_3xx"] == 1 and counts["http_status_4xx"] == 1
    assert counts["not_html"] == 2 and counts["page_too_large"] == 1
    assert "café crème" in by_url["http://a.example/latin"].html
    assert "数学是研究数量的学科" in by_url["http://a.example/gbk"].html
    assert by_url["http://a.example/ok"].fetched_at == d
    assert record_outcomes(counts, len(pages)) == counts["records"] == 10
    # keep_status is honoured: keeping 404 brings that page in
    pages2, _ = read_bytes(data, IngestConfig(max_page_bytes=4000, keep_status=[200, 404]))
    assert "http://a.example/missing" in {p.url for p in pages2}


def test_decode_html_order_and_fallback():
    # HTTP header wins over a contradicting meta tag when it decodes
    html = '<meta charset="utf-8"><p>Ærø</p>'.encode("cp1252")
    text, codec = warc.decode_html(html, "text/html; charset=windows-1252")
    assert "Ærø" in text and codec == "cp1252"
    # meta charset alone
    text, codec = warc.decode_html('<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
                                   '<p>Привет</p>'.encode("koi8-r"))
    assert "Привет" in text and codec.replace("_", "-") == "koi8-r"
    # wrong declaration (utf-8 declared, Cyrillic cp1251 bytes): detection takes over
    body = ("<p>" + "Теорема Пифагора: квадрат гипотенузы равен сумме квадратов катетов. " * 20 + "</p>")
    text, codec = warc.decode_html(body.encode("cp1251"), "text/html; charset=utf-8")
    assert "гипотенузы" in text
    # undeclared utf-8
    text, codec = warc.decode_html("<p>∫ x dx = x²/2</p>".encode())
    assert "∫ x dx = x²/2" in text and codec == "utf-8"
    # BOM
    text, _ = warc.decode_html(b"\xef\xbb\xbf<p>bom</p>", "text/html; charset=iso-8859-1")
    assert text == "<p>bom</p>"


def test_normalize_date():
    assert warc.normalize_date("2024-05-18T01:58:10Z") == "2024-05-18T01:58:10Z"
    assert warc.normalize_date("2024-05-18T01:58:10.123456Z") == "2024-05-18T01:58:10Z"
    assert warc.normalize_date("2024-05-18T03:58:10+02:00") == "2024-05-18T01:58:10Z"
    assert warc.normalize_date("20140103030322") == "2014-01-03T03:03:22Z"
    assert warc.normalize_date("garbage") is None and warc.normalize_date(None) is None


# ---------------------------------------------------------------- mid-stream failures
class FlakyStream:
    """Raises ConnectionResetError once ``fail_at`` bytes have been served."""

    def __init__(self, data: bytes, fail_at=None):
        self._f = io.BytesIO(data)
        self.fail_at = fail_at

    def read(self, n=-1):
        pos = self._f.tell()
        if self.fail_at is not None:
            if pos >= self.fail_at:
                raise ConnectionResetError("connection reset by peer")
            if n is None or n < 0 or pos + n > self.fail_at:
                n = self.fail_at - pos
        return self._f.read(n)

    def close(self):
        pass


def _transient(e):
    return isinstance(e, ConnectionError)


@pytest.mark.parametrize("gz", [True, False])
def test_mid_stream_failure_resumes_without_duplicates(sample_bytes, gz):
    data = sample_bytes if gz else gzip.decompress(sample_bytes)
    full, full_counts = read_bytes(data)
    opens = []

    def opener():
        opens.append(1)
        # first two opens fail part-way at different places, the third reads through
        fail = {1: len(data) // 3, 2: (2 * len(data)) // 3}.get(len(opens))
        return FlakyStream(data, fail)

    counts = Counts()
    pages = list(warc.read_file(opener, "x", IngestConfig(), counts, transient=_transient,
                                attempts=3, backoff_s=0.0, sleep=lambda s: None))
    assert len(opens) == 3 and counts["file_retries"] == 2
    assert [(p.url, p.warc_offset) for p in pages] == [(p.url, p.warc_offset) for p in full]
    assert counts["records"] == full_counts["records"]
    assert counts["non_response"] == full_counts["non_response"]
    assert counts["files_read"] == 1 and counts["file_failed"] == 0


@pytest.mark.parametrize("gz", [True, False])
def test_ranged_reopen_starts_at_the_last_processed_record(sample_bytes, gz):
    data = sample_bytes if gz else gzip.decompress(sample_bytes)
    full, full_counts = read_bytes(data)
    starts = []

    def opener(start=0):
        starts.append(start)
        fail = {1: len(data) // 3, 2: (2 * len(data)) // 3}.get(len(starts))
        return FlakyStream(data[start:], None if fail is None else fail - start)

    counts = Counts()
    pages = list(warc.read_file(opener, "x", IngestConfig(), counts, transient=_transient, attempts=3,
                                backoff_s=0.0, sleep=lambda s: None, ranged=True))
    assert starts[0] == 0 and 0 < starts[1] < starts[2] < len(data)
    assert [(p.url, p.warc_offset, p.html) for p in pages] == [(p.url, p.warc_offset, p.html) for p in full]
    assert counts["records"] == full_counts["records"] and counts["file_retries"] == 2


def test_file_that_keeps_failing_is_counted_and_bounded(sample_bytes):
    opens, sleeps = [], []

    def opener():
        opens.append(1)
        return FlakyStream(sample_bytes, len(sample_bytes) // 2)

    counts = Counts()
    pages = list(warc.read_file(opener, "x", IngestConfig(), counts, transient=_transient,
                                attempts=4, backoff_s=0.5, sleep=sleeps.append))
    assert len(opens) == 4 and counts["file_retries"] == 3 and counts["file_failed"] == 1
    assert sleeps == [0.5, 1.0, 2.0]                      # exponential backoff
    full, _ = read_bytes(sample_bytes)
    assert 0 < len(pages) < len(full)                     # pages before the failure are kept, once each
    assert len({p.warc_offset for p in pages}) == len(pages)


def test_open_failure_non_transient_is_not_retried():
    opens = []

    def opener():
        opens.append(1)
        raise PermissionError("denied")

    counts = Counts()
    assert list(warc.read_file(opener, "x", IngestConfig(), counts, transient=_transient, attempts=5)) == []
    assert len(opens) == 1 and counts["file_failed"] == 1 and counts["files_read"] == 0
