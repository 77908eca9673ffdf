"""Rebuild seeds/starter_seed.jsonl.gz and seeds/background/<lang>.jsonl.gz from the test data collection.

    python seeds/build_seed.py DATA_DIR [--out seeds]

Starter seed: the English and Chinese maths documents of the sources in :data:`SOURCES`
(``text/seed_sources/math_docs.jsonl`` and ``text/web_sources/math_web_en.jsonl.gz``), except
the parts held out for the development crawl (``devtools/devcrawl.py``,
``SEED_HOLDOUT``); markup rendered to plain text with the TeX maths kept
(``corpus_pipeline.seeds.render_markup``), each cut to at most MAX_CHARS at a paragraph
boundary, documents under MIN_CHARS dropped.  Background sets (negatives of a language the
crawl has too few pages of, ``classifier.background_negatives``): non-maths web text per
language (:data:`BACKGROUND`), rendered and cut the same way.  One JSON object a line with the
source's URL, title, language, repository, path, commit and licence beside the text.
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
from devtools.devcrawl import held_out_of_seed  # noqa: E402
from corpus_pipeline.seeds import render_markup  # noqa: E402

MAX_CHARS = 12_000
MIN_CHARS = 300
KEEP_LANGS = {"en", "zh"}
# the maths docs of the first seeds (by repository)
BASE_SOURCES = {"stacks/stacks-project", "openstax/osbooks-calculus-bundle", "OI-wiki/OI-wiki",
                "datawhalechina/pumpkin-book"}
# web-register English maths chosen by measurement (README, classifier quality): Napkin's chapters
# are maths explained in conversational prose, as forums and blogs write it
WEB_SOURCES = {"vEnhance/napkin"}
SOURCES = BASE_SOURCES | WEB_SOURCES
# background negatives per language: (file under text/web_sources, repository, every n-th record)
BACKGROUND = {"zh": ("nonmath_web_zh.jsonl.gz", "pingcap/docs-cn", 4),
              "en": ("nonmath_hard_en.jsonl.gz", "nodejs/nodejs.org", 4)}
# the records of a background source that are in the development crawl (it takes every second
# one of these sites, from the first) are never background: every 4th from the second on
BACKGROUND_OFFSET = 1


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    at = head.rfind("\n\n")
    return head[:at] if at > limit // 2 else head


def _records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    op = gzip.open if path.name.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def _repo(r: dict) -> str:
    return r.get("source_repo") or r.get("source") or r["domain"]


def _out(r: dict, text: str) -> dict:
    return {"id": r.get("id") or r["url"], "url": r["url"], "title": r.get("title") or "", "lang": r["lang"],
            "domain": r["domain"], "licence": r["licence"], "source_repo": _repo(r),
            "source_path": r.get("source_path") or r.get("path") or "", "commit": r.get("commit") or "",
            "text": text}


def build(docs: Path, web: Path, sources: set = SOURCES) -> list[dict]:
    """The starter seed's records from the two source files."""
    kept = []
    for r in _records(docs) + _records(web):
        if _repo(r) not in sources or r.get("lang") not in KEEP_LANGS or r.get("label", "math") != "math":
            continue
        if held_out_of_seed(r["domain"], r.get("path") or ""):      # kept for the development crawl
            continue
        text = cut(render_markup(r["text"], r["format"]), MAX_CHARS)
        if len(text) < MIN_CHARS:
            continue
        kept.append(_out(r, text))
    kept.sort(key=lambda r: r["id"])
    return kept


def build_background(web_dir: Path, lang: str) -> list[dict]:
    name, repo, every = BACKGROUND[lang]
    rows = sorted((r for r in _records(web_dir / name) if _repo(r) == repo), key=lambda r: r["url"])
    out = []
    for k, r in enumerate(rows):
        if k % every != BACKGROUND_OFFSET:
            continue
        text = cut(render_markup(r["text"], r["format"]), MAX_CHARS)
        if len(text) >= MIN_CHARS:
            out.append(_out(r, text))
    return out


def write(records: list[dict], path: Path) -> int:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        for r in records:
            gz.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())
    return len(buf.getvalue())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", help="the test data collection (text/seed_sources, text/web_sources)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    a = ap.parse_args(argv)
    data, out = Path(a.data), Path(a.out)
    kept = build(data / "text" / "seed_sources" / "math_docs.jsonl",
                 data / "text" / "web_sources" / "math_web_en.jsonl.gz")
    n = write(kept, out / "starter_seed.jsonl.gz")
    by: dict = {}
    for r in kept:
        by[(r["source_repo"], r["lang"])] = by.get((r["source_repo"], r["lang"]), 0) + 1
    print(f"{len(kept)} documents, {n} bytes -> {out / 'starter_seed.jsonl.gz'}")
    for k, v in sorted(by.items()):
        print(f"  {k[0]} ({k[1]}): {v}")
    for lang in sorted(BACKGROUND):
        bg = build_background(data / "text" / "web_sources", lang)
        n = write(bg, out / "background" / f"{lang}.jsonl.gz")
        print(f"background {lang}: {len(bg)} documents, {n} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
