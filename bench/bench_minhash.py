"""MinHash near-dedup benchmark.

1. Signature throughput (docs/s on one core) on the same generated documents:
   our path (``stages.near_dedup.rules.Signer``: vectorised 64-bit shingle ids +
   datasketch ``update_batch``, affine32) against a naive per-shingle
   ``MinHash.update`` loop (datasketch default sha1 hash) and
   ``MinHash.bulk`` on the shingle strings; datatrove's MinHash signature step
   when ``datatrove`` is importable (it is not a project dependency).
2. Whole ``near_dedup`` time on generated pages tables (10k, 50k, 200k pages by
   default; 10% of pages are perturbed copies), each size in its own
   subprocess with its own local[2] SparkSession, with the driver's peak RSS
   (Python driver and the JVM, which in local mode also hosts the executors)
   and ``spark.driver.maxResultSize`` set small to show nothing proportional to
   the corpus reaches the driver.

Sizes: ``BENCH_MINHASH_SIZES=10000,50000`` or ``--sizes``;
``BENCH_MINHASH_SIG_DOCS`` (default 2000) documents for the throughput part.

``python -m bench.bench_minhash --job N`` runs one near-dedup job and prints a
JSON line (used by the slow test too).
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

import numpy as np

VOCAB = 30_000


# ----------------------------------------------------------------- generated text
def _vocab_word(k: int) -> str:
    return f"w{k}"


def base_words(seed: int, j: int) -> list[str]:
    rng = np.random.default_rng([seed, j, 0])
    n = int(rng.integers(200, 600))
    ids = np.minimum(rng.zipf(1.15, n), VOCAB) + rng.integers(0, 3, n) * VOCAB  # zipf head, long tail
    return [_vocab_word(int(k)) for k in ids]


COPY_RATES = (0.005, 0.01, 0.02, 0.04, 0.08)


def copy_rate(i: int) -> float:
    """Edit rate of copy page i (i % 10 == 9): cycles through COPY_RATES."""
    return COPY_RATES[(i // 10) % len(COPY_RATES)]


def page_text(seed: int, i: int) -> str:
    """Page i: pages with i % 10 == 9 are perturbed copies of page i - 1 - (i % 3)."""
    if i % 10 == 9:
        src = i - 1 - (i % 3)
        words = base_words(seed, src)
        rng = np.random.default_rng([seed, i, 1])
        rate = copy_rate(i)
        out = []
        for w in words:
            u = rng.random()
            if u < rate / 2:
                out.append(_vocab_word(int(rng.integers(0, 3 * VOCAB))))
            elif u >= rate:
                out.append(w)
        return " ".join(out)
    return " ".join(base_words(seed, i))


def _gen_partition(seed: int):
    def run(it):
        from corpus_pipeline.schemas import PAGES, row
        for r in it:
            i = int(r[0])
            yield row(PAGES, {"page_id": f"pg{i:09d}", "url": f"https://example{i % 997}.org/p/{i}",
                              "text": page_text(seed, i)})
    return run


# ----------------------------------------------------------------- one job (subprocess)
def _jvm_peak_rss_mb(spark) -> float:
    try:
        pid = spark.sparkContext._gateway.proc.pid
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except Exception:  # noqa: BLE001
        pass
    return float("nan")


def run_job(n: int, max_result_size: str = "1m", partitions: int = 8, seed: int = 7,
            driver_memory: str = "2g") -> dict:
    from corpus_pipeline.config import DedupConfig, SparkConfig
    from corpus_pipeline.schemas import PAGES
    from corpus_pipeline.spark.arrow import map_rows
    from corpus_pipeline.spark.io import read_table, write_table
    from corpus_pipeline.stages.near_dedup.step import near_dedup
    from corpus_pipeline.spark.session import get_spark

    tmp = tempfile.mkdtemp(prefix="bench_minhash_")
    try:
        spark = get_spark(SparkConfig(master="local[2]", driver_memory=driver_memory, conf={
            "spark.ui.enabled": "false", "spark.driver.maxResultSize": max_result_size,
            "spark.sql.shuffle.partitions": str(partitions)}), quiet=True)
        assert spark.sparkContext.getConf().get("spark.driver.maxResultSize") == max_result_size
        t0 = time.time()
        src = spark.range(0, n, 1, partitions)
        write_table(map_rows(src, _gen_partition(seed), PAGES), f"{tmp}/pages", PAGES)
        t_gen = time.time() - t0
        pages = read_table(spark, f"{tmp}/pages", PAGES)
        t0 = time.time()
        res = near_dedup(spark, pages, DedupConfig(), f"{tmp}/ckpt")
        write_table(res.kept, f"{tmp}/kept", PAGES)
        write_table(res.duplicates, f"{tmp}/dups")
        t_dedup = time.time() - t0
        kept = read_table(spark, f"{tmp}/kept").count()
        expected_copies = sum(1 for i in range(n) if i % 10 == 9)
        light_copies = sum(1 for i in range(n) if i % 10 == 9 and copy_rate(i) <= 0.02)
        out = {"n": n, "gen_s": round(t_gen, 2), "dedup_s": round(t_dedup, 2), "kept": kept,
               "expected_copies": expected_copies, "light_copies": light_copies, "counts": res.counts,
               "sample_pairs": len(res.sample_pairs), "timings": res.timings,
               "max_result_size": spark.sparkContext.getConf().get("spark.driver.maxResultSize"),
               "driver_py_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
               "driver_jvm_peak_rss_mb": round(_jvm_peak_rss_mb(spark), 1)}
        spark.stop()
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_job_subprocess(n: int, max_result_size: str = "1m", timeout: float = 3600) -> dict:
    cmd = [sys.executable, "-m", "bench.bench_minhash", "--job", str(n), "--max-result-size", max_result_size]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"job {n} failed (rc={p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-6000:]}")
    return json.loads(lines[-1])


# ----------------------------------------------------------------- signature throughput
def _time(fn, reps: int = 3) -> float:
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def signature_throughput(n_docs: int) -> list[tuple[str, float]]:
    from datasketch import MinHash

    from corpus_pipeline.config import DedupConfig
    from corpus_pipeline.stages.near_dedup import rules as mh

    cfg = DedupConfig()
    num_perm = cfg.bands * cfg.rows
    texts = [page_text(3, i) for i in range(n_docs)]
    rows: list[tuple[str, float]] = []

    signer = mh.Signer(num_perm, cfg.minhash_seed, cfg.shingle_size)
    rows.append(("ours: Signer (ids + update_batch)", n_docs / _time(lambda: [signer.signature(t) for t in texts])))

    def naive():
        for t in texts:
            m = MinHash(num_perm=num_perm, seed=cfg.minhash_seed, scheme=mh.SCHEME)
            for s in mh.shingles(t, cfg.shingle_size):
                m.update(s.encode("utf-8"))
    rows.append(("naive: MinHash.update per shingle", n_docs / _time(naive, reps=1)))

    def bulk():
        MinHash.bulk(([s.encode("utf-8") for s in mh.shingles(t, cfg.shingle_size)] for t in texts),
                     num_perm=num_perm, seed=cfg.minhash_seed, scheme=mh.SCHEME)
    rows.append(("MinHash.bulk on shingle strings (sha1)", n_docs / _time(bulk)))

    rows.append(_datatrove_throughput(texts, cfg))
    return rows


_DATATROVE_SCRIPT = r"""
import json, sys, time, tempfile
from datatrove.pipeline.dedup.minhash import MinhashConfig, MinhashDedupSignature
texts = json.load(open(sys.argv[1]))
b, r, k = (int(x) for x in sys.argv[2:5])
from datatrove.utils.word_tokenizers import WordTokenizer
cfg = MinhashConfig(num_buckets=b, hashes_per_bucket=r, n_grams=k)
try:
    step = MinhashDedupSignature(output_folder=tempfile.mkdtemp(), config=cfg)
    note = ""
