"""Decontamination benchmark: index build cost and pages/s/core on real pages.

Index: every benchmark file in the shared data's ``benchmarks/`` (the full
set: GSM8K, MATH, CMATH, AGIEval, MGSM, MMLU-STEM, OCW, SAT, miniF2F and
``extra/``), loaded and indexed as ``decontaminate`` does.  Reported: load and
build CPU seconds, entries, the index's array bytes, its pickled size (what is
broadcast) and the process RSS growth while building it.

Pages: the real text pages of the shared data (news, Common Crawl documents,
maths and non-maths docs incl. Chinese), decontaminated one by one in one
process.  Side by side, the same pages against the same grams held in a plain
Python ``set`` of 64-bit ints (the obvious alternative): memory and speed.
Times are CPU time of this process (``time.process_time``; the machine is
shared).  ``BENCH_DECONTAM_PAGES=N`` limits the number of pages.
"""
from __future__ import annotations

import gc
import glob
import gzip
import json
import os
import pickle
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLOCK = time.process_time


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def load_pages(limit: int | None = None) -> list[dict]:
    d = data_dir() / "text"
    pages = []
    for f in sorted(glob.glob(str(d / "negatives_general/*.jsonl")) + glob.glob(str(d / "seed_sources/*.jsonl"))
                    + glob.glob(str(d / "positives_math/*.jsonl"))):
        with open(f, encoding="utf-8") as fh:
            pages += [json.loads(x) for x in fh if x.strip()]
    for f in sorted(glob.glob(str(d / "dolma_cc_en_head/*.gz"))):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            pages += [json.loads(x) for x in fh if x.strip()]
    pages = [{"page_id": str(i), "text": p.get("text") or ""} for i, p in enumerate(pages)]
    return pages[:limit] if limit else pages


def _executor_rss(blob: bytes) -> float:
    """RSS growth of a fresh Python process that unpickles the index (what each executor worker holds)."""
    import subprocess
    import sys
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as fh:
        fh.write(blob)
    code = ("import os,pickle,sys,numpy,corpus_pipeline.decontam\n"
            "def r():\n return int(open('/proc/self/statm').read().split()[1])*os.sysconf('SC_PAGE_SIZE')/2**20\n"
            "a=r(); data=open(sys.argv[1],'rb').read(); i=pickle.loads(data); del data; print(r()-a)")
    try:
        out = subprocess.run([sys.executable, "-c", code, fh.name], capture_output=True, text=True, check=True,
                             cwd=str(ROOT))
        return float(out.stdout.strip())
    finally:
        os.remove(fh.name)


def _set_variant(index):
    """The same grams in a Python set of ints; returns (set, apply(text) -> number of matching grams)."""
    from corpus_pipeline import decontam as D

    s = set(index.hashes.tolist())

    def apply(text: str) -> int:
        th = D._page_tokens(text).hashes
        g = D.gram_hashes(th, [index.n])[index.n]
        return sum(1 for h in g.tolist() if h in s)

    return s, apply


def main() -> None:
    from corpus_pipeline import decontam as D
    from corpus_pipeline.config import DecontamConfig

    cfg = DecontamConfig()
    bench = data_dir() / "benchmarks"
    gc.collect()
    rss0 = rss_mb()
    t0 = CLOCK()
    bm = D.load_benchmarks(bench, cfg)
    t1 = CLOCK()
    index = D.build_index(bm, cfg)
    t2 = CLOCK()
    gc.collect()
    rss1 = rss_mb()
    blob = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
    t3 = CLOCK()
    pickle.loads(blob)
    t4 = CLOCK()
    n_short = sum(len(v[0]) for v in index.short.values())
    print(f"benchmarks: {len(bm.files)} files, {len(bm.names())} benchmarks, {len(bm.items):,} items, "
          f"skipped files: {len(bm.skipped)}")
    print()
    print("| index (full benchmark set) | value |")
    print("|---|---|")
    print(f"| load files (CPU s) | {t1 - t0:.2f} |")
    print(f"| build index (CPU s) | {t2 - t1:.2f} |")
    print(f"| 10-gram entries (gram, benchmark) | {len(index.hashes):,} |")
    print(f"| short questions looked up whole (3-12 tokens) | {n_short:,} |")
    print(f"| index arrays (MB) | {index.nbytes() / 2**20:.1f} |")
    print(f"| pickled = broadcast size (MB) | {len(blob) / 2**20:.1f} |")
    print(f"| unpickle on an executor (CPU s) | {t4 - t3:.3f} |")
    print(f"| RSS growth on the driver: load + build (MB) | {rss1 - rss0:.0f} |")
    print(f"| RSS growth on an executor: unpickle the broadcast (MB) | {_executor_rss(blob):.0f} |")
    del blob
    del bm

    limit = int(os.environ.get("BENCH_DECONTAM_PAGES", "0")) or None
    pages = load_pages(limit)
    mb = sum(len(p["text"].encode("utf-8")) for p in pages) / 2**20
    # warm the token cache the same way for both variants
    for p in pages[:20]:
        D.decontaminate_text(p["text"], index, cfg)

    rss_a = rss_mb()
    ts = CLOCK()
    s, apply_set = _set_variant(index)
    set_build = CLOCK() - ts
    gc.collect()
    set_mb = rss_mb() - rss_a

    times = {"ours": 0.0, "set": 0.0, "tokenize": 0.0}
    hits_ours = hits_set = 0
    removed = cleaned = 0
    for i, p in enumerate(pages):
        order = ("ours", "set", "tokenize") if i % 2 == 0 else ("set", "tokenize", "ours")
        for name in order:
            t = CLOCK()
            if name == "ours":
                r = D.decontaminate_text(p["text"], index, cfg)
                removed += r.removed
                cleaned += (not r.removed) and bool(r.rows)
                hits_ours += bool(r.rows)
            elif name == "set":
                hits_set += apply_set(p["text"]) > 0
            else:
                D._page_tokens(p["text"])
            times[name] += CLOCK() - t
    n = len(pages)
    print()
    print(f"pages: {n:,} real pages, {mb:.1f} MB of text (mean {mb * 1024 / max(1, n):.1f} KB); "
          f"decontaminated: {removed} removed, {cleaned} cleaned")
    print()
    print("| variant (one core) | pages/s | MB/s | ratio to ours |")
    print("|---|---|---|---|")
    for name, label in (("ours", "numpy sorted uint64 + bitset, all rules (ours)"),
                        ("set", "Python set of ints, 10-gram lookup only"),
                        ("tokenize", "normalize + hash tokens only (floor)")):
        sec = times[name] or 1e-9
        print(f"| {label} | {n / sec:,.0f} | {mb / sec:.2f} | {times['ours'] / sec:.2f} |")
    print()
    print("| gram store | memory (MB) | build (CPU s) |")
    print("|---|---|---|")
    print(f"| numpy arrays + bitset (ours) | {index.nbytes() / 2**20:.1f} | (part of build above) |")
    print(f"| Python set of ints | {set_mb:.0f} (RSS growth) | {set_build:.2f} |")
    print(f"| ratio set / ours | {set_mb / max(1e-9, index.nbytes() / 2**20):.1f} | |")
    if hits_ours < hits_set:  # pages with 10-gram hits must agree (ours also has the short rule)
        print(f"WARNING: pages with hits: ours {hits_ours} < set {hits_set}")
    del s


if __name__ == "__main__":
    main()
