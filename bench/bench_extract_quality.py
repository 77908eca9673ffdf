"""Extraction quality with WebMainBench's metric (``corpus_pipeline.extract_metric``), per content type.

Every ``html/llm_webkit_bench`` page with ground truth (53: 22 maths, 31 others; the
``ambiguous``/``exclude`` ones left out), scored in one run for:

- ``ours resiliparse`` / ``ours trafilatura``: ``extract_html(..., extractor=NAME)`` (the
  product's two extractors; resiliparse is ``ingest.extractor``'s default);
- ``plain trafilatura (txt)``: ``trafilatura.extract(html)`` with its defaults (the peer's
  ``trafilatura (txt)`` row); ``plain trafilatura (md)``: the same with
  ``output_format="markdown"``;
- ``plain resiliparse``: ``extract_plain_text(main_content=True)`` with the peer's settings.

Prints the means per category (maths pages, others) and writes the per-page table (TSV:
extractor, page, category, the five metrics, formulas found on each side) to
``--out`` (default ``extract_quality_pages.tsv`` in the current folder).
``python -m bench extract_quality`` (all, default output), or with options
``python -m bench.bench_extract_quality [--out FILE] [--only NAME,...]`` (``python -m bench`` takes
benchmark names only).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def _ours(name):
    from corpus_pipeline.extract import Extracted, extract_html

    def run(html, url):
        r = extract_html(html, url, timeout_s=60.0, extractor=name)
        return r.text if isinstance(r, Extracted) else ""
    return run


def _plain_trafilatura(fmt):
    def run(html, url):
        import trafilatura

        return trafilatura.extract(html, url=url or None, output_format=fmt) or ""
    return run


def _plain_resiliparse(html, url):
    from resiliparse.extract.html2text import extract_plain_text

    return extract_plain_text(html, main_content=True, alt_texts=True, links=False, noscript=False,
                              list_bullets=True, preserve_formatting=True, comments=True)


EXTRACTORS = {
    "ours resiliparse": _ours("resiliparse"),
    "ours trafilatura": _ours("trafilatura"),
    "plain trafilatura (txt)": _plain_trafilatura("txt"),
    "plain trafilatura (md)": _plain_trafilatura("markdown"),
    "plain resiliparse": _plain_resiliparse,
}


def pages(data: Path) -> list:
    """[(file, url, html, truth, category)] with category "maths" or "others"."""
    import json

    from devtools.extract_quality import webkit_pages

    d = data / "html" / "llm_webkit_bench"
    labels = {r["file"]: r.get("label") for r in
              (json.loads(x) for x in (d / "index.jsonl").read_text().splitlines() if x.strip())}
    return [(f, u, h, t, "maths" if labels.get(f) == "math" else "others")
            for f, u, h, t in webkit_pages(data)]


def run(names=None, data: Path | None = None) -> tuple[dict, list]:
    """({(extractor, category): aggregate}, per-page rows) for the named extractors."""
    from corpus_pipeline.extract_metric import aggregate, score_page

    data = data or data_dir()
    pp = pages(data)
    rows = []
    for name in names or EXTRACTORS:
        fn = EXTRACTORS[name]
        for f, u, h, t, cat in pp:
            s = score_page(fn(h, u), t)
            rows.append({"extractor": name, "page": f, "category": cat, **s})
    agg = {}
    for name in names or EXTRACTORS:
        for cat in ("maths", "others", "all"):
            sel = [r for r in rows if r["extractor"] == name and cat in ("all", r["category"])]
            agg[(name, cat)] = aggregate(sel)
    return agg, rows


def _fmt(v) -> str:
    return "" if v is None else f"{v:.3f}"


def print_table(agg: dict) -> None:
    from corpus_pipeline.extract_metric import METRICS

    for cat in ("maths", "others", "all"):
        first = next(a for (n, c), a in agg.items() if c == cat)
        print(f"\n{cat} ({first['pages']} pages; pages scored per metric vary by extractor)")
        print(f"{'extractor':<26}" + "".join(f"{m:>13}" for m in METRICS) + f"{'overall':>9}")
        for (name, c), a in agg.items():
            if c == cat:
                print(f"{name:<26}" + "".join(f"{a[m]:>8.3f} ({a[m + '_pages']:>2})" for m in METRICS)
                      + f"{a['overall']:>9.3f}")


def write_rows(rows: list, out: Path) -> None:
    from corpus_pipeline.extract_metric import METRICS

    cols = ["extractor", "page", "category", *METRICS, "n_formulas", "n_formulas_truth"]
    lines = ["\t".join(cols)]
    for r in rows:
        lines.append("\t".join(_fmt(r[c]) if c in METRICS else str(r[c]) for c in cols))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="extract_quality_pages.tsv")
    ap.add_argument("--only", default="", help="comma-separated extractor names (default: all)")
    args = ap.parse_args(argv if argv is not None else [])
    names = [n.strip() for n in args.only.split(",") if n.strip()] or None
    if not (data_dir() / "html" / "llm_webkit_bench" / "index.jsonl").is_file():
        print(f"no html/llm_webkit_bench under {data_dir()}: set CORPUS_PIPELINE_DATA")
        return
    agg, rows = run(names)
    print_table(agg)
    write_rows(rows, Path(args.out))
    print(f"\nper-page table: {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
