"""Seed sources without Spark: which files, which format, the run-identity digest, and
scratch files removed at the end of a command even when it fails."""
from __future__ import annotations

import hashlib
import os

import pytest

from corpus_pipeline import scratch
from corpus_pipeline.errors import InputFileError
from corpus_pipeline.seeds import check_seed_source, local_source_files, source_digest, source_format


def _tree(tmp_path):
    d = tmp_path / "owm" / "data"
    d.mkdir(parents=True)
    for i in range(3):
        (d / f"train-{i:05d}-of-00003.parquet").write_bytes(b"PAR1" + bytes([i]) * 100)
    (d / "_SUCCESS").write_text("")
    (d / ".train-00000.crc").write_text("x")
    return d


def test_files_of_a_folder_a_glob_and_a_file(tmp_path):
    d = _tree(tmp_path)
    names = [os.path.basename(f) for f in local_source_files(str(d))]
    assert names == [f"train-{i:05d}-of-00003.parquet" for i in range(3)]      # hidden and _ files left out
    assert local_source_files(str(d / "train-*.parquet")) == local_source_files(str(d))
    assert local_source_files(str(tmp_path / "owm")) == local_source_files(str(d))   # recursive
    assert source_format(str(d), local_source_files(str(d))) == "parquet"
    assert source_format("x", ["a.jsonl.gz", "b.jsonl"]) == "jsonl"
    with pytest.raises(InputFileError, match="mixes JSONL and Parquet"):
        source_format("x", ["a.jsonl", "b.parquet"])
    (d / "README.md").write_text("hi")
    with pytest.raises(InputFileError, match="README.md: unknown file type"):
        check_seed_source(str(d))
    with pytest.raises(InputFileError, match="no file matches"):
        check_seed_source(str(tmp_path / "nothing-*.parquet"))
    with pytest.raises(InputFileError, match="file not found"):
        check_seed_source(str(tmp_path / "missing.jsonl"))


def test_digest_is_streamed_and_follows_the_content(tmp_path):
    f = tmp_path / "seed.jsonl"
    f.write_bytes(b'{"text": "x"}\n' * 100_000)
    assert source_digest(str(f)) == hashlib.sha1(f.read_bytes()).hexdigest()[:16]   # the value runs recorded
    d = _tree(tmp_path)
    a = source_digest(str(d))
    assert a == source_digest(str(d / "train-*.parquet")) != source_digest(str(d / "train-0000[01]*"))
    (d / "train-00001-of-00003.parquet").write_bytes(b"PAR1" + b"\x09" * 100)          # same size, new bytes
    assert source_digest(str(d)) != a
    assert source_digest(None) is None and source_digest(str(tmp_path / "gone")) == str(tmp_path / "gone")


def test_scratch_removed_on_failure():
    made = []
    with pytest.raises(RuntimeError):
        with scratch.scope():
            d = scratch.mkdtemp("cp_test_")
            open(os.path.join(d, "f"), "w").write("x")
            made.append(d)
            raise RuntimeError("boom")
    assert made and not os.path.exists(made[0]) and scratch.pending() == []
