"""Classifier quality on labeled real pages that are in no training set, English and Chinese apart.

The loop's first classifier in miniature: positives are the starter seed (the default), negatives
are "random crawl pages" - the development crawl's own source pages (number-heavy non-maths, a
mixed site, and the maths the seed does not hold, as a random draw would include it) plus the
labeled real pages of one half of the domains (maths included: the loop does not know labels).
It is evaluated on the labeled pages of the other half (no domain on both sides), then the halves
are swapped, so every labeled page is scored once by a model that never saw its domain.
Chinese: the labeled pages hold one Chinese maths page, so Chinese is also measured on the
development crawl's Chinese source pages (OI Wiki number theory held out of the seed, OI Wiki's
non-maths folders), scored by the same models but never trained on in that half.

Variants, side by side (targets: precision and recall >= 0.9 at the default threshold 0.5):
``default`` (the shipped ``classify.tokens`` and settings), ``delimiters apart (before)``
(``\\( \\) \\[ \\] $$`` kept as tokens of their own, the preparation before they were unified
with ``$``), ``chunk 56/48/40`` (``classifier.train_chunk_words``; default 64), ``whole
documents`` (``train_chunk_words = 0``), ``+ MATH train`` (750 MATH train problems with
solutions added to the positives; MIT licence).  ``BENCH_QUALITY_VARIANTS`` picks some by name.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def _jsonl(path: Path) -> list[dict]:
    op = gzip.open if str(path).endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _half(key: str) -> int:
    return hashlib.sha1(key.encode("utf-8")).digest()[0] & 1


def load(data: Path) -> dict:
    """Extracted texts of every page of the development crawl, with label, site and language."""
    from corpus_pipeline import devcrawl
    from corpus_pipeline.extract import Extracted, extract_html
    from corpus_pipeline.text import cjk_share

    pages = []
    for p in devcrawl.collect(str(data)):
        e = extract_html(p["html"].decode("utf-8", "replace"), p["url"])
        text = e.text if isinstance(e, Extracted) else ""
        if not text:
            continue
        pages.append({"url": p["url"], "site": p["site"] or urlparse(p["url"]).netloc, "label": p["label"],
                      "source": p["source"], "text": text, "zh": cjk_share(text) > 0.2})
    from corpus_pipeline.seeds import load_seed_texts

    mtrain = _jsonl(data / "text" / "positives_math" / "math_train_7500_problems_solutions.jsonl.gz")
    return {"pages": pages, "seed": load_seed_texts(None),
            "math_train": [r["problem"] + "\n" + r["solution"] for r in mtrain[::10]]}


def measure(d: dict, cfg=None, extra_pos: list = ()) -> dict:
    """pr_metrics per evaluation set: pages/en, pages/zh (labeled real pages), sources/zh."""
    from corpus_pipeline import classify as C
    from corpus_pipeline.config import ClassifierConfig

    cfg = cfg or ClassifierConfig()
    pos = list(d["seed"]) + list(extra_pos)
    scored = []
    for half in (0, 1):
        train = [p for p in d["pages"] if _half(p["site"]) != half]
        model = C.train_model(pos, [p["text"] for p in train], cfg, random_seed=1)
        ev = [p for p in d["pages"] if _half(p["site"]) == half]
        scored += list(zip(C.predict_proba(model, [p["text"] for p in ev], cfg), ev))
        del model
    out = {}
    for name, keep in (("pages/en", lambda p: p["source"] == "labeled_html" and not p["zh"]),
                       ("pages/zh", lambda p: p["source"] == "labeled_html" and p["zh"]),
                       ("sources/en", lambda p: p["source"] != "labeled_html" and not p["zh"]),
                       ("sources/zh", lambda p: p["source"] != "labeled_html" and p["zh"])):
        sel = [(s, p["label"] == "math") for s, p in scored if keep(p) and p["label"] in ("math", "non-math")]
        out[name] = C.pr_metrics([s for s, _ in sel], [y for _, y in sel])
    out["_errors"] = sorted((round(s, 3), p["label"], p["url"]) for s, p in scored
                            if p["label"] in ("math", "non-math") and (s >= 0.5) != (p["label"] == "math"))
    return out


def _delimiters_apart(fn):
    """``fn`` run with the text preparation that kept ``\\(`` ``\\[`` ``$$`` apart (before)."""
    def run():
        from functools import partial

        from corpus_pipeline import classify as C

        keep = C.tokens
        C.tokens = partial(keep, unify_delimiters=False)
        try:
            return fn()
        finally:
            C.tokens = keep
    return run


def variants(d: dict) -> dict:
    from corpus_pipeline.config import ClassifierConfig

    base = ClassifierConfig()
    return {
        "default": lambda: measure(d, base),
        "delimiters apart (before)": _delimiters_apart(lambda: measure(d, base)),
        "chunk 56": lambda: measure(d, replace(base, train_chunk_words=56)),
        "chunk 48": lambda: measure(d, replace(base, train_chunk_words=48)),
        "chunk 40": lambda: measure(d, replace(base, train_chunk_words=40)),
        "whole documents": lambda: measure(d, replace(base, train_chunk_words=0)),
        "+ MATH train": lambda: measure(d, base, d["math_train"]),
    }


def main() -> None:
    import time

    t0 = time.time()
    d = load(data_dir())
    print(f"{len(d['pages'])} development-crawl pages extracted in {time.time() - t0:.0f} s; "
          f"{len(d['seed'])} seed documents")
    wanted = [v.strip() for v in os.environ.get("BENCH_QUALITY_VARIANTS", "").split(",") if v.strip()]
    f = lambda x: "n/a" if x is None else f"{x:.3f}"    # noqa: E731
    print("\n| variant | eval set | maths | non-maths | precision | recall | avg. precision |\n"
          "|---|---|---:|---:|---:|---:|---:|")
    for name, run in variants(d).items():
        if wanted and name not in wanted:
            continue
        res = run()
        for k, m in res.items():
            if k.startswith("_"):
                continue
            print(f"| {name} | {k} | {m['n_positive']} | {m['n_negative']} | {f(m['precision'])} | "
                  f"{f(m['recall'])} | {f(m['average_precision'])} |")
        if name == "default":
            print("errors of the default:", res["_errors"])


if __name__ == "__main__":
    main()
