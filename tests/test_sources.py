"""Resolving SRC arguments: local files, directories, globs, manifests (S3 is in test_s3.py)."""
from __future__ import annotations

import gzip
import shutil

import pytest

from corpus_pipeline import sources
from corpus_pipeline.config import IngestConfig
from corpus_pipeline.counters import Counts
from corpus_pipeline.errors import UsageError
from corpus_pipeline.sources import manifest, s3


@pytest.fixture
def crawl(tmp_path, shared_data):
    d = tmp_path / "crawl"
    (d / "sub").mkdir(parents=True)
    shutil.copy(shared_data / "warc/dolma/science-0.warc.gz", d / "a.warc.gz")
    shutil.copy(shared_data / "warc/dolma/science-1.warc.gz", d / "sub" / "b.warc.gz")
    shutil.copy(shared_data / "warc/warcio_testdata/example.warc", d / "c.warc")
    (d / "README.txt").write_text("not a warc")
    return d


def test_file_dir_and_glob(crawl):
    cfg = IngestConfig()
    a, b, c = str(crawl / "a.warc.gz"), str(crawl / "sub" / "b.warc.gz"), str(crawl / "c.warc")
    assert sources.resolve([a], cfg) == [a]
    assert sources.resolve([str(crawl)], cfg) == [a, c, b]          # recursive, sorted per folder, no README
    assert sources.resolve([str(crawl / "*.warc.gz")], cfg) == [a]
    assert sorted(sources.resolve([str(crawl / "**" / "*.warc*")], cfg)) == sorted([a, b, c])
    # duplicates across inputs are dropped, input order is kept
    assert sources.resolve([c, str(crawl / "*.warc*"), a], cfg) == [c, a]


def test_explicit_file_is_taken_whatever_its_name(crawl):
    f = crawl / "README.txt"
    assert sources.resolve([str(f)], IngestConfig()) == [str(f)]


@pytest.mark.parametrize("bad", ["/nonexistent/x.warc.gz", "/nonexistent/*.warc.gz"])
def test_input_matching_nothing_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="nonexistent"):
        sources.resolve([bad], IngestConfig())


def test_empty_glob_and_empty_dir(tmp_path):
    (tmp_path / "empty").mkdir()
    for src in (str(tmp_path / "empty"), str(tmp_path / "*.warc.gz")):
        with pytest.raises(UsageError, match="matches no WARC"):
            sources.resolve([src], IngestConfig())
    with pytest.raises(UsageError):
        sources.resolve([], IngestConfig())


@pytest.mark.parametrize("gz", [False, True])
def test_manifest_relative_lines_against_base(crawl, tmp_path, gz):
    body = "# comment\n\na.warc.gz\nsub/b.warc.gz\n" + f"{crawl}/c.warc\n"
    name = "warc.paths.gz" if gz else "warc.paths"
    m = tmp_path / name
    m.write_bytes(gzip.compress(body.encode()) if gz else body.encode())
    cfg = IngestConfig(manifest_base=str(crawl))
    refs = sources.resolve([str(m)], cfg)
    assert refs == [str(crawl / "a.warc.gz"), str(crawl / "sub" / "b.warc.gz"), str(crawl / "c.warc")]
    # with the default base, relative lines point into Common Crawl's bucket
    refs = sources.resolve([str(m)], IngestConfig())
    assert refs[0] == "s3://commoncrawl/a.warc.gz" and refs[2] == str(crawl / "c.warc")


def test_real_common_crawl_manifest_lines():
    lines = ["crawl-data/CC-MAIN-2024-22/segments/1715971057216.39/warc/"
             "CC-MAIN-20240517233122-20240518023122-00000.warc.gz"]
    refs = manifest.parse_lines(lines, "s3://commoncrawl/")
    assert refs == ["s3://commoncrawl/" + lines[0]]
    assert s3.parse_uri(refs[0]) == ("commoncrawl", lines[0])
    assert s3.anonymous_for("commoncrawl", IngestConfig())
    assert not s3.anonymous_for("my-bucket", IngestConfig())
    assert s3.anonymous_for("my-bucket", IngestConfig(s3_anonymous=True))
    assert not s3.anonymous_for("commoncrawl", IngestConfig(s3_anonymous=False))


def test_manifest_errors(tmp_path):
    with pytest.raises(UsageError, match="manifest not found"):
        sources.resolve([str(tmp_path / "warc.paths")], IngestConfig())
    empty = tmp_path / "empty.warc.paths"
    empty.write_text("# nothing\n")
    with pytest.raises(UsageError, match="matches no WARC"):
        sources.resolve([str(empty)], IngestConfig())
    broken = tmp_path / "warc.paths.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(UsageError, match="warc.paths.gz"):
        sources.resolve([str(broken)], IngestConfig())


def test_manifest_entry_missing_is_counted_not_fatal(crawl, tmp_path):
    m = tmp_path / "warc.paths"
    m.write_text("a.warc.gz\nmissing.warc.gz\n")
    cfg = IngestConfig(manifest_base=str(crawl))
    refs = sources.resolve([str(m)], cfg)
    assert len(refs) == 2
    counts = Counts()
    pages = [p for r in refs for p in sources.iter_pages(r, cfg, counts)]
    assert pages and counts["file_not_found"] == 1 and counts["files_read"] == 1 and counts["files"] == 2


