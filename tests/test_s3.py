"""S3 over HTTP: moto's server on loopback, a throttling/resetting proxy in front of it."""
from __future__ import annotations

import gzip
import http.client
import json
from corpus_pipeline.spark.cluster import free_port
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from netfaults import drop_mid_body

from corpus_pipeline import sources
from corpus_pipeline import warc as _warc
from corpus_pipeline.config import Config as _Config
from corpus_pipeline.config import IngestConfig as _IngestConfig
from corpus_pipeline.counters import Counts
from corpus_pipeline.errors import UsageError
from corpus_pipeline.ingest import process_source
from corpus_pipeline.sources import s3 as s3mod

# Every test runs with each WARC reader (ingest.warc_reader): the same pages and counts.
READER = {"name": "warcio"}


def IngestConfig(**kw):  # noqa: N802 - the config class with the reader under test
    kw.setdefault("warc_reader", READER["name"])
    return _IngestConfig(**kw)


def Config():  # noqa: N802
    cfg = _Config()
    cfg.ingest.warc_reader = READER["name"]
    return cfg


@pytest.fixture(autouse=True, params=_warc.READERS)
def warc_reader(request):
    READER["name"] = request.param
    yield request.param


BUCKET = "crawl-test"
FILES = {
    "dolma/sample-0000.warc.gz": "warc/dolma/sample-0000.warc.gz",
    "dolma/sample-0001.warc.gz": "warc/dolma/sample-0001.warc.gz",
    "cc/whirlwind.warc.gz": "warc/whirlwind/whirlwind.warc.gz",
    "dolma/science-0.warc.gz": "warc/dolma/science-0.warc.gz",
}
SLOWDOWN = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
            b'<Message>Please reduce your request rate.</Message><RequestId>x</RequestId></Error>')




@pytest.fixture(scope="module")
def bucket(moto_url, shared_data):
    """Uploads the WARCs and a manifest with boto3 (dummy credentials)."""
    import boto3

    c = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing",
                              region_name="us-east-1").client("s3", endpoint_url=moto_url)
    c.create_bucket(Bucket=BUCKET)
    # public-read like Common Crawl's bucket, so unsigned requests work too
    c.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject", "s3:ListBucket"],
        "Resource": [f"arn:aws:s3:::{BUCKET}", f"arn:aws:s3:::{BUCKET}/*"]}]}))
    for key, rel in FILES.items():
        c.upload_file(str(shared_data / rel), BUCKET, key)
    manifest = "\n".join(sorted(FILES)) + "\n"
    c.put_object(Bucket=BUCKET, Key="manifests/warc.paths.gz", Body=gzip.compress(manifest.encode()))
    return BUCKET


