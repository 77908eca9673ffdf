"""https:// inputs against a real HTTP server on 127.0.0.1: Range support, throttling, resets mid-body."""
from __future__ import annotations

import gzip
import os
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from netfaults import drop_mid_body

from corpus_pipeline import sources
from corpus_pipeline.config import Config, IngestConfig
from corpus_pipeline.counters import Counts
from corpus_pipeline.errors import UsageError
from corpus_pipeline.ingest import process_source
from corpus_pipeline.sources import stream

FILES = ["warc/whirlwind/whirlwind.warc.gz", "warc/dolma/sample-0000.warc.gz",
         "warc/derived_minicrawl/minicrawl-00.warc.gz"]


class WarcServer:
    """Serves a folder over HTTP/1.1 with ``Range: bytes=N-``.

    ``reset_first``: the first GET of each path sends its headers and half its body, then
    aborts the connection (RST).  ``throttle_every``: every N-th GET answers ``throttle_status``
    with ``Retry-After: 0``.  ``ignore_range``: answers 200 with the whole file to ranged GETs.
    """

    def __init__(self, root, reset_first=False, throttle_every=0, throttle_status=503, ignore_range=False):
        self.root = str(root)
        self.reset_first, self.throttle_every, self.throttle_status = reset_first, throttle_every, throttle_status
        self.ignore_range = ignore_range
        self.gets = self.throttled = self.resets = 0
        self.range_starts: list[int] = []
        self._reset_done: set = set()
        self._lock = threading.Lock()
        srv = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _file(self):
                path = os.path.join(srv.root, self.path.lstrip("/").split("?", 1)[0])
                return path if os.path.isfile(path) else None

            def do_HEAD(self):
                path = self._file()
                self.send_response(200 if path else 404)
                self.send_header("Content-Length", str(os.path.getsize(path)) if path else "0")
                self.end_headers()

            def do_GET(self):
                with srv._lock:
                    srv.gets += 1
                    throttle = srv.throttle_every and srv.gets % srv.throttle_every == 0
                    srv.throttled += bool(throttle)
                if throttle:
                    self.send_response(srv.throttle_status)
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path = self._file()
                if path is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = open(path, "rb").read()
                start = 0
                m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
                if m:
                    with srv._lock:
                        srv.range_starts.append(int(m.group(1)))
                    if not srv.ignore_range:
                        start = int(m.group(1))
                body = data[start:]
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("ETag", '"v1"')
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with srv._lock:
                    cut = srv.reset_first and self.path not in srv._reset_done and len(body) > 4000
                    if cut:
                        srv._reset_done.add(self.path)
                        srv.resets += 1
                if cut:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    drop_mid_body(self.connection)
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None   # the client hanging up mid-body is expected
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def hcfg(**kw) -> IngestConfig:
    base = dict(http_max_attempts=5, http_backoff_s=0.01, file_attempts=3, file_retry_backoff_s=0.01,
                http_read_timeout_s=10.0)
    base.update(kw)
    return IngestConfig(**base)


def pages_of(ref, cfg):
    counts = Counts()
    return [(p.url, p.warc_offset, p.fetched_at, p.html) for p in sources.iter_pages(ref, cfg, counts)], counts


@pytest.fixture
def server(shared_data):
    servers = []

    def make(**kw):
        s = WarcServer(shared_data, **kw)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


@pytest.mark.parametrize("rel", FILES)
def test_http_equals_local(server, shared_data, rel):
    srv = server()
    want, wc = pages_of(str(shared_data / rel), IngestConfig())
    got, gc = pages_of(f"{srv.url}/{rel}", hcfg())
    assert got == want and len(want) >= 1
    assert gc["records"] == wc["records"] and gc["files_read"] == 1
    assert srv.gets == 1 and srv.range_starts == []


@pytest.mark.parametrize("rel", FILES)
def test_reset_mid_file_resumes_with_a_range_at_the_last_record(server, shared_data, rel):
    srv = server(reset_first=True)
    want, wc = pages_of(str(shared_data / rel), IngestConfig())
    got, gc = pages_of(f"{srv.url}/{rel}", hcfg())
    assert srv.resets == 1
    assert got == want                                   # nothing lost, nothing twice
    assert gc["records"] == wc["records"] and gc["file_retries"] == 1 and gc["file_failed"] == 0
    # the re-open asked for the rest of the file from the last record read before the cut, not from 0
    assert len(srv.range_starts) == 1
    assert 0 < srv.range_starts[0] <= os.path.getsize(shared_data / rel) // 2


@pytest.mark.parametrize("status", [503, 429])
def test_throttling_is_retried_and_counted(server, shared_data, status):
    rel = FILES[2]
    srv = server(throttle_every=2, throttle_status=status, reset_first=True)
    want, _ = pages_of(str(shared_data / rel), IngestConfig())
    got, gc = pages_of(f"{srv.url}/{rel}", hcfg())
    assert got == want
    assert srv.throttled >= 1 and gc["http_retries"] == srv.throttled


