"""Canaries: how much of a planted benchmark item the decontamination rules catch (pure: no Spark).

A side computation on the user's own corpus that never touches it: a seeded random sample of corpus
pages is copied; each copy gets one benchmark item planted as its own lines, of one *kind*:

* ``problem``: a whole question of ``decontam.min_span`` tokens or more (not Chinese);
* ``solution``: an item's solution (or other non-question text: a worked answer);
* ``short``: a whole question under ``min_span`` tokens that the rules look up whole (the short
  questions the index leaves out as generic are counted in its ``short_by_benchmark`` instead);
* ``chinese``: a question written mostly in CJK characters;

each as it is and TeX-varied (:func:`tex_varied`: ``\\dfrac``, ``\\left( .. \\right)``, spacing commands,
``\\displaystyle``), the solution also hard-wrapped.  The copies run through the same rules
(:func:`corpus_pipeline.decontam.decontaminate_text`).  A copy is *caught* when its page is removed or
at least half of the planted item's tokens are gone.  Reported per kind: n, the caught share with its
95% Wilson interval, and apart from it what the rules took of the copy's own text (lines removed by the
n-gram rules; pages removed by the short rule counted separately).

It measures the rules against the item kinds on real page text, not recall against leaks nobody
knows of: an item rewritten in other words, translated or solved differently is not planted here.
"""
from __future__ import annotations

import math
import random
import re
import textwrap
from dataclasses import dataclass, replace
from typing import Iterable, Optional

from . import decontam
from .config import DecontamConfig

KINDS = ("problem", "problem_tex", "solution", "solution_tex", "solution_wrapped", "short", "short_tex",
         "chinese", "chinese_tex")
MEASURES = ("the decontamination rules against benchmark items planted in copies of corpus pages (caught "
            "share per item kind); not recall against leaks nobody knows of")
CAUGHT_SHARE = 0.5          # a copy is caught when at least this share of the planted tokens is gone
_CJK = re.compile(f"[{decontam._CJK}]")


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a share k/n ((0, 1) when n = 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


_FRAC = re.compile(r"\\frac(?![a-zA-Z])")
_CDOT = re.compile(r"\\cdot(?![a-zA-Z])")
_OPEN = re.compile(r"(?<![\\a-zA-Z])\(")
_CLOSE = re.compile(r"(?<![\\])\)")
_MATH_OPEN = re.compile(r"(\$\$|\\\[|\\\(|(?<![\\$])\$)")


def tex_varied(text: str) -> str:
    """``text`` written with other TeX for the same formula: ``\\frac`` as ``\\dfrac``, parentheses sized
    with ``\\left( .. \\right)``, a thin space around ``=`` and after ``\\cdot``, ``\\displaystyle`` at the
    start of each formula, ``\\quad`` before a display's line break."""
    out = _FRAC.sub(r"\\dfrac", text)
    if out.count("(") == out.count(")"):
        out = _CLOSE.sub(r"\\right)", _OPEN.sub(r"\\left(", out))
    out = _CDOT.sub(r"\\cdot\\;", out.replace("=", r"\,=\,")).replace("\\\\", r"\quad\\")
    return _MATH_OPEN.sub(lambda m: m.group(1) + r"\displaystyle ", out)


def hard_wrapped(text: str, width: int = 40) -> str:
    """``text`` with every line broken at ``width`` characters (at spaces), as a mail or a forum wraps it."""
    return "\n".join(textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False) if line.strip()
                     else line for line in text.split("\n"))


def _cjk_share(text: str) -> float:
    toks = decontam.tokens(text)
    return sum(1 for t in toks if _CJK.match(t)) / len(toks) if toks else 0.0


def _solutions(it) -> list:
    return [t for t in it.texts if t and t != it.question and t != it.options and t.strip() not in it.options]


_DEFAULTS = DecontamConfig()


def stands_alone(text: str, index) -> bool:
    """Can ``text`` be told from generic maths wherever it is pasted: at least the default
    ``decontam.min_specific`` of its tokens in a specific 4-gram (:func:`corpus_pipeline.decontam.specificity`),
    or the default ``decontam.long_span`` tokens long and not predictable?  A text that is not
    (``According to the problem, we have $2k - 1 = 1$.  Solving for $k$, we get $k = 1$.``: stock words,
    single digits and letters) is generic: no rule that keeps generic runs on clean pages catches it, like
    a generic short question.  The defaults, not the settings measured: a rule set stricter than them
    (or broken) shows as a lower caught share, not as fewer items planted."""
    tt = decontam.tokens(text)
    th = decontam.token_hashes(tt)
    if decontam.specificity(tt, th, index.generic) >= _DEFAULTS.min_specific:
        return True
    return len(tt) >= _DEFAULTS.long_span and decontam.specificity(tt, th, None, varied=True) >= _DEFAULTS.long_span