@pytest.fixture(autouse=True)
def dummy_credentials(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    s3mod._clients.clear()
    yield
    s3mod._clients.clear()


class Proxy:
    """Loopback proxy in front of moto: 503 SlowDown on every ``every``-th GET; optionally cuts the
    first body of every object half-way (``reset_bodies``)."""

    def __init__(self, upstream: str, every: int = 0, reset_bodies: bool = False):
        self.upstream = upstream.split("://", 1)[1]
        self.every, self.reset_bodies = every, reset_bodies
        self.gets = self.throttled = self.resets = self.ranged = 0
        self._reset_keys: set = set()
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _forward(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                if self.command == "GET":
                    with proxy._lock:
                        proxy.gets += 1
                        proxy.ranged += bool(self.headers.get("Range"))
                        throttle = proxy.every and proxy.gets % proxy.every == 0
                        if throttle:
                            proxy.throttled += 1
                    if throttle:
                        self.send_response(503)
                        self.send_header("Content-Type", "application/xml")
                        self.send_header("Content-Length", str(len(SLOWDOWN)))
                        self.end_headers()
                        self.wfile.write(SLOWDOWN)
                        return
                conn = http.client.HTTPConnection(proxy.upstream, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                cut = False
                if (self.command == "GET" and proxy.reset_bodies and resp.status in (200, 206)
                        and "list-type" not in self.path and len(data) > 2000):
                    with proxy._lock:
                        if self.path not in proxy._reset_keys:
                            proxy._reset_keys.add(self.path)
                            proxy.resets += 1
                            cut = True
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if cut:
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    drop_mid_body(self.connection)
                    self.close_connection = True
                    return
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def s3cfg(url: str, **kw) -> IngestConfig:
    base = dict(s3_endpoint_url=url, s3_max_attempts=6, file_attempts=3, file_retry_backoff_s=0.01,
                s3_read_timeout_s=10.0)
    base.update(kw)
    return IngestConfig(**base)


def local_pages(shared_data, key):
    counts = Counts()
    return [(p.url, p.warc_offset, p.fetched_at, p.html)
            for p in sources.iter_pages(str(shared_data / FILES[key]), IngestConfig(), counts)], counts


def s3_pages(ref, cfg):
    counts = Counts()
    return [(p.url, p.warc_offset, p.fetched_at, p.html) for p in sources.iter_pages(ref, cfg, counts)], counts


# ---------------------------------------------------------------- resolve
def test_resolve_key_prefix_glob_and_manifest(bucket, moto_url):
    cfg = s3cfg(moto_url)
    assert sources.resolve([f"s3://{bucket}/cc/whirlwind.warc.gz"], cfg) == [f"s3://{bucket}/cc/whirlwind.warc.gz"]
    assert sources.resolve([f"s3://{bucket}/dolma/"], cfg) == [
        f"s3://{bucket}/dolma/sample-0000.warc.gz", f"s3://{bucket}/dolma/sample-0001.warc.gz",
        f"s3://{bucket}/dolma/science-0.warc.gz"]
    # a prefix without the trailing slash, and a key glob
    assert len(sources.resolve([f"s3://{bucket}/dolma"], cfg)) == 3
    assert sources.resolve([f"s3://{bucket}/dolma/sample-*.warc.gz"], cfg) == [
        f"s3://{bucket}/dolma/sample-0000.warc.gz", f"s3://{bucket}/dolma/sample-0001.warc.gz"]
    # paginated listing: pages of 2 keys, one GET per page
    proxy = Proxy(moto_url)
    try:
        keys = s3mod.list_keys(bucket, "", s3cfg(proxy.url), page_size=2)
        assert len(keys) == len(FILES) + 1 and proxy.gets == 3
    finally:
        proxy.close()
    # manifest in S3, relative lines against the configured base
    refs = sources.resolve([f"s3://{bucket}/manifests/warc.paths.gz"], s3cfg(moto_url, manifest_base=f"s3://{bucket}/"))
    assert refs == [f"s3://{bucket}/{k}" for k in sorted(FILES)]
    with pytest.raises(UsageError):
        sources.resolve([f"s3://{bucket}/nothing-here/"], cfg)


# ---------------------------------------------------------------- reading
def test_s3_equals_local_process_source(bucket, moto_url, shared_data):
    cfg = Config()
    cfg.ingest = s3cfg(moto_url)
    for key in ("cc/whirlwind.warc.gz", "dolma/science-0.warc.gz"):
        local = list(process_source(str(shared_data / FILES[key]), Config(), Counts()))
        remote = list(process_source(f"s3://{bucket}/{key}", cfg, Counts()))
        drop = ("warc_file",)
        assert [{k: v for k, v in r.items() if k not in drop} for r in remote] == \
               [{k: v for k, v in r.items() if k not in drop} for r in local]
        assert all(r["warc_file"] == f"s3://{bucket}/{key}" for r in remote)


def test_throttling_is_retried_and_result_equals_local(bucket, moto_url, shared_data):
    proxy = Proxy(moto_url, every=3)
    try:
        cfg = s3cfg(proxy.url)
        refs = sources.resolve([f"s3://{bucket}/dolma/", f"s3://{bucket}/cc/"], cfg)
        assert len(refs) == 4
        for ref in refs:
            key = ref.split(f"s3://{bucket}/", 1)[1]
            got, counts = s3_pages(ref, cfg)
            want, want_counts = local_pages(shared_data, key)
            assert got == want
            assert counts["records"] == want_counts["records"] and counts["file_failed"] == 0
        assert proxy.throttled >= 2            # 503s were served ...
        assert proxy.gets >= 4 + proxy.throttled  # ... and every one was retried by botocore
    finally:
        proxy.close()


def test_mid_stream_reset_resumes_without_duplicates(bucket, moto_url, shared_data):
    proxy = Proxy(moto_url, every=0, reset_bodies=True)
    try:
        cfg = s3cfg(proxy.url)
        for key in ("dolma/sample-0000.warc.gz", "dolma/sample-0001.warc.gz"):
            got, counts = s3_pages(f"s3://{bucket}/{key}", cfg)
            want, want_counts = local_pages(shared_data, key)
            assert got == want
            assert counts["file_retries"] == 1 and counts["records"] == want_counts["records"]
        assert proxy.resets == 2
        assert proxy.ranged == 2              # each re-open asked only for the rest of the file
    finally:
        proxy.close()


def test_unreachable_endpoint_and_missing_key_are_counted(bucket, moto_url):
    counts = Counts()
    cfg = s3cfg(f"http://127.0.0.1:{free_port()}", s3_max_attempts=2, file_attempts=2,
                s3_read_timeout_s=1.0, s3_connect_timeout_s=1.0)
    assert list(sources.iter_pages(f"s3://{bucket}/cc/whirlwind.warc.gz", cfg, counts)) == []
    assert counts["file_failed"] == 1 and counts["file_retries"] == 1 and counts["files_read"] == 0
    counts = Counts()
    assert list(sources.iter_pages(f"s3://{bucket}/cc/missing.warc.gz", s3cfg(moto_url), counts)) == []
    assert counts["file_not_found"] == 1


@pytest.mark.spark
@pytest.mark.slow
def test_spark_ingest_from_s3_manifest_through_throttling_proxy(bucket, moto_url, shared_data, spark, tmp_path):
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.loop import run_ingest
    from corpus_pipeline.spark.io import read_table
    from corpus_pipeline import schemas

    proxy = Proxy(moto_url, every=2)
    try:
        m = tmp_path / "warc.paths"
        m.write_text("cc/whirlwind.warc.gz\ndolma/science-0.warc.gz\n")
        cfg = Config()
        cfg.dedup.near = False
        # Spark's Python workers do not see this process's env: unsigned requests (the bucket is public)
        cfg.ingest = s3cfg(proxy.url, manifest_base=f"s3://{bucket}/", s3_anonymous=True)
        res = run_ingest(spark, [str(m)], RunFolder(str(tmp_path / "run_s3")), cfg, log=lambda s: None)
        cols = [c for c in schemas.columns(schemas.PAGES) if c != "warc_file"]
        got = sorted(tuple(r) for r in read_table(spark, res.path, schemas.PAGES).select(*cols).collect())
        # the local ingest of the same files (no duplicates among them)
        want = sorted(tuple(r[c] for c in cols)
                      for key in ("cc/whirlwind.warc.gz", "dolma/science-0.warc.gz")
                      for r in process_source(str(shared_data / FILES[key]), Config(), Counts()))
        assert got == want and len(got) >= 2
        assert res.counts["files_read"] == 2 and res.counts["pages"] == len(want)
        assert proxy.throttled >= 1 and proxy.gets >= 2 + proxy.throttled
    finally:
        proxy.close()


def test_fetch_page_by_offset_over_s3_equals_local(bucket, moto_url, shared_data):
    """The final corpus's re-fetch: one ranged GET per record gives the page the full read gave."""
    key = "dolma/sample-0000.warc.gz"
    local, _ = local_pages(shared_data, key)
    cfg = s3cfg(moto_url)
    counts = Counts()
    for url, offset, fetched_at, html in local[:5] + local[-3:]:
        page = sources.fetch_page(f"s3://{bucket}/{key}", offset, cfg, counts)
        assert (page.url, page.warc_offset, page.fetched_at, page.html) == (url, offset, fetched_at, html)
    assert counts.as_dict() == {}
    # an offset that is not a record start is a counted failure, not an exception
    assert sources.fetch_page(f"s3://{bucket}/{key}", local[1][1] + 7, cfg, counts) is None
    assert sum(counts.as_dict().values()) == 1