def test_open_stream_is_incremental(shared_data):
    ref = str(shared_data / "warc/derived_minicrawl/minicrawl-00.warc.gz")
    f = sources.open_stream(ref, IngestConfig())
    try:
        assert len(f.read(1000)) == 1000
        assert f.tell() < 1_000_000          # buffered, not slurped
    finally:
        f.close()


def test_transient_classification():
    import http.client

    assert sources.is_transient(ConnectionResetError())
    assert sources.is_transient(TimeoutError())
    assert sources.is_transient(http.client.IncompleteRead(b"", 10))
    wrapped = ValueError("while reading")
    wrapped.__cause__ = ConnectionResetError()
    assert sources.is_transient(wrapped)
    assert not sources.is_transient(ValueError("bad data"))
    assert not sources.is_transient(FileNotFoundError("x"))


# ---------------------------------------------------------------- local paths on a cluster
@pytest.mark.parametrize("master,ok", [("local", True), ("local[2]", True), ("local[*]", True),
                                       ("local-cluster[2,1,1024]", True), (None, True),
                                       ("spark://10.0.0.1:7077", False), ("yarn", False),
                                       ("k8s://https://api:6443", False), ("mesos://m:5050", False)])
def test_local_inputs_are_refused_for_a_non_local_master(tmp_path, master, ok):
    cfg = IngestConfig()
    inputs = [str(tmp_path / "*.warc.gz"), "s3://commoncrawl/x.warc.gz"]
    if ok:
        sources.check_shared(inputs, master, cfg)
    else:
        with pytest.raises(UsageError, match=r"\*\.warc\.gz: a local path.*hdfs://.*shared_local_paths=true"):
            sources.check_shared(inputs, master, cfg)
    # stated shared: the config key, or file:// URIs; remote inputs and remote manifests are fine
    sources.check_shared(inputs, master, IngestConfig(shared_local_paths=True))
    sources.check_shared([f"file://{tmp_path}/x.warc.gz", "hdfs:///crawl/*.warc.gz", "https://h/x.warc.gz",
                          str(tmp_path / "warc.paths.gz")], master, cfg)
    # a manifest whose relative lines resolve against a local folder names local files
    local_base = IngestConfig(manifest_base=str(tmp_path))
    if not ok:
        with pytest.raises(UsageError, match="manifest_base"):
            sources.check_shared([str(tmp_path / "warc.paths.gz")], master, local_base)


@pytest.mark.parametrize("command", ["ingest", "run"])
def test_cli_refuses_local_inputs_for_a_cluster_master_before_starting_spark(crawl, tmp_path, command):
    """Exit 2 with the advice, nothing written, and no JVM needed: with JAVA_HOME pointing nowhere,
    getting as far as Spark would be exit 1."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, JAVA_HOME=str(tmp_path / "no-java"))
    run = tmp_path / "run"

    def cli(*extra):
        return subprocess.run([sys.executable, "-m", "corpus_pipeline", command, "--input", str(crawl / "*.warc.gz"),
                               "--run", str(run), "--set", "spark.master=spark://127.0.0.1:1", *extra],
                              env=env, capture_output=True, text=True, timeout=300)

    p = cli()
    assert p.returncode == 2, p.stderr
    assert "a local path, but the Spark master is spark://127.0.0.1:1" in p.stderr
    assert "ingest.shared_local_paths=true" in p.stderr and "file://" in p.stderr
    assert not run.exists()
    p = cli("--set", "ingest.shared_local_paths=true")      # stated shared: the check passes, Spark is next
    assert p.returncode == 1 and "shared_local_paths" not in p.stderr


def test_a_spark_connect_endpoint_refuses_local_paths_before_any_session(tmp_path, capsys):
    """--remote sc://...: a local input or a local run folder is refused with exit 2 naming it (the
    endpoint's executors cannot read or write this machine's disk); the token is never printed."""
    from corpus_pipeline.cli import main

    warc = tmp_path / "a.warc.gz"
    warc.write_bytes(b"x")
    remote = ["--remote", "sc://spark.example:15002;token=s3cr3t;use_ssl=true"]
    assert main(["run", "--input", str(warc), "--run", "s3://bucket/run", *remote]) == 2
    err = capsys.readouterr().err
    assert str(warc) in err and "local path" in err and "s3cr3t" not in err and "token=***" in err
    for cmd in (["run", "--input", "s3://bucket/a.warc.gz"], ["ingest", "--input", "s3://bucket/a.warc.gz"]):
        assert main([*cmd, "--run", str(tmp_path / "run"), *remote]) == 2
        err = capsys.readouterr().err
        assert f"{tmp_path / 'run'}: a local run folder" in err and "s3cr3t" not in err
    assert not (tmp_path / "run").exists()


def test_a_connect_client_older_than_4_is_refused_naming_the_missing_calls():
    from corpus_pipeline.errors import UsageError
    from corpus_pipeline.spark.session import check_connect_client

    with pytest.raises(UsageError) as e:
        check_connect_client("3.5.9", "sc://host:15002/;token=SECRET")
    msg = str(e.value)
    assert "pyspark 3.5.9" in msg and "localCheckpoint" in msg and "Observation" in msg and "SECRET" not in msg
    check_connect_client("4.0.1", "sc://host:15002")      # 4.x: accepted
