"""Decontamination on Spark: same result as the pure function; the CLI round trip."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpus_pipeline import decontam as D
from corpus_pipeline.config import DecontamConfig
from corpus_pipeline.dedup.url import page_id as url_page_id
from corpus_pipeline.schemas import CONTAMINATION, columns
import reference

pytestmark = pytest.mark.spark


def _records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.open(encoding="utf-8") if x.strip()]


@pytest.fixture(scope="module")
def bench_dir(shared_data, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bench")
    for rel in ["gsm8k/test.jsonl", "cmath/test.jsonl", "mmlu_stem/test.jsonl"]:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_data / "benchmarks" / rel, d / rel)
    (d / "notes").mkdir()
    (d / "notes" / "other.json").write_text("{}\n")
    return d


@pytest.fixture(scope="module")
def pages(shared_data, bench_dir) -> list[dict]:
    news = [json.loads(x) for x in (shared_data / "text/negatives_general/article_extraction_benchmark_articles.jsonl")
            .open(encoding="utf-8")][:24]
    docs = [json.loads(x) for x in (shared_data / "text/seed_sources/nonmath_docs.jsonl").open(encoding="utf-8")]
    zh = [d for d in docs if d.get("lang") == "zh" and len(d["text"]) > 600][:4]
    out = [{"url": r["url"], "text": r["text"], "n": i} for i, r in enumerate(news + zh)]
    gsm = _records(bench_dir / "gsm8k/test.jsonl")
    cmath = _records(bench_dir / "cmath/test.jsonl")
    mmlu = _records(bench_dir / "mmlu_stem/test.jsonl")
    short_q = next(r["question"] for r in mmlu if 5 <= len(D.tokens(r["question"])) < 10)
    long_c = next(r["question"] for r in cmath if len(D.tokens(r["question"])) >= 25)

    def plant(i, lines):
        t = out[i]["text"].split("\n")
        out[i]["text"] = "\n".join(t[:2] + lines + t[2:])

    plant(0, [gsm[1]["question"].upper()])
    plant(1, gsm[2]["question"].split(". "))                 # hard-wrapped at sentence ends
    plant(2, ["quiz: " + short_q])                           # short rule: page removed
    plant(len(out) - 1, [long_c])                            # Chinese
    out.append({"url": "http://example.com/hw", "text": "HW\n" + gsm[7]["question"], "n": 99})  # too short after
    return out


def _pure(pages, bench_dir, cfg):
    bm = D.load_benchmarks(bench_dir, cfg)
    idx = D.build_index(bm, cfg)
    with_ids = [dict(p, page_id=url_page_id(p["url"])) for p in pages]
    return reference.decontaminate_pages(with_ids, idx, cfg)


def test_spark_result_equals_pure(spark, pages, bench_dir):
    from corpus_pipeline.spark.decontam import decontaminate_df
    from corpus_pipeline.spark.io import rows_to_df

    cfg = DecontamConfig()
    ddl = "page_id STRING, url STRING, text STRING, n BIGINT"
    rows = [(url_page_id(p["url"]), p["url"], p["text"], p["n"]) for p in pages]
    df = rows_to_df(spark, rows, ddl, num_slices=2)
    res = decontaminate_df(spark, df, str(bench_dir), cfg)
    got = sorted(tuple(r) for r in res.corpus.collect())
    got_rows = sorted(tuple(r) for r in res.contamination.collect())
    assert res.corpus.columns == ["page_id", "url", "text", "n"]
    assert res.contamination.columns == columns(CONTAMINATION)
    out, crow, counts = _pure(pages, bench_dir, cfg)
    assert got == sorted((p["page_id"], p["url"], p["text"], p["n"]) for p in out)
    assert got_rows == sorted(crow)
    assert res.counts == counts
    # the planted pages behave as planted
    assert counts["pages_in"] == len(pages) and counts["pages_removed"] == 2 and counts["pages_cleaned"] == 3
    assert counts["by_benchmark"]["mmlu_stem"] == {"page_removed": 1}
    assert counts["by_benchmark"]["gsm8k"] == {"page_removed": 1, "segment_removed": 2}
    assert counts["by_rule"] == {"short_exact_match": 1, "too_short_after_cleaning": 1, "ngram_overlap": 3}
    assert res.skipped_files == ["notes/other.json"]
    json.dumps(res.counts)
    res.unpersist()


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_cli_round_trip(spark, pages, bench_dir, tmp_path, fmt):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus_pipeline.cli import main

    if fmt == "jsonl":
        src = tmp_path / "in.jsonl"
        with src.open("w", encoding="utf-8") as fh:
            for p in pages:
                fh.write(json.dumps({"url": p["url"], "text": p["text"], "n": p["n"]}, ensure_ascii=False) + "\n")
        in_cols = ["url", "text", "n"]
    else:
        src = tmp_path / "in.parquet"
        pq.write_table(pa.Table.from_pylist([{"page_id": f"id{p['n']}", "text": p["text"], "n": p["n"]}
                                             for p in pages]), src)
        in_cols = ["page_id", "text", "n"]
    out = tmp_path / "out"
    assert main(["decontaminate", "--input", str(src), "--benchmarks", str(bench_dir), "--out", str(out)]) == 0
    corpus = pq.read_table(out / "corpus")
    contam = pq.read_table(out / "contamination")
    assert corpus.column_names == in_cols
    assert contam.column_names == columns(CONTAMINATION)
    by_n = {r["n"]: r for r in corpus.to_pylist()}
    assert len(by_n) == len(pages) - 2 and 2 not in by_n and 99 not in by_n
    gsm_q = _records(bench_dir / "gsm8k/test.jsonl")[1]["question"]
    assert gsm_q.upper() not in by_n[0]["text"] and by_n[0]["text"] != pages[0]["text"]
    for p in pages[3:-2]:
        assert by_n[p["n"]]["text"] == p["text"]
    ids = {r["page_id"] for r in contam.to_pylist()}
    if fmt == "jsonl":
        assert url_page_id(pages[0]["url"]) in ids
    else:
        assert "id0" in ids and "id2" in ids
    counts = json.loads((out / "counts.json").read_text())
    assert counts["pages_removed"] == 2 and counts["benchmarks"] == ["cmath", "gsm8k", "mmlu_stem"]


def test_cli_bad_benchmark_line_exits_2(spark, bench_dir, tmp_path, capsys):
    from corpus_pipeline.cli import main

    bad = tmp_path / "bench"
    shutil.copytree(bench_dir, bad)
    lines = (bad / "cmath/test.jsonl").read_text(encoding="utf-8").splitlines(True)
    lines[4] = '{"question": \n'
    (bad / "cmath/test.jsonl").write_text("".join(lines), encoding="utf-8")
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"url": "http://a.example/", "text": "hello"}) + "\n")
    rc = main(["decontaminate", "--input", str(src), "--benchmarks", str(bad), "--out", str(tmp_path / "o")])
    assert rc == 2
    assert "cmath/test.jsonl:5" in capsys.readouterr().err


def test_dry_run_lists_benchmarks_and_unknown_files(bench_dir, tmp_path, capsys):
    from corpus_pipeline.cli import main

    assert main(["decontaminate", "--input", "x.jsonl", "--benchmarks", str(bench_dir),
                 "--out", str(tmp_path / "o"), "--dry-run", "--set", 'decontam.exclude_short=["mmlu_stem"]']) == 0
    out = capsys.readouterr().out
    assert "benchmark gsm8k: gsm8k/test.jsonl" in out and "skip unknown file notes/other.json" in out
    assert "except mmlu_stem" in out
    assert not (tmp_path / "o").exists()