def candidates(items: list, index, cfg, generic: Optional[dict] = None) -> dict:
    """{base kind: [(item number, text)]} of the items that fit each kind (module docstring).  A solution
    that is generic on its own (:func:`stands_alone`) is left out of its kind and counted in ``generic``
    ({"solution": items}), as the index leaves out generic short questions.  (A generic whole problem is
    still planted: the question rule catches it by its coverage.)"""
    min_span = max(int(cfg.ngram), int(getattr(cfg, "min_span", 0) or 0))
    short_items = {int(k) for _h, si in index.short.values() for k in si.tolist()}
    out: dict = {"problem": [], "solution": [], "short": [], "chinese": []}
    left = generic if generic is not None else {}
    left.setdefault("solution", 0)

    for k, it in enumerate(items):
        q = decontam._no_figures(it.question or "").strip()
        if not q:
            continue
        nq = len(decontam.tokens(q))
        if _cjk_share(q) >= 0.5:
            if nq >= min_span:
                out["chinese"].append((k, q))
            continue
        if nq >= min_span:
            out["problem"].append((k, q))
        elif k in short_items:
            out["short"].append((k, q))
        sols = [decontam._no_figures(s).strip() for s in _solutions(it)]
        sols = [s for s in sols if len(decontam.tokens(s)) >= min_span and _cjk_share(s) < 0.5]
        if sols:
            if stands_alone(sols[0], index):
                out["solution"].append((k, sols[0]))
            else:
                left["solution"] += 1
    return out


def planted_text(kind: str, text: str) -> str:
    if kind.endswith("_tex"):
        return tex_varied(text)
    if kind.endswith("_wrapped"):
        return hard_wrapped(text)
    return text


def plant(page: str, item_text: str, rng: random.Random) -> tuple[str, list]:
    """``page`` with ``item_text`` inserted as its own lines at a random line break; (text, planted line numbers)."""
    lines = page.split("\n")
    at = rng.randint(0, len(lines))
    new = item_text.split("\n")
    return "\n".join(lines[:at] + new + lines[at:]), list(range(at, at + len(new)))


@dataclass
class CanaryRow:
    kind: str
    page_id: str
    benchmark: str
    item_id: str
    caught: bool
    page_removed: bool
    rule: str                      # the rule that caught it (short_exact_match, ngram_overlap, ...) or ""
    planted_share_removed: float   # share of the planted tokens gone
    own_lines_removed: int         # lines of the copy's own text removed by the n-gram rules


def check(page_id: str, page: str, kind: str, item, item_text: str, index, cfg, rng: random.Random) -> CanaryRow:
    """Plant ``item_text`` in a copy of ``page``, run the rules, and say what they caught."""
    text, planted = plant(page, planted_text(kind, item_text), rng)
    r = decontam.decontaminate_text(text, index, dict_cfg(cfg))
    lines = text.split("\n")
    planted_set = set(planted)
    ptoks = sum(len(decontam.tokens(lines[i])) for i in planted)
    if r.removed:
        share, own = 1.0, 0
    else:
        gone = set(r.removed_lines)
        share = sum(len(decontam.tokens(lines[i])) for i in planted if i in gone) / ptoks if ptoks else 0.0
        own = len(gone - planted_set)
    mine = [row for row in r.rows if (row[0], row[1]) == (item.benchmark, item.item_id)]
    rule = mine[0][3] if mine else (r.rows[0][3] if r.rows and r.removed else "")
    return CanaryRow(kind, page_id, item.benchmark, item.item_id, bool(r.removed or share >= CAUGHT_SHARE),
                     bool(r.removed), rule, round(share, 4), own)


def dict_cfg(cfg):
    """The decontamination settings as the rules read them, flag mode off (canaries measure removal)."""
    if getattr(cfg, "mode", "remove") == "flag":
        return replace(cfg, mode="remove")
    return cfg


def run(pages: Iterable[tuple], benchmarks, index, cfg, n: int, seed: int = 0,
        generic: Optional[dict] = None) -> list:
    """Canary rows: ``n`` planted copies per kind (fewer when the benchmarks hold fewer items of a kind
    or the pages run out).  ``pages``: (page_id, text) of clean corpus pages (the sample to copy);
    ``generic``: filled with the items left out of each kind as generic on their own (:func:`candidates`)."""
    if n <= 0:
        return []
    pool = [(pid, t) for pid, t in pages if t and t.strip()]
    if not pool:
        return []
    rng = random.Random(seed)
    rng.shuffle(pool)
    cands = candidates(benchmarks.items, index, cfg, generic)
    rows, used = [], 0
    for kind in KINDS:
        base = kind.split("_")[0]
        items = cands.get(base) or []
        if not items:
            continue
        for _ in range(n):             # each copy from another page while the sample lasts
            k, text = items[rng.randrange(len(items))]
            pid, page = pool[used % len(pool)]
            used += 1
            rows.append(check(pid, page, kind, benchmarks.items[k], text, index, cfg, rng))
    return rows


def summary(rows: list) -> dict:
    """Per kind: n, caught, share, its 95% interval, pages removed by the short rule, the copies' own
    lines removed by the n-gram rules (and on how many copies)."""
    out: dict = {}
    for kind in KINDS:
        rs = [r for r in rows if r.kind == kind]
        if not rs:
            continue
        k = sum(r.caught for r in rs)
        lo, hi = wilson(k, len(rs))
        out[kind] = {"n": len(rs), "caught": k, "share": round(k / len(rs), 4), "low95": round(lo, 4),
                     "high95": round(hi, 4),
                     "pages_removed_short_rule": sum(1 for r in rs if r.page_removed and r.rule == decontam.R_SHORT),
                     "pages_removed_other": sum(1 for r in rs if r.page_removed and r.rule != decontam.R_SHORT),
                     "own_lines_removed": sum(r.own_lines_removed for r in rs),
                     "copies_losing_own_lines": sum(1 for r in rs if r.own_lines_removed)}
    return out
