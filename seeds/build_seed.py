"""Rebuild seeds/starter_seed.jsonl.gz from a copy of math_docs.jsonl.

    python seeds/build_seed.py PATH/TO/math_docs.jsonl [--out seeds/starter_seed.jsonl.gz]

Keeps the English and Chinese documents whose licence allows redistribution
(sources with no stated content licence are left out), renders their markup
(LaTeX, Markdown, CNXML/MathML) to plain text with the TeX maths kept, cuts
each to at most MAX_CHARS at a paragraph boundary, and writes one JSON object
a line with the source's URL, title, language and licence beside the text.
Deterministic: same input, same bytes.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus_pipeline.devcrawl import held_out_of_seed  # noqa: E402
from corpus_pipeline.seeds import render_markup  # noqa: E402

MAX_CHARS = 12_000
MIN_CHARS = 300
KEEP_DOMAINS = {"stacks.math.columbia.edu", "openstax.org", "oi-wiki.org", "datawhalechina.github.io"}
KEEP_LANGS = {"en", "zh"}


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    at = head.rfind("\n\n")
    return head[:at] if at > limit // 2 else head


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "starter_seed.jsonl.gz"))
    a = ap.parse_args(argv)
    kept = []
    for line in open(a.source, encoding="utf-8"):
        r = json.loads(line)
        if r["domain"] not in KEEP_DOMAINS or r["lang"] not in KEEP_LANGS or r.get("label", "math") != "math":
            continue
        if held_out_of_seed(r["domain"], r["path"]):      # kept for the development crawl
            continue
        text = cut(render_markup(r["text"], r["format"]), MAX_CHARS)
        if len(text) < MIN_CHARS:
            continue
        kept.append({"id": r["id"], "url": r["url"], "title": r["title"], "lang": r["lang"],
                     "domain": r["domain"], "licence": r["licence"], "source_repo": r["source_repo"],
                     "source_path": r["source_path"], "commit": r["commit"], "text": text})
    kept.sort(key=lambda r: r["id"])
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        for r in kept:
            gz.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
    Path(a.out).write_bytes(buf.getvalue())
    by = {}
    for r in kept:
        by[(r["domain"], r["lang"])] = by.get((r["domain"], r["lang"]), 0) + 1
    print(f"{len(kept)} documents, {len(buf.getvalue())} bytes -> {a.out}")
    for k, v in sorted(by.items()):
        print(f"  {k[0]} ({k[1]}): {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
