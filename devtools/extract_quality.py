"""Extraction quality against real ground truth (pure; used by tests and ``python -m bench quality``).

Three real page sets with their published ground truth, found under a data
folder (``CORPUS_PIPELINE_DATA``):

- ``html/llm_webkit_bench``: human-checked main text with formulas as TeX
  (``pages/*.groundtruth.txt``);
- ``html/article_extraction_benchmark``: ``ground-truth.json`` ``articleBody``;
- ``html/trafilatura``: ``evaldata.json`` snippets a page's text must
  (``with``) and must not (``without``) contain.

Metrics: bag-of-tokens F1 (lower-cased ``\\w+`` words, CJK characters one token
each) averaged over pages; maths kept = at least half of the distinct TeX
commands of the ground truth appear in the text (pages whose ground truth has
two or more); snippets: accuracy over all with/without snippets.
"""
from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path

TEX_CMD = re.compile(r"\\[A-Za-z]+")
KEEP_SHARE = 0.5
_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]|[^\W\u3400-\u4dbf\u4e00-\u9fff]+")


def tokens(text: str) -> list:
    return _TOKEN.findall((text or "").lower())


def token_f1(pred: str, truth: str) -> float:
    p, t = Counter(tokens(pred)), Counter(tokens(truth))
    if not p and not t:
        return 1.0
    common = sum((p & t).values())
    if common == 0:
        return 0.0
    prec, rec = common / sum(p.values()), common / sum(t.values())
    return 2 * prec * rec / (prec + rec)


def tex_commands(text: str) -> set:
    return set(TEX_CMD.findall(text or ""))


def math_share(truth_cmds: set, text: str) -> float:
    return len(truth_cmds & tex_commands(text)) / len(truth_cmds)


def read_html(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _index(folder: Path) -> list:
    return [json.loads(x) for x in (folder / "index.jsonl").read_text().splitlines() if x.strip()]


def webkit_pages(data: Path) -> list:
    """[(name, url, html, truth_text)] of llm_webkit_bench pages with ground truth."""
    d = Path(data) / "html" / "llm_webkit_bench"
    out = []
    for rec in _index(d):
        if not rec.get("groundtruth_text") or rec.get("label") in ("ambiguous", "exclude"):
            continue
        out.append((rec["file"], rec["url"], read_html(d / rec["file"]),
                    (d / rec["groundtruth_text"]).read_text(errors="replace")))
    return out


def article_pages(data: Path) -> list:
    """[(name, url, html, truth_text)] of article_extraction_benchmark."""
    d = Path(data) / "html" / "article_extraction_benchmark"
    truth = json.loads((d / "ground-truth.json").read_text())
    out = []
    for rec in _index(d):
        key = Path(rec["file"]).name.split(".")[0]
        if key in truth:
            out.append((rec["file"], rec["url"], read_html(d / rec["file"]), truth[key].get("articleBody") or ""))
    return out


def snippet_pages(data: Path) -> list:
    """[(name, url, html, with, without)] of trafilatura's evaldata.json."""
    d = Path(data) / "html" / "trafilatura"
    ev = json.loads((d / "evaldata.json").read_text())
    by_url = {rec["url"]: rec for rec in _index(d)}
    out = []
    for url, item in ev.items():
        rec = by_url.get(url)
        if rec is None or not (d / rec["file"]).is_file():
            continue
        out.append((rec["file"], url, read_html(d / rec["file"]), item.get("with") or [], item.get("without") or []))
    return out


def snippet_score(text: str, with_: list, without: list) -> tuple[int, int]:
    """(snippets right, snippets total) for one page."""
    text = text or ""
    right = sum(1 for s in with_ if s in text) + sum(1 for s in without if s not in text)
    return right, len(with_) + len(without)


def evaluate(extract, data: Path) -> dict:
    """Quality of ``extract(html, url) -> text`` on the three sets (see module doc)."""
    wk = webkit_pages(data)
    wk_f1 = [token_f1(extract(h, u), t) for _, u, h, t in wk]
    maths = []
    for name, u, h, t in wk:
        cmds = tex_commands(t)
        if len(cmds) >= 2:
            maths.append((name, math_share(cmds, extract(h, u))))
    art = article_pages(data)
    art_f1 = [token_f1(extract(h, u), t) for _, u, h, t in art]
    right = total = 0
    for _, u, h, w, wo in snippet_pages(data):
        r, n = snippet_score(extract(h, u), w, wo)
        right, total = right + r, total + n
    return {
        "webkit_f1": sum(wk_f1) / len(wk_f1), "webkit_pages": len(wk_f1),
        "article_f1": sum(art_f1) / len(art_f1), "article_pages": len(art_f1),
        "maths_kept": sum(s >= KEEP_SHARE for _, s in maths), "maths_pages": len(maths),
        "maths_per_page": maths,
        "snippets_right": right, "snippets_total": total, "snippets_acc": right / max(1, total),
    }
