"""HadoopFS (the path run folders on HDFS/GCS/S3 take) driven through Hadoop's own
LocalFileSystem with ``file://`` URIs, so it runs without a cluster filesystem."""
from __future__ import annotations

import json
import os

import pytest

from corpus_pipeline import fs as fsmod
from corpus_pipeline.spark.classic import HadoopFS

pytestmark = pytest.mark.spark


@pytest.fixture()
def hfs(spark):
    return HadoopFS(spark)


@pytest.fixture()
def base(tmp_path):
    return "file://" + str(tmp_path)


def test_mkdirs_exists_isdir(hfs, base):
    d = base + "/a/b/c"
    assert not hfs.exists(d) and not hfs.isdir(d)
    hfs.mkdirs(d)
    assert hfs.exists(d) and hfs.isdir(d)
    assert os.path.isdir(fsmod.local_path(d))
    hfs.mkdirs(d)  # twice is fine
    assert hfs.isdir(base + "/a/b")


def test_bytes_round_trip_and_overwrite(hfs, base):
    data = bytes(range(256)) * 300 + b"\x00\xff"
    f = base + "/deep/er/blob.bin"
    hfs.write_bytes(f, data)                       # creates parents
    assert hfs.read_bytes(f) == data
    assert open(fsmod.local_path(f), "rb").read() == data   # really on disk, byte for byte
    assert not hfs.isdir(f)
    hfs.write_bytes(f, b"")
    assert hfs.read_bytes(f) == b""
    hfs.write_text(f, "ünïcödé ∑ 数学\n")
    assert hfs.read_text(f) == "ünïcödé ∑ 数学\n"
    # no temporary files left beside the target
    assert hfs.listdir(base + "/deep/er") == ["blob.bin"]


def test_listdir_sorted_names_only(hfs, base):
    for name in ["zeta.json", "alpha", "iter=002", "iter=001"]:
        if "." in name:
            hfs.write_text(f"{base}/{name}", "{}")
        else:
            hfs.mkdirs(f"{base}/{name}")
    assert hfs.listdir(base) == ["alpha", "iter=001", "iter=002", "zeta.json"]
    assert hfs.listdir(base + "/missing") == []
    assert hfs.listdir(base + "/zeta.json") == []       # a file has no entries (as LocalFS)


def test_rename_file_and_dir_over_existing(hfs, base):
    hfs.write_text(base + "/src.txt", "new")
    hfs.write_text(base + "/dst.txt", "old")
    hfs.rename(base + "/src.txt", base + "/dst.txt")
    assert not hfs.exists(base + "/src.txt")
    assert hfs.read_text(base + "/dst.txt") == "new"

    hfs.write_text(base + "/stage.inprogress-1/part-0", "p0")
    hfs.write_text(base + "/stage/stale", "stale")
    hfs.rename(base + "/stage.inprogress-1", base + "/stage")
    assert hfs.listdir(base + "/stage") == ["part-0"]  # replaced, not nested inside
    assert not hfs.exists(base + "/stage.inprogress-1")


def test_delete(hfs, base):
    hfs.write_text(base + "/d/x/y.txt", "y")
    hfs.write_text(base + "/f.txt", "f")
    hfs.delete(base + "/f.txt")
    hfs.delete(base + "/d")
    hfs.delete(base + "/never-existed")
    assert not hfs.exists(base + "/f.txt") and not hfs.exists(base + "/d")
    assert hfs.listdir(base) == []


def test_get_local_put_local(hfs, base, tmp_path, monkeypatch):
    src = tmp_path / "model.bin"
    src.write_bytes(b"\x01model\x02" * 1000)
    hfs.put_local(str(src), base + "/run/iter=001/model/model.bin")
    assert hfs.read_bytes(base + "/run/iter=001/model/model.bin") == src.read_bytes()
    got = hfs.get_local(base + "/run/iter=001/model/model.bin", str(tmp_path / "copy" / "m.bin"))
    assert open(got, "rb").read() == src.read_bytes()
    # relative local paths mean this process's working folder (the JVM's may differ)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    got = hfs.get_local(base + "/run/iter=001/model/model.bin", "rel.bin")
    assert (work / "rel.bin").read_bytes() == src.read_bytes()
    assert os.path.abspath(got) == str(work / "rel.bin")
    (work / "up.bin").write_bytes(b"up")
    hfs.put_local("up.bin", base + "/up.bin")
    assert hfs.read_bytes(base + "/up.bin") == b"up"


def test_missing_file_errors_are_python_errors(hfs, base):
    with pytest.raises(FileNotFoundError):
        hfs.read_bytes(base + "/nope.bin")
    with pytest.raises(OSError):
        hfs.rename(base + "/nope.bin", base + "/other.bin")


def test_default_session_is_found(spark, base):
    hfs = HadoopFS()          # no session passed: the active one
    hfs.write_text(base + "/x.json", json.dumps({"a": 1}))
    assert json.loads(hfs.read_text(base + "/x.json")) == {"a": 1}


def test_runfolder_stage_commit_through_hadoop(spark, base, monkeypatch):
    """A whole stage commit (Spark-written Parquet in an attempt folder, marker) with every
    run-folder operation forced through HadoopFS."""
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.io import read_table, write_table

    monkeypatch.setattr(fsmod, "get_fs", lambda uri, spark=None: HadoopFS(spark))
    run = RunFolder(base + "/run", spark)
    scores = RunView(run).location("scores", 1)
    assert isinstance(run.fs, HadoopFS)
    ddl = "page_id STRING, score DOUBLE"

    def build(staging):
        write_table(spark.createDataFrame([("a", 0.5), ("b", 0.9)], ddl), staging, ddl)
        return {"rows": 2}

    res = run.stage(scores, build, {"k": 1})
    assert not res.skipped and run.is_committed(scores)
    assert run.counts(scores) == {"rows": 2}
    assert run.iterations() == [1]
    rows = sorted(tuple(r) for r in read_table(spark, scores, ddl).collect())
    assert rows == [("a", 0.5), ("b", 0.9)]
    assert not any(".inprogress-" in n for n in run.fs.listdir(run.iter_dir(1)))
    assert run.data(scores) != scores   # an attempt folder
    assert len(run.attempts(scores)) == 1
    again = run.stage(scores, lambda s: pytest.fail("must not rebuild"))
    assert again.skipped
