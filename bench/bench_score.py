"""Scoring throughput per core: Spark ``score_pages`` on ``local[1]`` against plain loops.

Same texts for every runner: real maths and non-maths documents (``text/seed_sources``
rendered, MATH train problems, Common Crawl English text), repeated up to
``BENCH_SCORE_DOCS`` (default 24000: a Spark job's fixed cost, some 0.1-0.2 s, is then a few percent, as
in a partition of a real crawl) documents.  Model: the paper's settings (dim 256,
bucket 200k) trained on the starter seed against the non-maths documents.

Runners (best of ``BENCH_SCORE_REPEATS``, default 3, interleaved):
1. ``fastText predict``: ``model.predict(text, k=2)`` one text at a time on texts already
   prepared (fastText's own cost only).
2. ``local prepare+predict``: ``classify.predict_proba`` in batches of
   ``score_batch_size`` (the same preparation + prediction the executors run).
3. ``Spark local[1]``: ``score_pages`` on the texts read from Parquet, written to Spark's
   ``noop`` sink (session start and the first, model-loading job excluded).
4. ``Spark ... no scoring``: the same job with a partition function that does not score:
   the cost of moving the rows between the JVM and Python.
5. ``Spark local[1] score_pages, prepared``: what each iteration of the loop runs, on the
   ``prepared`` table (each page's line prepared once per run).
6. ``Spark local[1] prepare_pages``: that once-per-run preparation (reported apart).

Ratio = Spark docs/s / plain-loop docs/s (aim: runner 5 >= 0.9 x runner 1).  The machine is
shared: wall times are noisy, compare figures of one run.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def load_texts(n: int) -> tuple[list[str], list[str]]:
    from corpus_pipeline.seeds import render_markup

    d = data_dir() / "text"
    math = [json.loads(x) for x in open(d / "seed_sources" / "math_docs.jsonl", encoding="utf-8")]
    non = [json.loads(x) for x in open(d / "seed_sources" / "nonmath_docs.jsonl", encoding="utf-8")]
    mtrain = [json.loads(x) for x in gzip.open(d / "positives_math" / "math_train_7500_problems_solutions.jsonl.gz", "rt")]
    cc = [json.loads(x)["text"] for p in sorted((d / "dolma_cc_en_head").glob("*.gz")) for x in gzip.open(p, "rt")]
    non_texts = [render_markup(r["text"], r["format"]) for r in non if r["label"] == "non-math"]
    pool = [render_markup(r["text"], r["format"])[:8000] for r in math] + [t[:8000] for t in non_texts] + \
        [r["problem"] + "\n" + r["solution"] for r in mtrain[:1500]] + cc
    texts = [pool[i % len(pool)] for i in range(n)]
    return texts, non_texts + cc


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if not (data_dir() / "text").is_dir():
        print(f"no data under {data_dir()}: set CORPUS_PIPELINE_DATA")
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus_pipeline import classify as C
    from corpus_pipeline.classifiers import fasttext as ft
    from corpus_pipeline.config import ClassifierConfig, SparkConfig
    from corpus_pipeline.seeds import load_seed_texts

    n = int(os.environ.get("BENCH_SCORE_DOCS", "24000"))
    repeats = int(os.environ.get("BENCH_SCORE_REPEATS", "3"))
    cfg = ClassifierConfig()
    texts, negatives = load_texts(n)
    work = tempfile.mkdtemp(prefix="bench_score_")
    try:
        t0 = time.perf_counter()
        m = C.train_and_evaluate(load_seed_texts(None), negatives, cfg, 1, model_dir=os.path.join(work, "model"))
        train_s = time.perf_counter() - t0
        model_path = os.path.join(work, "model", C.MODEL_FILE)
        t0 = time.perf_counter()
        ft._MODEL_CACHE.clear()
        model = C.load_model(model_path)
        load_s = time.perf_counter() - t0
        prepared = [C.prepare(t, cfg.max_words) for t in texts]
        mean_kb = sum(len(t.encode("utf-8")) for t in texts) / len(texts) / 1024
        mean_tok = sum(p.count(" ") + 1 for p in prepared if p) / len(prepared)

        def ft_loop():
            for p in prepared:
                model.predict(p, k=2)

        def local_loop():
            b = cfg.score_batch_size
            for s in range(0, len(texts), b):
                C.predict_proba(model, texts[s:s + b], cfg)

        def prep_loop():
            for t in texts:
                C.prepare(t, cfg.max_words)

        pq.write_table(pa.table({"page_id": [f"p{i:06d}" for i in range(n)], "text": texts}),
                       os.path.join(work, "pages.parquet"))
        pq.write_table(pa.table({"page_id": [f"p{i:06d}" for i in range(n)], "line": prepared}),
                       os.path.join(work, "prepared.parquet"))
        from corpus_pipeline.spark.classify import prepare_pages, score_pages
        from corpus_pipeline.spark.session import get_spark

        spark = get_spark(SparkConfig(master="local[1]", conf={"spark.ui.enabled": "false",
                                                                "spark.sql.shuffle.partitions": "1"}), quiet=True)
        pages = spark.read.parquet("file://" + os.path.join(work, "pages.parquet"))
        lines = spark.read.parquet("file://" + os.path.join(work, "prepared.parquet"))
        from pyspark.sql import functions as F

        parts = pages.select(F.spark_partition_id()).distinct().count()

        def spark_run():
            score_pages(spark, pages, os.path.join(work, "model"), cfg).write.format("noop").mode("overwrite").save()

        def spark_prepared_run():
            score_pages(spark, lines, os.path.join(work, "model"), cfg, prepared=True) \
                .write.format("noop").mode("overwrite").save()

        def spark_prepare_run():
            prepare_pages(spark, pages, cfg).write.format("noop").mode("overwrite").save()

        from corpus_pipeline import schemas
        from corpus_pipeline.spark.arrow import map_rows

        def passthrough_run():                                 # same data path (mapInArrow), no scoring
            map_rows(pages.select("page_id", "text"), lambda rows: ((r[0], 0.0) for r in rows),
                     schemas.SCORES).write.format("noop").mode("overwrite").save()

        t0 = time.perf_counter()
        spark_run()                                            # warm-up: worker start + model load
        first_s = time.perf_counter() - t0
        spark_prepared_run()
        res = {"ft": [], "local": [], "prep": [], "spark": [], "pass": [], "sprep": [], "sprepare": []}
        for _ in range(repeats):                               # interleaved: same neighbours' load
            res["ft"].append(best(ft_loop, 1))
            res["local"].append(best(local_loop, 1))
            res["prep"].append(best(prep_loop, 1))
            res["spark"].append(best(spark_run, 1))
            res["pass"].append(best(passthrough_run, 1))
            res["sprep"].append(best(spark_prepared_run, 1))
            res["sprepare"].append(best(spark_prepare_run, 1))
        spark.stop()
        t = {k: min(v) for k, v in res.items()}
        rate = {k: n / v for k, v in t.items()}
        print(f"{n} documents (mean {mean_kb:.1f} KB, {mean_tok:.0f} tokens after preparation), "
              f"best of {repeats}; Spark input {parts} partition(s)")
        print(f"model: {os.path.getsize(model_path) / 1e6:.0f} MB, trained in {train_s:.1f} s "
              f"({m['train_positives']} + {m['train_negatives']} documents), loaded in {load_s:.2f} s; "
              f"first Spark job (worker start + model load) {first_s:.1f} s")
        print()
        print(f"{'runner':<34} {'seconds':>8} {'docs/s':>8} {'Spark / runner':>15}")
        rows = [("fastText predict, plain loop", "ft"), ("prepare only, plain loop", "prep"),
                ("prepare + predict, local batches", "local"), ("Spark local[1] score_pages", "spark"),
                ("Spark local[1] same rows, no scoring", "pass"),
                ("Spark local[1] score_pages, prepared", "sprep"), ("Spark local[1] prepare_pages (once)", "sprepare")]
        print(f"{'':<34} {'':>8} {'':>8} {'(score_pages)':>15} {'(prepared)':>12}")
        for label, k in rows:
            print(f"{label:<34} {t[k]:>8.2f} {rate[k]:>8.0f} {rate['spark'] / rate[k]:>15.2f} "
                  f"{rate['sprep'] / rate[k]:>12.2f}")
        print()
        print(f"per iteration (scoring the prepared lines) / fastText plain loop: {rate['sprep'] / rate['ft']:.2f} "
              f"(aim >= 0.9); scoring the raw texts / fastText plain loop: {rate['spark'] / rate['ft']:.2f}; "
              f"the preparation, once per run: {t['sprepare']:.2f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