def test_throttling_beyond_attempts_fails_the_file_counted(server):
    srv = server(throttle_every=1)
    got, gc = pages_of(f"{srv.url}/{FILES[0]}", hcfg(http_max_attempts=2, file_attempts=2))
    assert got == [] and gc["file_failed"] == 1 and gc["files_read"] == 0
    assert srv.gets == 4 and gc["http_retries"] == 2      # 2 request attempts x 2 file attempts


def test_server_ignoring_range_still_resumes_right(server, shared_data):
    rel = FILES[2]
    srv = server(reset_first=True, ignore_range=True)
    want, _ = pages_of(str(shared_data / rel), IngestConfig())
    got, gc = pages_of(f"{srv.url}/{rel}", hcfg())
    assert got == want and gc["file_retries"] == 1 and len(srv.range_starts) == 1


def test_missing_url_and_globs(server):
    srv = server()
    got, gc = pages_of(f"{srv.url}/warc/nope.warc.gz", hcfg())
    assert got == [] and gc["file_not_found"] == 1
    with pytest.raises(UsageError, match="matches no WARC"):
        sources.resolve([f"{srv.url}/warc/nope.warc.gz"], hcfg())
    with pytest.raises(UsageError, match="cannot be listed"):
        sources.resolve([f"{srv.url}/warc/*.warc.gz"], hcfg())
    assert sources.resolve([f"{srv.url}/{FILES[0]}"], hcfg()) == [f"{srv.url}/{FILES[0]}"]


def test_unreachable_server_is_a_counted_failure():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    got, gc = pages_of(f"http://127.0.0.1:{port}/x.warc.gz", hcfg(http_max_attempts=2, file_attempts=1))
    assert got == [] and gc["file_failed"] == 1 and gc["http_retries"] == 1


@pytest.mark.parametrize("served_manifest", [False, True])
def test_manifest_with_an_http_base(server, shared_data, tmp_path, served_manifest):
    """Common Crawl outside AWS: ``warc.paths.gz`` lines against ``https://data.commoncrawl.org/``."""
    srv = server(reset_first=True)
    body = gzip.compress(("\n".join(FILES) + "\n").encode())
    if served_manifest:
        (tmp_path / "srv").mkdir()
        srv.root = str(tmp_path / "srv")      # the manifest is served too; WARCs from the same server
        os.symlink(shared_data / "warc", tmp_path / "srv" / "warc")
        (tmp_path / "srv" / "warc.paths.gz").write_bytes(body)
        src = f"{srv.url}/warc.paths.gz"
    else:
        (tmp_path / "warc.paths.gz").write_bytes(body)
        src = str(tmp_path / "warc.paths.gz")
    cfg = hcfg(manifest_base=srv.url + "/")
    refs = sources.resolve([src], cfg)
    assert refs == [f"{srv.url}/{f}" for f in FILES]
    got = [p for r in refs for p in pages_of(r, cfg)[0]]
    want = [p for f in FILES for p in pages_of(str(shared_data / f), IngestConfig())[0]]
    assert got == want


def test_backoff_delay_grows_caps_and_honours_retry_after():
    mid = lambda: 0.5  # noqa: E731
    assert stream.backoff_delay(1, 1.0, rng=mid) == 0.75
    assert stream.backoff_delay(3, 1.0, rng=mid) == 3.0
    assert stream.backoff_delay(20, 1.0, cap_s=60, rng=mid) == 45.0
    assert stream.backoff_delay(1, 0.01, retry_after="5", rng=mid) == 5.0
    assert stream.backoff_delay(1, 0.01, retry_after="600", cap_s=60, rng=mid) == 60.0
    assert stream.backoff_delay(1, 1.0, retry_after="soon", rng=mid) == 0.75


@pytest.mark.spark
@pytest.mark.slow
def test_spark_ingest_from_http_manifest_with_resets(server, shared_data, spark, tmp_path):
    from corpus_pipeline import schemas
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.loop import run_ingest
    from corpus_pipeline.spark.io import read_table

    srv = server(reset_first=True, throttle_every=3)
    m = tmp_path / "warc.paths"
    m.write_text("\n".join(FILES[:2]) + "\n")
    cfg = Config()
    cfg.dedup.near = False
    cfg.ingest = hcfg(manifest_base=srv.url + "/")
    run = RunFolder(str(tmp_path / "run_http"))
    res = run_ingest(spark, [str(m)], run, cfg, log=lambda s: None)
    cols = [c for c in schemas.columns(schemas.PAGES) if c != "warc_file"]
    got = sorted(tuple(r) for r in read_table(spark, run.data(res.path), schemas.PAGES).select(*cols).collect())
    want = sorted(tuple(r[c] for c in cols) for f in FILES[:2]
                  for r in process_source(str(shared_data / f), Config(), Counts()))
    assert got == want and len(got) >= 2
    assert res.counts["files_read"] == 2 and srv.resets == 2 and srv.throttled >= 1
    assert res.counts["file_retries"] == 2 and res.counts["http_retries"] == srv.throttled
