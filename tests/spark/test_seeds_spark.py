"""Seed corpora read by Spark: a Hugging Face-style Parquet folder, a JSONL.gz glob, the
same ids as the driver-side path, and bad input named in the error."""
from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus_pipeline.errors import InputFileError

pytestmark = pytest.mark.spark

TEXTS = [f"Lemma {i}. For every $n > {i}$ we have $\\sum_k k^{i} < n^{i + 1}$." for i in range(40)]


def _ids(df):
    return sorted((r["seed_id"], r["text"]) for r in df.collect())


def test_parquet_folder_and_jsonl_glob_give_the_driver_side_ids(spark, tmp_path):
    from corpus_pipeline.spark.iteration import seed_corpus_df

    data = tmp_path / "owm" / "data"
    data.mkdir(parents=True)
    for i in range(2):
        part = TEXTS[i * 20:(i + 1) * 20] + ["", "  ", TEXTS[0]]            # empties and a duplicate
        pq.write_table(pa.table({"url": [f"u{j}" for j in range(len(part))], "text": part,
                                 "date": ["d"] * len(part)}), data / f"train-{i:05d}-of-00002.parquet")
    (data / "_SUCCESS").write_text("")
    want = _ids(seed_corpus_df(spark, TEXTS, 1))
    got = seed_corpus_df(spark, str(data), 1)
    assert got.columns == ["seed_id", "page_id", "source", "added_in", "text"]
    assert _ids(got) == want and len(want) == 40
    assert _ids(seed_corpus_df(spark, str(data / "train-*.parquet"), 1)) == want
    jd = tmp_path / "j"
    jd.mkdir()
    for i in range(2):
        with gzip.open(jd / f"part{i}.jsonl.gz", "wt", encoding="utf-8") as f:
            for t in TEXTS[i::2]:
                f.write(json.dumps({"text": t, "meta": {"k": 1}}) + "\n")
            f.write(json.dumps({"url": "no text here"}) + "\n")              # counted, not an error
    assert _ids(seed_corpus_df(spark, str(jd / "*.jsonl.gz"), 1)) == want


def test_bad_seed_input_names_the_file(spark, tmp_path):
    from corpus_pipeline.spark.seeds import read_seed_corpus

    p = tmp_path / "no_text.parquet"
    pq.write_table(pa.table({"content": ["x"]}), p)
    with pytest.raises(InputFileError, match=r"no_text.parquet: no 'text' column \(columns: content\)"):
        read_seed_corpus(spark, str(p))
    n = tmp_path / "num.parquet"
    pq.write_table(pa.table({"text": [1, 2]}), n)
    with pytest.raises(InputFileError, match="'text' column must be strings"):
        read_seed_corpus(spark, str(n))
    j = tmp_path / "bad.jsonl"
    j.write_text(json.dumps({"text": "fine $x$"}) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"bad.jsonl.*not valid JSON"):
        read_seed_corpus(spark, str(j))
    e = tmp_path / "empty.jsonl"
    e.write_text(json.dumps({"title": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="no non-empty 'text' values"):
        read_seed_corpus(spark, str(e))
    c = tmp_path / "corrupt.parquet"
    c.write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(InputFileError, match="corrupt.parquet"):
        read_seed_corpus(spark, str(c))


def test_a_remote_seed_is_identified_by_its_listing(spark, tmp_path):
    """A seed on a Hadoop filesystem is identified by one listing (path, size, time), not by its bytes:
    the same folder and its glob agree, a touched file or a new one changes the identity.  The listing
    is Hadoop's, of ``file://`` URIs standing in for a cluster filesystem's."""
    import os

    from corpus_pipeline.seeds import source_digest
    from corpus_pipeline.spark.seeds import remote_listing

    d = tmp_path / "seed"
    d.mkdir()
    for i in range(2):
        pq.write_table(pa.table({"text": TEXTS[i::2]}), d / f"train-{i}.parquet")
    (d / "_SUCCESS").write_text("")

    def ident(src):
        return source_digest(src, lambda s: remote_listing(s.replace("hdfs://nn", "file://"), spark))

    uri = "hdfs://nn" + str(d)
    listed = remote_listing("file://" + str(d), spark)
    assert [os.path.basename(p) for p, _, _ in listed] == ["train-0.parquet", "train-1.parquet"]
    a = ident(uri)
    assert a not in (None, uri) and a == ident(uri + "/train-*.parquet")
    assert source_digest(uri) == uri                                    # no lister given: the name alone
    os.utime(d / "train-1.parquet", (1, 1))
    b = ident(uri)
    assert b != a
    pq.write_table(pa.table({"text": TEXTS[:3]}), d / "train-2.parquet")
    assert ident(uri) not in (a, b)
