"""Extraction benchmark: plain trafilatura vs our maths-preserving ``extract_html``.

Same real pages (every page of the ``html/`` folders of the shared data:
llm_webkit_bench, article_extraction_benchmark, trafilatura), same process,
one core, interleaved page by page (the order of the two alternates between
pages so load drift hits both alike).  Reports ms/page (mean, p50, p90, max)
of:

- ``plain``: ``trafilatura.extract(html, url=url, include_comments=False)``;
- ``ours``: ``extract_html(html, url)`` with its default 5 s time limit
  (parse once, maths rewrite, title, trafilatura, delimiter detection);
- ``rewrite only``: the parse + maths rewrite part of ours alone,

and the ratios ours/plain.  Times are CPU time of this process
(``time.process_time``), so other load on the machine does not count.  ``BENCH_EXTRACT_PAGES=N`` (or ``--pages N``)
limits the number of pages (taken evenly from the folders).  Data folder:
``CORPUS_PIPELINE_DATA`` (default ``../shared/data`` next to the clone).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# CPU time of this process: the machine is shared, wall time would measure the neighbours
CLOCK = time.process_time
FOLDERS = ("llm_webkit_bench", "article_extraction_benchmark", "trafilatura")


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def load_pages(limit: int | None = None) -> list[tuple[str, str, str]]:
    """[(name, url, html)] from the html/ folders, round-robin over folders."""
    per_folder = []
    for folder in FOLDERS:
        base = data_dir() / "html" / folder
        idx = base / "index.jsonl"
        if not idx.is_file():
            continue
        recs = [json.loads(line) for line in idx.read_text().splitlines() if line.strip()]
        per_folder.append([(base, r) for r in recs])
    order = []
    while any(per_folder):
        for lst in per_folder:
            if lst:
                order.append(lst.pop(0))
    if limit:
        order = order[:limit]
    pages = []
    for base, rec in order:
        path = base / rec["file"]
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if path.suffix == ".gz":
            raw = gzip.decompress(raw)
        pages.append((f"{base.name}/{rec['file']}", rec.get("url") or "", _decode(raw)))
    return pages


def _stats(ms: list[float]) -> dict:
    s = sorted(ms)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]  # noqa: E731
    return {"mean": statistics.fmean(s), "p50": pick(0.5), "p90": pick(0.9), "max": s[-1]}


def run(pages) -> dict:
    import trafilatura
    from trafilatura.utils import load_html

    from corpus_pipeline.extract import Extracted, extract_html
    from corpus_pipeline.mathhtml import rewrite_math

    def plain(name, url, html):
        return trafilatura.extract(html, url=url or None, include_comments=False)

    def ours(name, url, html):
        return extract_html(html, url)

    def rewrite(name, url, html):
        tree = load_html(html)
        return rewrite_math(tree, html) if tree is not None else None

    def parse(name, url, html):
        return load_html(html)

    for p in pages[:5]:  # warm-up: imports, caches
        plain(*p), ours(*p)
    times = {"plain": [], "ours": [], "parse only": [], "rewrite only": []}
    skips: dict = {}
    math_pages = 0
    flagged = []
    for i, p in enumerate(pages):
        fns = [("plain", plain), ("ours", ours)]
        if i % 2:
            fns.reverse()
        for key, fn in fns + [("parse only", parse), ("rewrite only", rewrite)]:
            t0 = CLOCK()
            out = fn(*p)
            times[key].append((CLOCK() - t0) * 1000)
            if key == "ours":
                if isinstance(out, Extracted):
                    math_pages += out.has_math_markup
                    if out.has_math_markup:
                        flagged.append((p[0], out.math_kinds))
                else:
                    skips[out.reason] = skips.get(out.reason, 0) + 1
    return {"n": len(pages), "stats": {k: _stats(v) for k, v in times.items()},
            "skips": skips, "math_pages": math_pages, "flagged": flagged}


def print_table(res: dict) -> None:
    st = res["stats"]
    print(f"pages: {res['n']}  (ours: {res['math_pages']} with maths markup, skips {res['skips']})")
    print(f"{'ms/page':<14} {'mean':>8} {'p50':>8} {'p90':>8} {'max':>9}")
    for k in ("plain", "ours", "parse only", "rewrite only"):
        s = st[k]
        print(f"{k:<14} {s['mean']:>8.1f} {s['p50']:>8.1f} {s['p90']:>8.1f} {s['max']:>9.1f}")
    print(f"{'ours / plain':<14} " + " ".join(
        f"{st['ours'][q] / st['plain'][q]:>8.2f}" if q != "max" else f"{st['ours'][q] / st['plain'][q]:>9.2f}"
        for q in ("mean", "p50", "p90", "max")))
    pre = st["rewrite only"]["mean"] - st["parse only"]["mean"]
    print(f"maths rewrite alone (rewrite - parse): {pre:.2f} ms/page = "
          f"{100 * pre / st['plain']['mean']:.1f}% of plain trafilatura")
    print(f"pages/s/core: plain {1000 / st['plain']['mean']:.1f}, ours {1000 / st['ours']['mean']:.1f} "
          f"(ratio {st['plain']['mean'] / st['ours']['mean']:.2f})")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=int(os.environ.get("BENCH_EXTRACT_PAGES", "0")) or None)
    ap.add_argument("--show-math", action="store_true", help="list the pages reported with maths markup")
    args = ap.parse_args(argv if argv is not None else [])
    pages = load_pages(args.pages)
    if not pages:
        print(f"no pages under {data_dir()}/html: set CORPUS_PIPELINE_DATA")
        return
    res = run(pages)
    print_table(res)
    if args.show_math:
        for name, kinds in res["flagged"]:
            print(f"  maths markup: {name} {kinds}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
