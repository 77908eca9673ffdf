"""WARC inputs through the Hadoop layer, driven with Hadoop's own ``file://`` filesystem (no HDFS here):
listing and globbing in the JVM on the driver, bytes read by pyarrow in the Python tasks."""
from __future__ import annotations

import gzip
import shutil

import pytest

from corpus_pipeline import schemas, sources
from corpus_pipeline.config import Config, IngestConfig
from corpus_pipeline.counters import Counts
from corpus_pipeline.errors import UsageError
from corpus_pipeline.sources import hadoop, stream

pytestmark = pytest.mark.spark

WARCS = ["warc/dolma/sample-0000.warc.gz", "warc/dolma/sample-0001.warc.gz", "warc/whirlwind/whirlwind.warc.gz",
         "warc/derived_minicrawl/minicrawl-02.warc.gz"]


@pytest.fixture
def crawl(tmp_path, shared_data):
    d = tmp_path / "crawl"
    (d / "sub").mkdir(parents=True)
    for i, rel in enumerate(WARCS):
        shutil.copy(shared_data / rel, (d / "sub" if i == 3 else d) / f"f{i}.warc.gz")
    (d / "notes.txt").write_text("not a warc")
    return d


def test_listing_and_globbing_through_hadoop(spark, crawl):
    cfg = IngestConfig()
    uri = f"file://{crawl}"
    files = [f"{uri}/f{i}.warc.gz" for i in range(3)] + [f"{uri}/sub/f3.warc.gz"]
    assert sources.resolve([uri], cfg, spark) == files                      # recursive, no notes.txt
    assert sources.resolve([f"{uri}/*.warc.gz"], cfg, spark) == files[:3]
    assert sources.resolve([f"{uri}/{{f0,sub}}*"], cfg, spark) == [files[0], files[3]]   # Hadoop glob syntax
    assert sources.resolve([f"{uri}/notes.txt"], cfg, spark) == [f"{uri}/notes.txt"]      # explicit: any name
    for bad in (f"{uri}/missing.warc.gz", f"{uri}/*.arc", f"file://{crawl}/nothing/"):
        with pytest.raises(UsageError, match="matches no WARC"):
            sources.resolve([bad], cfg, spark)
    with pytest.raises(UsageError, match="cannot list through Hadoop"):
        sources.resolve(["nosuchfs://host/x.warc.gz"], cfg, spark)


def test_pages_and_resume_through_the_hadoop_reader(spark, crawl, shared_data):
    ref = f"file://{crawl}/sub/f3.warc.gz"
    local = str(shared_data / WARCS[3])
    data = open(local, "rb").read()
    f = sources.open_stream(ref, IngestConfig(), start=1000)
    try:
        assert f.read(5000) == data[1000:6000] and f.read(10) == data[6000:6010]
    finally:
        f.close()
    want = [(p.url, p.warc_offset, p.html) for p in sources.iter_pages(local, IngestConfig(), Counts())]
    got = [(p.url, p.warc_offset, p.html) for p in sources.iter_pages(ref, IngestConfig(), Counts())]
    assert got == want and len(want) > 10
    c = Counts()
    assert list(sources.iter_pages(f"file://{crawl}/gone.warc.gz", IngestConfig(), c)) == []
    assert c["file_not_found"] == 1


def test_storage_read_errors_are_transient_data_errors_are_not():
    def boom(n):
        raise OSError("When reading block: DataNode connection reset")

    body = stream.Body(boom, wrap_errors=True, name="hdfs://nn/x")
    with pytest.raises(stream.SourceIOError) as e:
        body.read(10)
    assert sources.is_transient(e.value)
    assert not sources.is_transient(OSError("Not a gzipped file"))


def test_unreadable_scheme_is_refused_on_the_driver():
    for ok in ("hdfs://nn:8020/x.warc.gz", "gs://b/x.warc.gz", "abfss://c@a.dfs.core.windows.net/x", "file:///x"):
        hadoop.check_readable(ok)
    with pytest.raises(UsageError, match="cannot read it"):
        hadoop.check_readable("nosuchfs://host/x.warc.gz")


def test_manifest_on_a_hadoop_filesystem(spark, crawl, tmp_path):
    m = tmp_path / "warc.paths.gz"
    m.write_bytes(gzip.compress(b"f0.warc.gz\nsub/f3.warc.gz\n"))
    cfg = IngestConfig(manifest_base=f"file://{crawl}/")
    assert sources.resolve([f"file://{m}"], cfg, spark) == [f"file://{crawl}/f0.warc.gz",
                                                           f"file://{crawl}/sub/f3.warc.gz"]


@pytest.mark.slow
def test_run_ingest_file_uris_equal_local_paths(spark, crawl, tmp_path):
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.loop import run_ingest
    from corpus_pipeline.spark.io import read_table

    def pages(inputs, name):
        cfg = Config()
        cfg.ingest.files_per_task = 2
        run = RunFolder(str(tmp_path / name))
        res = run_ingest(spark, inputs, run, cfg, log=lambda s: None)
        rows = read_table(spark, run.data(res.path), schemas.PAGES).collect()
        return res.counts, sorted(tuple(r[c] if c != "warc_file" else r[c].replace("file://", "")
                                        for c in schemas.columns(schemas.PAGES)) for r in rows)

    lc, local_rows = pages([str(crawl)], "run_local")
    hc, hadoop_rows = pages([f"file://{crawl}"], "run_hadoop")
    assert hadoop_rows == local_rows and len(local_rows) > 50
    assert hc["files_read"] == lc["files_read"] == 4 and hc["inputs"] == 4
    assert hc["skips"] == lc["skips"]
