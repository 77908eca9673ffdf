"""What decontamination removes from real maths pages (shared by ``bench_decontam`` and the test
``tests/test_decontam_real.py``).

The pages: every real maths text of the test data collection, as the final corpus would hold it:

* ``html/``: the labeled maths pages (llm-webkit benchmark, the article and trafilatura benchmarks'
  maths pages), extracted with the final corpus's extractor (``final.extractor``);
* ``text/seed_sources/math_docs.jsonl`` and ``text/web_sources/math_web_en.jsonl.gz``: maths pages as
  their sites' source files (LaTeX, Markdown, CNXML, PreTeXt), rendered to text with the maths as TeX
  (``seeds.render_markup``), as the development crawl serves them;

and every page of the development crawl (:func:`devcrawl_pages`), among them its problem site of
MATH *train* problems, which shares its authors' templates with the MATH *test* items.

Each removal is one contamination row: (page key, benchmark, item id) with its rule, evidence and
removed text.  ``tests/data/decontam_judged.jsonl`` holds each row's verdict, judged once by reading
the page's text beside the benchmark item: ``true`` (the page states the item's problem, word for
word or with other numbers) or ``false`` (it shares notation, numbers, figure code or a stock
sentence only, and asks another question), with the reason.
"""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Iterator, Optional

ROOT = Path(__file__).resolve().parents[1]
JUDGED = ROOT / "tests" / "data" / "decontam_judged.jsonl"


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def _jsonl(path: Path) -> list[dict]:
    op = gzip.open if path.name.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def real_math_pages(data: Optional[Path] = None) -> Iterator[dict]:
    """``{"key", "url", "source", "text"}`` for every real maths page (module docstring), in a fixed order."""
    from corpus_pipeline.config import Config
    from corpus_pipeline.extract import Extracted, extract_html
    from corpus_pipeline.seeds import render_markup

    data = data or data_dir()
    extractor = Config().final.extractor
    for r in _jsonl(data / "labeled" / "pages_labeled.jsonl"):
        if r.get("label") != "math":
            continue
        p = data / r["path"]
        raw = gzip.open(p).read() if r.get("compressed") else p.read_bytes()
        e = extract_html(raw.decode("utf-8", "replace"), r["url"], timeout_s=60.0, extractor=extractor)
        if isinstance(e, Extracted) and e.text:
            yield {"key": "html:" + r["path"], "url": r["url"], "source": "html", "text": e.text}
    for name, src in (("seed_sources/math_docs.jsonl", "math_docs"), ("web_sources/math_web_en.jsonl.gz", "math_web_en")):
        for r in _jsonl(data / "text" / name):
            if r.get("label", "math") != "math":
                continue
            text = render_markup(r["text"], r.get("format") or "text")
            if text.strip():
                yield {"key": f"{src}:{r['url']}", "url": r["url"], "source": src, "text": text}


PROBLEM_SITE = "problems.example.org"


def devcrawl_pages(data: Optional[Path] = None) -> Iterator[dict]:
    """Every page of the development crawl, extracted with the final corpus's extractor."""
    from devtools import devcrawl
    from corpus_pipeline.config import Config
    from corpus_pipeline.extract import Extracted, extract_html

    extractor = Config().final.extractor
    for p in devcrawl.collect(str(data or data_dir())):
        e = extract_html(p["html"].decode("utf-8", "replace"), p["url"], timeout_s=60.0, extractor=extractor)
        if isinstance(e, Extracted) and e.text:
            yield {"key": "devcrawl:" + p["url"], "url": p["url"], "source": "devcrawl:" + p["site"],
                   "label": p["label"], "text": e.text}


def removals(pages: list[dict], bench_dir: Optional[Path], cfg=None, index=None) -> tuple[list[dict], dict]:
    """(contamination rows as dicts with the page key, index stats) of ``pages`` against every
    benchmark in ``bench_dir`` (or the ``index`` built from them) with ``cfg`` (default: the product's)."""
    from corpus_pipeline import decontam as D
    from corpus_pipeline.config import DecontamConfig

    cfg = cfg or DecontamConfig()
    if index is None:
        index = D.build_index(D.load_benchmarks(bench_dir, cfg), cfg)
    out = []
    for p in pages:
        r = D.decontaminate_text(p["text"], index, cfg)
        for bench, item, action, reason, evidence, removed in r.rows:
            out.append({"key": p["key"], "url": p["url"], "benchmark": bench, "item_id": item, "action": action,
                        "reason": reason, "evidence": evidence, "removed_text": removed})
    return out, dict(index.stats, items=len(index.item_ids))


def row_key(r: dict) -> tuple:
    return r["key"], r["benchmark"], r["item_id"]


def load_judged(path: Path = JUDGED) -> dict:
    """(page key, benchmark, item id) -> {"verdict": bool, "reason": str, ...}."""
    if not path.exists():
        return {}
    return {row_key(r): r for r in _jsonl(path)}


def false_rows(rows: list[dict], judged: dict) -> list[dict]:
    """Rows that count as false removals: judged false, or never judged."""
    return [r for r in rows if not (judged.get(row_key(r)) or {}).get("verdict")]