except ImportError:   # its English word tokenizer needs spaCy: split on whitespace instead
    class _WS(WordTokenizer):
        def word_tokenize(self, text):
            return text.split()
        def sent_tokenize(self, text):
            return [text]
        def span_tokenize(self, text):
            return [(0, len(text))]
    step = MinhashDedupSignature(output_folder=tempfile.mkdtemp(), config=cfg, language=_WS())
    note = " (whitespace tokens: no spaCy)"
_h = step._hash_func
try:
    _h("probe")
except TypeError:     # this xxhash wants bytes
    step._hash_func = lambda t: _h(t.encode("utf-8"))
best = float("inf")
for _ in range(3):
    t = time.perf_counter()
    for x in texts:
        step.get_signature(step.get_shingles(x))
    best = min(best, time.perf_counter() - t)
print(json.dumps({"docs_per_s": len(texts) / best, "note": note}))
"""


def _datatrove_throughput(texts: list[str], cfg) -> tuple[str, float]:
    """datatrove's MinhashDedupSignature (get_shingles + get_signature) on the same texts.

    Runs in this interpreter when datatrove is importable, else in the one named by
    ``DATATROVE_PYTHON`` (e.g. a throwaway venv: ``python -m venv /tmp/dt && /tmp/dt/bin/pip
    install datatrove``); otherwise the row says it was not available.
    """
    python = os.environ.get("DATATROVE_PYTHON")
    if not python:
        try:
            import datatrove  # noqa: F401
            python = sys.executable
        except ImportError:
            return ("datatrove: not installed (set DATATROVE_PYTHON)", float("nan"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    try:
        p = subprocess.run([python, "-c", _DATATROVE_SCRIPT, f.name, str(cfg.bands), str(cfg.rows),
                            str(cfg.shingle_size)], capture_output=True, text=True, timeout=1800)
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode != 0 or not line:
            return (f"datatrove: failed ({p.stderr.strip().splitlines()[-1:]})", float("nan"))
        ver = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('datatrove'))"],
                             capture_output=True, text=True).stdout.strip()
        res = json.loads(line[-1])
        return (f"datatrove {ver} signature step{res['note']}", res["docs_per_s"])
    finally:
        os.unlink(f.name)


# ----------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="bench_minhash")
    ap.add_argument("--sizes", default=os.environ.get("BENCH_MINHASH_SIZES", "10000,50000,200000"))
    ap.add_argument("--sig-docs", type=int, default=int(os.environ.get("BENCH_MINHASH_SIG_DOCS", "2000")))
    ap.add_argument("--job", type=int, default=None, help="run one near-dedup job of N pages, print JSON")
    ap.add_argument("--max-result-size", default="1m")
    ap.add_argument("--skip-signatures", action="store_true")
    args = ap.parse_args(argv if argv is not None else [])
    if args.job is not None:
        print(json.dumps(run_job(args.job, args.max_result_size)), flush=True)
        return

    if not args.skip_signatures:
        rows = signature_throughput(args.sig_docs)
        naive = rows[1][1]
        print(f"\nSignature throughput, {args.sig_docs} generated docs (~400 words), one core, "
              f"{DedupConfigNumPerm()} permutations")
        print(f"{'method':<48} {'docs/s':>9} {'x naive':>8}")
        for name, v in rows:
            print(f"{name:<48} {v:>9.0f} {v / naive:>8.2f}")

    sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    if not sizes:
        return
    results = []
    for n in sizes:
        r = run_job_subprocess(n, args.max_result_size)
        results.append(r)
        print(f"  done {n}: {r['dedup_s']} s, counts={r['counts']}", flush=True)
    base = results[0]
    print(f"\nWhole near_dedup (local[2], maxResultSize={args.max_result_size}; time includes writing kept+dups)")
    print(f"{'pages':>8} {'dedup s':>8} {'x time':>7} {'x pages':>7} {'pages/s':>8} {'removed':>8} "
          f"{'copies':>7} {'cand':>7} {'clusters':>8} {'py RSS MB':>9} {'JVM RSS MB':>10}")
    for r in results:
        c = r["counts"]
        print(f"{r['n']:>8} {r['dedup_s']:>8.1f} {r['dedup_s'] / base['dedup_s']:>7.2f} "
              f"{r['n'] / base['n']:>7.1f} {r['n'] / r['dedup_s']:>8.0f} {c['removed']:>8} "
              f"{r['expected_copies']:>7} {c['candidate_pairs']:>7} {c['clusters']:>8} "
              f"{r['driver_py_peak_rss_mb']:>9.0f} {r['driver_jvm_peak_rss_mb']:>10.0f}")


def DedupConfigNumPerm() -> int:  # noqa: N802 - tiny helper for the header
    from corpus_pipeline.config import DedupConfig
    c = DedupConfig()
    return c.bands * c.rows


if __name__ == "__main__":
    main(sys.argv[1:])
