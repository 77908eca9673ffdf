"""ArrowFS (the run-folder filesystem without a JVM: Spark Connect, or no session) against moto's S3
server on loopback: real HTTP requests from pyarrow's S3 client, credentials and endpoint from the
standard AWS variables.  No Spark."""
from __future__ import annotations

import json
import logging
import os

import pytest

from corpus_pipeline import fs as fsmod
from corpus_pipeline.errors import UsageError
from corpus_pipeline.fs import ArrowFS, LocalFS, StorageError
from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.runfolder import ATTEMPT, MARKER, RunFolder, committed_data, read_marker

BUCKET = "runs-test"


@pytest.fixture(scope="module")
def bucket(moto_url):
    import boto3

    boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing",
                          region_name="us-east-1").client("s3", endpoint_url=moto_url).create_bucket(Bucket=BUCKET)
    return BUCKET


@pytest.fixture(autouse=True)
def aws_env(moto_url, bucket, monkeypatch):
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                 "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": moto_url}.items():
        monkeypatch.setenv(k, v)
    for k in ("AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(k, raising=False)
    # "no session" is the case under test; the same pytest process may hold the Spark tests' classic one
    monkeypatch.setattr(fsmod, "_SESSION_FS", [])
    from corpus_pipeline.spark import classic            # the listing of seed sources asks it directly
    monkeypatch.setattr(classic, "active_session", lambda: None)


@pytest.fixture
def base(request):
    """A fresh prefix per test."""
    return f"s3://{BUCKET}/{request.node.name}"


@pytest.fixture
def afs():
    return ArrowFS()


def test_write_read_round_trip(afs, base):
    afs.write_bytes(f"{base}/a.bin", b"\x00\x01bytes")
    assert afs.read_bytes(f"{base}/a.bin") == b"\x00\x01bytes"
    afs.write_text(f"{base}/t/u.txt", "text é ✓")
    assert afs.read_text(f"{base}/t/u.txt") == "text é ✓"
    afs.write_text(f"{base}/t/u.txt", "again")                     # overwrite in place
    assert afs.read_text(f"{base}/t/u.txt") == "again"
    assert afs.exists(f"{base}/a.bin") and not afs.isdir(f"{base}/a.bin")
    assert afs.exists(f"{base}/t") and afs.isdir(f"{base}/t")       # a prefix with objects is a folder
    assert afs.write_bytes(f"{base}/empty", b"") is None and afs.read_bytes(f"{base}/empty") == b""


def test_a_write_is_one_put(afs, base, caplog):
    """No temporary object, no rename (copy), no multipart upload: one PutObject request."""
    with caplog.at_level(logging.INFO, logger="werkzeug"):
        afs.write_text(f"{base}/run/_COMMIT.json", "{}")
    sent = [r.getMessage() for r in caplog.records if r.name == "werkzeug" and "_COMMIT.json" in r.getMessage()]
    assert len(sent) == 1 and f'"PUT /{BUCKET}/test_a_write_is_one_put/run/_COMMIT.json HTTP' in sent[0], sent


def test_missing_files(afs, base):
    assert not afs.exists(f"{base}/nope") and not afs.isdir(f"{base}/nope")
    with pytest.raises(FileNotFoundError, match="nope"):
        afs.read_bytes(f"{base}/nope")
    with pytest.raises(FileNotFoundError):
        afs.read_text(f"{base}/dir/nope.json")
    with pytest.raises(FileNotFoundError):
        afs.get_local(f"{base}/nope", "unused")
    with pytest.raises(FileNotFoundError):
        afs.rename(f"{base}/nope", f"{base}/other")
    afs.delete(f"{base}/nope")                                      # no error
    assert afs.listdir(f"{base}/nope") == []


def test_listdir_of_prefix_folders(afs, base):
    for name in ("c.json", "a/x.json", "a/b/y.json", "iter=001/model/m.bin", "iter=002/_COMMIT.json"):
        afs.write_text(f"{base}/{name}", name)
    assert afs.listdir(base) == ["a", "c.json", "iter=001", "iter=002"]
    assert afs.listdir(base + "/") == ["a", "c.json", "iter=001", "iter=002"]
    assert afs.listdir(f"{base}/a") == ["b", "x.json"]
    assert afs.listdir(f"{base}/c.json") == []                      # a file has no entries (as LocalFS)
    assert afs.isdir(f"{base}/iter=001/model") and afs.exists(f"{base}/iter=001")
    assert RunFolder(base).iterations() == [1, 2]


def test_mkdirs_makes_an_empty_folder_visible(afs, base):
    afs.mkdirs(f"{base}/empty/deeper")
    assert afs.isdir(f"{base}/empty/deeper") and afs.isdir(f"{base}/empty")
    assert afs.listdir(f"{base}/empty") == ["deeper"] and afs.listdir(f"{base}/empty/deeper") == []
    afs.mkdirs(f"{base}/empty/deeper")                               # again: no error
    afs.mkdirs(f"s3://{BUCKET}")                                     # the bucket itself: nothing to do
    afs.write_text(f"{base}/empty/deeper/f", "x")
    assert afs.listdir(f"{base}/empty/deeper") == ["f"]


def test_delete_file_and_folder(afs, base):
    for name in ("keep.txt", "gone/a", "gone/b/c", "gone/b/d"):
        afs.write_text(f"{base}/{name}", name)
    afs.delete(f"{base}/gone")
    assert not afs.exists(f"{base}/gone") and afs.listdir(f"{base}/gone") == []
    assert afs.listdir(base) == ["keep.txt"]
    afs.delete(f"{base}/keep.txt")
    assert not afs.exists(f"{base}/keep.txt")
    afs.mkdirs(f"{base}/marker-only")
    afs.delete(f"{base}/marker-only")
    assert not afs.exists(f"{base}/marker-only")


def test_rename_file_and_folder(afs, base):
    afs.write_text(f"{base}/src.txt", "one")
    afs.write_text(f"{base}/dst.txt", "old")
    afs.rename(f"{base}/src.txt", f"{base}/dst.txt")                # replaces the target
    assert afs.read_text(f"{base}/dst.txt") == "one" and not afs.exists(f"{base}/src.txt")
    afs.rename(f"{base}/dst.txt", f"{base}/sub/moved.txt")
    assert afs.read_text(f"{base}/sub/moved.txt") == "one"
    for name in ("a", "b/c"):
        afs.write_text(f"{base}/folder/{name}", name)
    afs.mkdirs(f"{base}/folder/empty")
    afs.write_text(f"{base}/renamed/stale", "stale")
    afs.rename(f"{base}/folder", f"{base}/renamed")
    assert not afs.exists(f"{base}/folder")
    assert afs.listdir(f"{base}/renamed") == ["a", "b", "empty"]
    assert afs.read_text(f"{base}/renamed/b/c") == "b/c"


def test_get_local_and_put_local(afs, base, tmp_path):
    data = bytes(range(256)) * 4096                                  # 1 MiB
    src = tmp_path / "model.bin"
    src.write_bytes(data)
    afs.put_local(str(src), f"{base}/model/model.bin")
    assert afs.read_bytes(f"{base}/model/model.bin") == data
    got = afs.get_local(f"{base}/model/model.bin", str(tmp_path / "copy" / "m.bin"))
    assert got == str(tmp_path / "copy" / "m.bin")
    with open(got, "rb") as f:
        assert f.read() == data
    with pytest.raises(FileNotFoundError):
        afs.put_local(str(tmp_path / "absent"), f"{base}/x")


def test_s3a_and_s3n_are_s3(afs, base):
    afs.write_text(f"{base}/same.txt", "s3")
    for scheme in ("s3a", "s3n"):
        assert afs.read_text(base.replace("s3://", scheme + "://") + "/same.txt") == "s3"


def test_endpoint_given_explicitly_or_by_the_s3_variable(moto_url, monkeypatch, base):
    ArrowFS().write_text(f"{base}/e.txt", "here")
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    assert ArrowFS(s3_endpoint_url=moto_url).read_text(f"{base}/e.txt") == "here"
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", moto_url)
    assert ArrowFS().read_text(f"{base}/e.txt") == "here"


def test_storage_failures_are_not_missing_files(afs):
    """A failed request (here: a bucket that does not exist) is no OSError, so a run folder's marker
    read cannot mistake it for "not committed"."""
    with pytest.raises(StorageError, match="no-such-bucket-here") as e:
        afs.write_text("s3://no-such-bucket-here/run/x.json", "{}")
    assert not isinstance(e.value, OSError)


def test_get_fs_without_a_session_is_arrow(base, tmp_path):
    assert isinstance(fsmod.get_fs(base), ArrowFS)
    assert isinstance(fsmod.get_fs(f"s3a://{BUCKET}/x"), ArrowFS)
    assert isinstance(fsmod.get_fs(str(tmp_path)), LocalFS)
    assert isinstance(fsmod.get_fs("file://" + str(tmp_path)), LocalFS)


def test_get_fs_on_a_connect_session_is_arrow(base):
    connect_session = type("SparkSession", (), {"__module__": "pyspark.sql.connect.session"})()
    assert isinstance(fsmod.get_fs(base, connect_session), ArrowFS)


@pytest.mark.parametrize("uri", ["foo://host/run", "dbfs:/runs/r1"])
def test_unsupported_scheme_is_a_usage_error(uri):
    with pytest.raises(UsageError, match="no Python filesystem") as e:
        fsmod.get_fs(uri)
    assert uri in str(e.value) and "classic Spark session" in str(e.value)


def test_run_folder_commits_on_s3(base):
    run = RunFolder(base + "/run")
    view = RunView(run)
    pages = view.location("pages")
    assert isinstance(run.fs, ArrowFS)

    def build(attempt):
        run.fs.write_bytes(fsmod.join(attempt, "part-0.parquet"), b"rows")
        return {"pages": 2}

    res = run.stage(pages, build, config={"k": 1}, log=lambda m: None)
    assert not res.skipped and res.counts == {"pages": 2}
    marker = read_marker(run.fs, pages)
    assert marker["counts"] == {"pages": 2} and marker["config"] == {"k": 1}
    data = run.data(pages)
    assert data == fsmod.join(pages, ATTEMPT + marker["attempt"]) == committed_data(pages)
    assert run.fs.listdir(pages) == sorted([MARKER, ATTEMPT + marker["attempt"]])
    assert run.fs.read_bytes(fsmod.join(data, "part-0.parquet")) == b"rows"
    assert json.loads(run.fs.read_text(fsmod.join(pages, MARKER)))["stage"] == "pages"
    again = run.stage(pages, build, log=lambda m: None)
    assert again.skipped and again.counts == {"pages": 2}

    def crash(attempt):                          # an attempt that dies is cleaned up by the next commit
        run.fs.write_bytes(fsmod.join(attempt, "part-0.parquet"), b"half")
        raise RuntimeError("killed")

    scores = view.location("scores", 1)
    with pytest.raises(RuntimeError):
        run.stage(scores, crash, log=lambda m: None)
    assert not run.is_committed(scores) and len(run.attempts(scores)) == 1
    with pytest.raises(FileNotFoundError, match="not committed"):
        committed_data(scores)
    run.stage(scores, lambda a: {}, log=lambda m: None)    # writes nothing: the attempt folder is made
    assert run.is_committed(scores) and run.attempts(scores) == [run.marker(scores)["attempt"]]
    assert run.fs.isdir(run.data(scores))
    run.invalidate(scores)
    assert not run.fs.exists(scores)
    assert run.iterations() == [1] and run.fs.listdir(run.iter_dir(1)) == []   # the parent stays, as on a disk


# ------------------------------------------------------------ WARC inputs listed without a JVM
def test_hadoop_inputs_listed_through_pyarrow_without_a_session(tmp_path):
    """The listing ``sources.resolve`` does for Hadoop URIs, without a classic session (pyarrow's
    ``file://``; the same cases as the JVM's listing in tests/spark/test_hadoop_inputs.py)."""
    from corpus_pipeline import sources
    from corpus_pipeline.config import IngestConfig

    d = tmp_path / "crawl"
    (d / "sub").mkdir(parents=True)
    for name in ("f0.warc.gz", "f1.warc.gz", "f2.warc.gz", "sub/f3.warc.gz", "notes.txt"):
        (d / name).write_bytes(b"x")
    cfg, uri = IngestConfig(), f"file://{d}"
    files = [f"{uri}/f{i}.warc.gz" for i in range(3)] + [f"{uri}/sub/f3.warc.gz"]
    assert sources.resolve([uri], cfg) == files                                   # recursive, no notes.txt
    assert sources.resolve([f"{uri}/*.warc.gz"], cfg) == files[:3]
    assert sources.resolve([f"{uri}/{{f0,sub}}*"], cfg) == [files[0], files[3]]   # Hadoop glob syntax
    assert sources.resolve([f"{uri}/[!f]*/*.warc.gz"], cfg) == [files[3]]
    assert sources.resolve([f"{uri}/notes.txt"], cfg) == [f"{uri}/notes.txt"]      # explicit: any name
    for bad in (f"{uri}/missing.warc.gz", f"{uri}/*.arc", f"{uri}/nothing/"):
        with pytest.raises(UsageError, match="matches no WARC"):
            sources.resolve([bad], cfg)
    with pytest.raises(UsageError, match="no Python filesystem"):
        sources.resolve(["nosuchfs://host/x.warc.gz"], cfg)


def test_manifest_on_a_hadoop_uri_read_without_a_session():
    """A ``warc.paths`` manifest on a non-S3, non-HTTP URI is read through pyarrow without a classic
    session (pyarrow's in-memory ``mock://`` filesystem stands in for gs:// or abfs://)."""
    from corpus_pipeline import sources
    from corpus_pipeline.config import IngestConfig

    ArrowFS().write_text("mock:///lists/warc.paths", "crawl/a.warc.gz\ncrawl/b.warc.gz\n")
    refs = sources.read_manifest("mock:///lists/warc.paths", IngestConfig(manifest_base="https://data.example/"))
    assert refs == ["https://data.example/crawl/a.warc.gz", "https://data.example/crawl/b.warc.gz"]
    with pytest.raises(UsageError, match="manifest not found"):
        sources.read_manifest("mock:///lists/gone.paths", IngestConfig())


def test_a_filesystem_with_real_folders():
    """Where folders are real (HDFS, a disk; pyarrow's in-memory ``mock://`` here) parents are made and
    folders rename as a whole."""
    afs, base = ArrowFS(), "mock:///real"
    afs.write_text(f"{base}/a/b/c.txt", "c")
    assert afs.isdir(f"{base}/a/b") and afs.listdir(base) == ["a"]
    afs.rename(f"{base}/a", f"{base}/z/moved")
    assert afs.read_text(f"{base}/z/moved/b/c.txt") == "c" and not afs.exists(f"{base}/a")
    afs.delete(f"{base}/z")
    assert afs.listdir(base) == [] and afs.isdir(base)


class _ConnectLike:
    """What the model shipping uses of a Spark Connect session: ``addArtifacts`` (recorded here)."""

    def __init__(self):
        self.artifacts = []

    def addArtifacts(self, *paths, file=False, pyfile=False, archive=False):
        self.artifacts += [(p, open(p, "rb").read(), file) for p in paths]


def test_a_model_in_an_s3_run_folder_ships_as_a_file_artifact_from_a_local_copy(base):
    from corpus_pipeline import scratch
    from corpus_pipeline.spark.classify import _ship_model

    afs = ArrowFS()
    afs.write_bytes(f"{base}/iter=001/model/model.bin", b"\x00model bytes\xff" * 1000)
    spark = _ConnectLike()
    with scratch.scope():
        kind, name = _ship_model(spark, f"{base}/iter=001/model")
        assert kind == "spark_file" and name.startswith("model-") and name.endswith(".bin")
        [(path, data, as_file)] = spark.artifacts
        assert as_file and os.path.basename(path) == name and data == b"\x00model bytes\xff" * 1000
        assert _ship_model(spark, f"{base}/iter=001/model") == (kind, name)    # once per session
    assert len(spark.artifacts) == 1 and not os.path.exists(path)             # the local copy was scratch


def test_a_seed_corpus_on_s3_is_listed_without_a_jvm(base):
    from corpus_pipeline.errors import InputFileError
    from corpus_pipeline.spark.seeds import remote_listing

    afs = ArrowFS()
    for name, data in [("seed/a.jsonl", b'{"text": "x"}\n'), ("seed/sub/b.jsonl.gz", b"gz"),
                       ("seed/_SUCCESS", b""), ("seed/.hidden.jsonl", b"{}")]:
        afs.write_bytes(f"{base}/{name}", data)
    listed = remote_listing(f"{base}/seed")
    assert [p for p, _, _ in listed] == [f"{base}/seed/a.jsonl", f"{base}/seed/sub/b.jsonl.gz"]
    assert [size for _, size, _ in listed] == [14, 2] and all(mtime > 0 for _, _, mtime in listed)
    assert [p for p, _, _ in remote_listing(f"{base}/seed/*.jsonl")] == [f"{base}/seed/a.jsonl"]
    with pytest.raises(InputFileError):
        remote_listing(f"{base}/nothing-here")


def test_bytes_are_stored_as_given_whatever_the_name(base, moto_url):
    import gzip

    import boto3

    data = gzip.compress(b'{"text": "x"}\n')
    afs = ArrowFS()
    afs.write_bytes(f"{base}/seed.jsonl.gz", data)
    key = f"{base}/seed.jsonl.gz".split(f"s3://{BUCKET}/", 1)[1]
    stored = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing",
                                   region_name="us-east-1").client("s3", endpoint_url=moto_url) \
        .get_object(Bucket=BUCKET, Key=key)["Body"].read()
    assert stored == data and afs.read_bytes(f"{base}/seed.jsonl.gz") == data   # not gzipped twice
