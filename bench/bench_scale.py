"""The whole loop at growing crawl sizes: wall time per stage, driver and executor memory.

Each size runs in its own process (``python -m bench.bench_scale --job ...``) with a
``local[2]`` session of 1 GB driver heap and ``spark.driver.maxResultSize=1m``, on a
mini-crawl of N pages and a Parquet seed folder of real maths text (windows of the
starter seed's documents, written as Hugging Face-style ``train-*.parquet`` files), two
iterations, automatic annotation.  Printed per size: seconds per stage (from the commit
markers), pages/s, peak RSS of the Python driver, of the JVM (driver and, in local mode,
the executors' JVM side) and of the largest executor Python worker; then seconds per
million pages per stage, the numbers the README's cost model is made of.

Sizes: ``BENCH_SCALE_SIZES`` (default ``10000,50000,200000``), seed documents
``BENCH_SCALE_SEED_DOCS`` (default 15000).  ``python -m bench.bench_scale --job PAGES
SEED_DOCS WORKDIR`` runs one size and prints one JSON line (the slow loop test uses it).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Optional

STAGES = ("pages", "seed", "model", "scores", "collected", "eval", "domains", "prefixes", "final")


def seed_windows(n_docs: int, words: int = 200) -> list[str]:
    """n distinct windows of real maths text from the starter seed (repo-local, no network)."""
    from corpus_pipeline.seeds import load_seed_texts

    docs = [t.split() for t in load_seed_texts(None)]
    total = sum(max(1, len(d) - words + 1) for d in docs)
    stride = max(1, total // n_docs)
    out, seen = [], set()
    for d in docs:
        for s in range(0, max(1, len(d) - words + 1), stride):
            t = " ".join(d[s:s + words])
            if t not in seen:
                seen.add(t)
                out.append(t)
    i = 0
    while len(out) < n_docs:                  # not enough windows: shift by one word more
        d = docs[i % len(docs)]
        t = " ".join(d[(i // len(docs)) % max(1, len(d)):][:words]) + f" (part {i})"
        if t not in seen:
            seen.add(t)
            out.append(t)
        i += 1
    return out[:n_docs]


def write_seed_folder(folder: str, n_docs: int, files: int = 4) -> str:
    """``folder/data/train-0000i-of-0000k.parquet`` with text and url columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = seed_windows(n_docs)
    data = os.path.join(folder, "data")
    os.makedirs(data, exist_ok=True)
    per = -(-len(texts) // files)
    for i in range(files):
        part = texts[i * per:(i + 1) * per]
        pq.write_table(pa.table({"text": part, "url": [f"https://seed.example/{i}/{j}" for j in range(len(part))],
                                 "date": ["2023-01-01"] * len(part)}),
                       os.path.join(data, f"train-{i:05d}-of-{files:05d}.parquet"))
    return data


def _vm_hwm_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            kids = []
        out += kids
        todo += kids
    return out


def run_job(pages: int, seed_docs: int, work: str, iterations: int = 2, dim: Optional[int] = None) -> dict:
    """Mini-crawl + seed folder in ``work``, then the loop in this process (fresh session).
    ``dim``: the classifier's vector size (default: the product's); a smaller one trains faster and
    changes nothing about what reaches the driver (the slow loop test uses 32)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    os.environ["TMPDIR"] = tempfile.tempdir = tmp
    from corpus_pipeline import scratch
    from corpus_pipeline.config import Config, SparkConfig
    from corpus_pipeline.loop import Loop, LoopInputs
    from corpus_pipeline.minicrawl import generate
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.session import get_spark

    t0 = time.time()
    crawl = os.path.join(work, "crawl")
    generate(crawl, pages=pages, random_seed=3)
    seed = write_seed_folder(os.path.join(work, "seed"), seed_docs)
    gen_s = time.time() - t0
    cfg = Config()
    if dim:
        cfg.classifier.dim = int(dim)
    cfg.spark = SparkConfig(master="local[2]", driver_memory="1g",
                            conf={"spark.ui.enabled": "false", "spark.driver.maxResultSize": "1m",
                                  # broadcast joins collect their small side through the driver, up to
                                  # this threshold (10 MB by default): off here, so the 1 MB limit
                                  # measures what the pipeline itself brings to the driver
                                  "spark.sql.autoBroadcastJoinThreshold": "-1"})
    spark = get_spark(cfg.spark, quiet=True)
    conf = spark.sparkContext.getConf()
    run = os.path.join(work, "run")
    log = []
    t0 = time.time()
    with scratch.scope():
        outcome = Loop(spark, LoopInputs(inputs=[os.path.join(crawl, "warc", "*.warc.gz")], run=run,
                                         seed_corpus=seed, labels=os.path.join(crawl, "labels.jsonl"),
                                         annotate="auto", max_iterations=iterations),
                       cfg, log=log.append).execute()
    loop_s = time.time() - t0
    jvm = spark.sparkContext._gateway.proc.pid
    workers = [p for p in _descendants(jvm)]
    rf = RunView(RunFolder(run))
    stages: dict = {}
    iters = []
    import re

    # ingest commits after its own work: its time is the loop log's clock at "pages kept"
    for msg in log:
        m = re.match(r"\[\s*([0-9.]+)s\] ingest: .* pages kept", msg)
        if m:
            stages["pages"] = float(m.group(1))
    for i in rf.iterations():
        row = {"iteration": i}
        for name in STAGES[1:-1]:
            m = rf.stage_marker(name, i) or {}
            if m.get("seconds") is not None:
                stages[name] = round(stages.get(name, 0) + m["seconds"], 3)
            row[name] = m.get("counts")
        iters.append(row)
    stages["final"] = (rf.stage_marker("corpus") or {}).get("seconds")
    leftovers = sorted(n for n in os.listdir(tmp) if n.startswith(("cp_", "ft_")))
    out = {"pages": pages, "seed_docs": seed_docs, "gen_s": round(gen_s, 1), "loop_s": round(loop_s, 1),
           "stopped_because": outcome.stopped_because, "iterations": outcome.iterations,
           "stage_seconds": stages, "iteration_counts": iters,
           "max_result_size": conf.get("spark.driver.maxResultSize"),
           "driver_memory": conf.get("spark.driver.memory"),
           "driver_py_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
           "jvm_peak_rss_mb": round(_vm_hwm_mb(jvm), 1),
           "worker_py_peak_rss_mb": round(max([_vm_hwm_mb(p) for p in workers] or [0.0]), 1),
           "scratch_pending": scratch.pending(), "tmp_leftovers": leftovers,
           "run_leftovers": sorted(n for n in os.listdir(run) if n.startswith(("_", ".")) and n != "_checkpoints"),
           "pages_kept": (rf.stage_marker("pages", exact=True) or {}).get("counts", {}).get("pages")}
    spark.stop()
    return out


def run_job_subprocess(pages: int, seed_docs: int, work: str, timeout: int = 3600, dim: Optional[int] = None) -> dict:
    p = subprocess.run([sys.executable, "-m", "bench.bench_scale", "--job", str(pages), str(seed_docs), work]
                       + (["--dim", str(dim)] if dim else []),
                       capture_output=True, text=True, timeout=timeout,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if p.returncode != 0:
        raise RuntimeError(f"scale job failed ({p.returncode}): {p.stderr[-4000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    sizes = [int(x) for x in os.environ.get("BENCH_SCALE_SIZES", "10000,50000,200000").split(",") if x]
    seed_docs = int(os.environ.get("BENCH_SCALE_SEED_DOCS", "15000"))
    rows = []
    for n in sizes:
        work = tempfile.mkdtemp(prefix="bench_scale_")
        try:
            r = run_job_subprocess(n, seed_docs, work, timeout=6 * 3600)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        rows.append(r)
        print(json.dumps({k: r[k] for k in ("pages", "pages_kept", "loop_s", "stage_seconds",
                                            "driver_py_peak_rss_mb", "jvm_peak_rss_mb",
                                            "worker_py_peak_rss_mb")}), flush=True)
    cols = [s for s in STAGES if any(r["stage_seconds"].get(s) for r in rows)]
    print("\n| pages | " + " | ".join(f"{c} s" for c in cols) + " | loop s | driver Py MB | JVM MB | worker Py MB |")
    print("|---:|" + "---:|" * (len(cols) + 4))
    for r in rows:
        print(f"| {r['pages']:,} | " + " | ".join(f"{r['stage_seconds'].get(c) or 0:.0f}" for c in cols)
              + f" | {r['loop_s']:.0f} | {r['driver_py_peak_rss_mb']:.0f} | {r['jvm_peak_rss_mb']:.0f} |"
              f" {r['worker_py_peak_rss_mb']:.0f} |")
    print("\ncost model from the largest size: core-hours per billion pages (2 cores x wall seconds / pages)")
    print("| stage | core-h / 1e9 pages | x 40 (the paper's 40 billion pages) |\n|---|---:|---:|")
    r = rows[-1]
    total = 0.0
    for c in cols:
        per_iter = c not in ("pages", "final")        # iteration stages: one iteration's cost
        sec = (r["stage_seconds"].get(c) or 0) / (r["iterations"] if per_iter else 1)
        ch = core_hours_per_billion(sec, r["pages"])
        total += ch
        print(f"| {c}{' (per iteration)' if per_iter else ''} | {ch:,.0f} | {40 * ch:,.0f} |")
    print(f"| all | {total:,.0f} | {40 * total:,.0f} |")


def core_hours_per_billion(seconds: float, pages: int, cores: int = 2) -> float:
    return cores * seconds / pages * 1e9 / 3600


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", nargs=3, metavar=("PAGES", "SEED_DOCS", "WORKDIR"))
    ap.add_argument("--dim", type=int, help="classifier vector size for --job (default: the product's)")
    a = ap.parse_args()
    if a.job:
        print(json.dumps(run_job(int(a.job[0]), int(a.job[1]), a.job[2], dim=a.dim)), flush=True)
    else:
        main()
