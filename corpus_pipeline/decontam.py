"""Decontamination against maths benchmarks (pure: no Spark).

Three parts:

* **Loaders** (:func:`load_benchmarks`): a directory of benchmark test sets in
  the layouts users meet (DeepSeek-Math evaluation copies, the MATH test split
  as ``jsonl.gz``, AGIEval ``data/v1``, the math-evaluation-harness files in
  ``extra/``).  Each known file has a format (:mod:`corpus_pipeline.benchmark_formats`,
  a registry: its field mapping, its default use, its download); unknown
  files are listed and skipped; a malformed line of a known file is an
  :class:`~corpus_pipeline.errors.InputFileError` naming file and line.
* **Normalization and grams** (:func:`tokens`): lower case; every character
  that is not a letter, digit or CJK character separates tokens (``x+y=2`` ->
  ``x y 2``); each CJK character is one token.  Tokens are additionally NFKC
  folded one by one (full-width ``１`` -> ``1``), which can only add matches.
  Tokens hash to stable 64-bit values (BLAKE2b), n-grams to a polynomial of
  those, finalised with a 64-bit mixer (:func:`gram_hashes`).  A token is a
  **word** (:func:`is_word`) when it is a CJK character or a run of two or more
  letters that is not notation (a TeX command, written with its backslash, or a
  formula name such as ``frac``, ``sqrt``, ``cdot``, ``sin``); numbers, single
  letters and notation carry no information about *which* text a page copied.
* **The index and the rules** (:class:`GramIndex`, :func:`decontaminate_text`):
  a sorted ``uint64`` array of the hashed ``cfg.ngram``-grams of every
  benchmark text (question/problem, options, solution) with the item each came
  from, plus, per length n in ``[short_min_grams, ngram)``, the hashes of the
  benchmark questions that are exactly n tokens long.  What counts as evidence:
  - a gram found in more than ``cfg.max_items`` distinct benchmark texts is
    *common* (a counting sequence, a standard phrase) and never matches; copies of one item (items
    sharing ``cfg.copy_share`` of the smaller one's grams: :func:`copy_groups`) count once, here and
    for the generic 4-gram shapes;
  - on a page, overlapping matching grams form a matched *span*; a span is
    evidence only when it is *specific* (:func:`specificity`): at least ``cfg.min_specific`` of
    its tokens lie in a specific 4-gram, formula tokens counted like words; ``1 2 3 4 5 6 7 8 9
    10``, ``begin pmatrix a b c d end pmatrix`` or a stock phrase share tokens with a benchmark
    but no text of one item (a span half as specific counts only by the question's coverage); a span
    of ``cfg.long_span`` tokens or more is evidence when that many of its tokens lie in a 4-gram that is
    not predictable, however generic its notation (a long run of one item's formula);
  - a span that matches only an item's *question* (not its solution or options) is evidence only
    when it is the benchmark's text rather than its stock phrasing: the page around it holds at
    least ``cfg.min_coverage`` of the question (:func:`coverage`; numbers and single letters as
    wildcards, so a restatement with other numbers counts; figure code compared as written), or
    the span holds ``cfg.long_words`` words, or under ``cfg.max_stock`` of its words are stock
    phrasing (word 4-grams found in 3 or more benchmark questions, :func:`stock_share`).  A
    template sentence ("find the number of ordered pairs (a, b) of integers such that") on a page
    that asks another question is none of these;
  - a whole question under ``min_span`` tokens is looked up whole when at least
    ``cfg.short_specific`` of its tokens lie in specific 4-grams and its shape is in no other
    question (the others are generic: ``stats["short_by_benchmark"]`` counts both).

  Both sides are TeX-normalised first (:func:`normalize_tex`: ``\\dfrac`` is ``\\frac``, sizing
  and spacing commands dropped, ``\\text{..}`` unwrapped), a command's backslash marking notation.

  On a page (a segment is a line) an evidence span removes every line from the
  first to the last token it covers; a page containing an entire short question
  is removed; a page whose cleaned text is shorter than ``cfg.min_chars_after``
  is removed.  With ``cfg.mode = "flag"`` nothing is removed: the same rows are
  written with the actions ``segment_flagged`` / ``page_flagged``.  Every row
  carries its evidence (the matched page tokens) and the text it removed.
"""
from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

from .benchmark_formats import BenchmarkItem, identify, read_benchmark_file  # noqa: F401
from .benchmark_formats import get as get_format
from .errors import InputFileError
from .text import CJK_RANGES, TokenHashCache, blake64

# ---------------------------------------------------------------- actions and reasons
SEGMENT_REMOVED = "segment_removed"
PAGE_REMOVED = "page_removed"
SEGMENT_FLAGGED = "segment_flagged"     # decontam.mode = "flag": what would have been removed
PAGE_FLAGGED = "page_flagged"
FLAGGED = {SEGMENT_REMOVED: SEGMENT_FLAGGED, PAGE_REMOVED: PAGE_FLAGGED}
EVIDENCE_CHARS = 600                      # matched tokens kept per row
REMOVED_CHARS = 4000                      # removed text kept per row
R_NGRAM = "ngram_overlap"                 # lines touched by a benchmark n-gram
R_SHORT = "short_exact_match"             # page contains a whole short benchmark question
R_TOO_SHORT = "too_short_after_cleaning"  # what remained after removing lines was too short

# ---------------------------------------------------------------- normalization
# CJK ideographs, kana and hangul (text.CJK_RANGES): one gram per character.
_CJK = CJK_RANGES
# A token: one CJK character, or a run of letters/digits (\w minus "_" minus CJK).
_TOKEN_RE = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+")
# pages: the same, with line breaks as markers and a TeX command's backslash kept (notation, not a word)
_TOKEN_NL_RE = re.compile(f"\n|[{_CJK}]|\\\\[a-z]+|[^\\W_{_CJK}]+")
_TOKEN_BS_RE = re.compile(f"[{_CJK}]|\\\\[a-z]+|[^\\W_{_CJK}]+")
_CJK_CHAR = re.compile(f"[{_CJK}]")
# formula names written without a backslash (ASCIIMath, stripped TeX, plain text): notation, not words
NOTATION = frozenset("""
frac dfrac tfrac cfrac sqrt cdot cdots ldots vdots ddots dots mathrm mathbf mathbb mathcal mathit mathsf
mathtt mathfrak textbf textit textrm texttt operatorname displaystyle dbinom tbinom binom leq geq neq infty
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi omicron rho
varrho sigma tau upsilon phi varphi chi psi omega pmod bmod lfloor rfloor lceil rceil overline underline
overrightarrow widehat hline qquad quad ne le ge approx equiv nabla partial forall exists rightarrow
leftarrow leftrightarrow implies iff boxed arcsin arccos arctan sinh cosh tanh sin cos tan cot sec csc ln
log lim gcd lcm det exp emph hspace vspace
""".split())

_MASK = (1 << 64) - 1
_P = np.uint64(0x9E3779B97F4A7C15)   # odd multiplier of the polynomial gram hash
_M1 = np.uint64(0xBF58476D1CE4E5B9)  # splitmix64 finaliser constants
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)

_is_nfkc = unicodedata.is_normalized
_TOKEN_HASH = TokenHashCache(300_000)   # about 50 MB per Python worker
_TOKEN_HASH_MAX = _TOKEN_HASH.max_size


def _fold(tok: str) -> tuple | list:
    """NFKC-fold a non-ASCII token (may split it, e.g. '½' -> '1', '2')."""
    if _is_nfkc("NFKC", tok):
        return (tok,)
    return _TOKEN_RE.findall(unicodedata.normalize("NFKC", tok).lower())


# TeX variants of one formula, mapped to one form on both sides (benchmark and page) before
# tokenising: display/size/spacing commands carry nothing, \dfrac is \frac, \text{..} is its words.
# Newlines are never touched (a page's lines are counted on its original text).
_TEX_SAME = {"dfrac": "\\frac", "tfrac": "\\frac", "cfrac": "\\frac", "dbinom": "\\binom",
             "tbinom": "\\binom", "leq": "\\le", "geq": "\\ge", "neq": "\\ne", "leqslant": "\\le",
             "geqslant": "\\ge", "ldots": "\\dots", "cdots": "\\dots", "dotsc": "\\dots",
             "dotsb": "\\dots", "lbrace": "{", "rbrace": "}", "lvert": "|", "rvert": "|", "vert": "|",
             "lVert": "|", "rVert": "|", "Vert": "|", "colon": ":"}
_TEX_DROP = ("left right bigl bigr Bigl Bigr biggl biggr Biggl Biggr big Big bigg Bigg bigm Bigm middle "
             "displaystyle textstyle scriptstyle quad qquad enspace thinspace medspace thickspace negthinspace "
             "text textrm textnormal textup mathrm mbox hbox textit mathit textsf mathsf nolimits limits "
             "phantom hphantom vphantom mathstrut strut rm it bf").split()
_TEX_RE = re.compile(r"\\[dtc]?frac\s*(\d)\s*(\d)|\\(?:([A-Za-z]+)\*?|[,;:!> ])")


def _tex_sub(m: "re.Match") -> str:
    if m.group(1):
        return f" \\frac {m.group(1)} {m.group(2)} "     # \frac12 is \frac{1}{2}
    name = m.group(3)
    if name is None:
        return " "                                   # \, \; \: \! \> "\ ": spacing
    if name in _TEX_SAME:
        return " " + _TEX_SAME[name] + " "
    if name in _TEX_DROP_SET:
        return " "
    return m.group(0)


_TEX_DROP_SET = frozenset(_TEX_DROP)


def normalize_tex(text: str) -> str:
    """``text`` with TeX variants of one formula mapped to one form (module docstring): ``\\dfrac``,
    ``\\tfrac`` -> ``\\frac``; ``\\left``/``\\right``, spacing (``\\,`` ``\\;`` ``\\quad``...), ``\\displaystyle``
    dropped; ``\\text{..}``/``\\mathrm{..}`` unwrapped.  Lines are kept as they are."""
    if not text or "\\" not in text:
        return text
    return _TEX_RE.sub(_tex_sub, text)


def tokens(text: str) -> list[str]:
    """The normalized grams of ``text`` (TeX variants mapped to one form, a command without its backslash)."""
    if not text or "\\" not in text:
        return _tokens(_TOKEN_RE, text)
    return [t[1:] if t[0] == "\\" else t for t in _tokens(_TOKEN_BS_RE, text)]


def raw_tokens(text: str) -> list[str]:
    """:func:`tokens` with each TeX command's backslash kept (for :func:`is_word`): the benchmark side and
    the page side tell notation from words the same way."""
    return _tokens(_TOKEN_BS_RE, text)


def _tokens(rx, text: str) -> list[str]:
    low = normalize_tex(text or "").lower()
    found = rx.findall(low)
    if low.isascii() or _is_nfkc("NFKC", low):
        return found
    return [x for t in found for x in ((t,) if t.isascii() else _fold(t))]


def is_word(tok: str) -> bool:
    """A token that carries text: a CJK character, or two or more letters that are not notation
    (a token written with a TeX backslash, or a name in :data:`NOTATION`)."""
    if not tok or tok[0] == "\\":
        return False
    if len(tok) == 1:
        return bool(_CJK_CHAR.match(tok))
    return tok.isalpha() and tok not in NOTATION


def token_hashes(toks: list[str]) -> np.ndarray:
    """Stable 64-bit hashes of tokens (cached per process)."""
    cache = _TOKEN_HASH
    missing = [t for t in set(toks) if t not in cache]
    if len(missing) + len(_TOKEN_HASH) > _TOKEN_HASH_MAX:
        _TOKEN_HASH.clear()
        missing = set(toks)
    for t in missing:
        _TOKEN_HASH[t] = blake64(t)
    return np.fromiter(map(_TOKEN_HASH.__getitem__, toks), dtype=np.uint64, count=len(toks))


def _mix(h: np.ndarray, n: int) -> np.ndarray:
    h = h ^ np.uint64((n * 0xD6E8FEB86659FD93) & _MASK)
    h = (h ^ (h >> _S30)) * _M1
    h = (h ^ (h >> _S27)) * _M2
    return h ^ (h >> _S31)


def gram_hashes(th: np.ndarray, sizes: Iterable[int]) -> dict[int, np.ndarray]:
    """{n: hashes of every n-gram (position order)} for the requested sizes."""
    sizes = sorted(set(sizes))
    out: dict[int, np.ndarray] = {}
    if not sizes or len(th) == 0:
        return {n: np.empty(0, dtype=np.uint64) for n in sizes}
    with np.errstate(over="ignore"):
        h = th.astype(np.uint64, copy=True)
        for n in range(1, sizes[-1] + 1):
            if n > 1:
                if len(h) <= 1:
                    h = np.empty(0, dtype=np.uint64)
                else:
                    h = h[:-1] * _P + th[n - 1:]
            if n in sizes:
                out[n] = _mix(h, n) if len(h) else np.empty(0, dtype=np.uint64)
    return out

# ---------------------------------------------------------------- benchmark files
# How a benchmark file is found, read and downloaded: corpus_pipeline/benchmark_formats.py (a registry)
_DOC_FILE = re.compile(r"(?i)^(license|licence|copying|readme|notice)|\.(md|txt|rst)$")

@dataclass
class BenchmarkFile:
    path: str                     # relative to the benchmarks directory
    benchmark: str
    format: str
    items: int = 0

    @property
    def folder(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def default(self) -> bool:
        """Used when cfg.benchmarks is empty (and selected by family/folder names)."""
        return get_format(self.format).is_default(self.benchmark)


@dataclass
class Benchmarks:
    items: list = field(default_factory=list)      # BenchmarkItem
    files: list = field(default_factory=list)      # BenchmarkFile, loaded
    skipped: list = field(default_factory=list)    # relative paths of files not known (listed, not loaded)
    unselected: list = field(default_factory=list)  # known files not used (non-maths AGIEval tasks, cfg.benchmarks)

    def names(self) -> list[str]:
        return sorted({f.benchmark for f in self.files})


def selected(benchmark: str, folder: str, wanted: list) -> bool:
    """Does a cfg.benchmarks / cfg.exclude_short entry list name this benchmark?

    An entry matches the benchmark name, its family ('agieval' for 'agieval/math')
    or the folder its file is in ('extra')."""
    family = benchmark.split("/", 1)[0]
    return any(w in (benchmark, family, folder) for w in wanted)


def use_file(bf: "BenchmarkFile", wanted: list) -> bool:
    """Is this known file used?  Default files unless cfg.benchmarks names others; a non-default
    file (a non-maths AGIEval task) only when named exactly."""
    if not wanted:
        return bf.default
    if bf.benchmark in wanted:
        return True
    return bf.default and selected(bf.benchmark, bf.folder, wanted)


def scan_dir(bench_dir: str | Path) -> tuple[list[BenchmarkFile], list[str]]:
    """Known benchmark files (sorted by path) and unknown files under ``bench_dir``."""
    root = Path(bench_dir)
    if not root.is_dir():
        raise InputFileError(root, "benchmarks directory not found (or not a directory)")
    known, unknown = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fn in sorted(filenames):
            if fn.startswith("."):
                continue
            rel = Path(dirpath, fn).relative_to(root).as_posix()
            hit = identify(rel)
            if hit is not None:
                known.append(BenchmarkFile(path=rel, benchmark=hit[0], format=hit[1]))
            elif not _DOC_FILE.search(fn):
                unknown.append(rel)
    known.sort(key=lambda f: f.path)
    return known, sorted(unknown)


def load_benchmarks(bench_dir: str | Path, cfg=None) -> Benchmarks:
    """Load every known benchmark in ``bench_dir`` (or those named in ``cfg.benchmarks``)."""
    wanted = list(getattr(cfg, "benchmarks", None) or [])
    known, unknown = scan_dir(bench_dir)
    out = Benchmarks(skipped=unknown)
    matched_wanted: set = set()
    for bf in known:
        if not use_file(bf, wanted):
            out.unselected.append(bf.path)
            continue
        matched_wanted.update(w for w in wanted if use_file(bf, [w]))
        items = read_benchmark_file(Path(bench_dir, bf.path), bf.benchmark, bf.format)
        bf.items = len(items)
        out.items.extend(items)
        out.files.append(bf)
    missing = [w for w in wanted if w not in matched_wanted]
    if missing:
        raise InputFileError(bench_dir, f"decontam.benchmarks names benchmarks not found here: {', '.join(missing)}"
                             f" (found: {', '.join(sorted({f.benchmark for f in known})) or 'none'})")
    if not out.files:
        raise InputFileError(bench_dir, "no known benchmark files found"
                             + (f" (unknown files: {', '.join(unknown[:10])})" if unknown else ""))
    return out


# ---------------------------------------------------------------- the index
@dataclass
class GramIndex:
    """Hashed n-grams of benchmark texts, small enough to broadcast (numpy arrays + item names)."""
    n: int
    hashes: np.ndarray                 # sorted uint64: one entry per (gram, benchmark)
    items: np.ndarray                  # int32 item number of each entry
    short: dict                        # {length: (sorted uint64 hashes, int32 items)} of whole short questions
    item_benchmark: np.ndarray         # int16 benchmark number per item
    item_ids: list                     # item id per item
    benchmarks: list                   # benchmark names
    min_short: int = 3
    bits: Optional[np.ndarray] = None  # uint8 bitset over the top `bits_log2` bits of `hashes`: a cheap pre-filter
    bits_log2: int = 0
    short_bits: Optional[np.ndarray] = None  # the same over every short-question hash
    short_bits_log2: int = 0
    stats: dict = field(default_factory=dict)  # what the information rules left out (common grams ...)
    questions: list = field(default_factory=list)  # question text per item (figure code kept): the coverage rule
    stock: Optional[np.ndarray] = None  # sorted hashes of the stock phrasing: word 4-grams of >= 3 questions
    generic: Optional[np.ndarray] = None  # sorted hashes of the generic 4-grams (>= generic_items questions)

    def nbytes(self) -> int:
        b = self.hashes.nbytes + self.items.nbytes + self.item_benchmark.nbytes
        b += sum(len(q) for q in self.questions)
        b += self.stock.nbytes if self.stock is not None else 0
        b += self.generic.nbytes if self.generic is not None else 0
        b += self.bits.nbytes if self.bits is not None else 0
        b += self.short_bits.nbytes if self.short_bits is not None else 0
        for h, it in self.short.values():
            b += h.nbytes + it.nbytes
        return b

    def item(self, k: int) -> tuple[str, str]:
        return self.benchmarks[int(self.item_benchmark[k])], self.item_ids[k]


def _dedup_sorted(h: np.ndarray, items: np.ndarray, bench: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort by (hash, benchmark, item) and keep the first item per (hash, benchmark)."""
    if len(h) == 0:
        return h.astype(np.uint64), items.astype(np.int32)
    order = np.lexsort((items, bench, h))
    h, items, bench = h[order], items[order], bench[order]
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (bench[1:] != bench[:-1])
    return h[keep], items[keep].astype(np.int32)


def _distinct_pairs(h: np.ndarray, q: np.ndarray) -> np.ndarray:
    """For gram hashes ``h`` with question keys ``q``: each gram hash once per distinct question."""
    if len(h) == 0:
        return h
    order = np.lexsort((q, h))
    h, q = h[order], q[order]
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (q[1:] != q[:-1])
    return h[keep]


COPY_PAIR_ITEMS = 64   # a gram in more items than this is stock text: it says nothing about which items are copies


def copy_groups(h: np.ndarray, items: np.ndarray, keys: np.ndarray, share: float) -> np.ndarray:
    """One key per item: the same for the copies of one benchmark text (union-find).

    ``h``/``items``: each item's distinct grams (one entry per gram and item); ``keys``: the starting
    key of each item (items with the same key are one text already: the same question).  Two items
    are copies when the grams they share are at least ``share`` of the smaller one's grams: the same
    question in two sets (MATH and miniF2F's copy with "Show that it is 64."), a subproblem whose
    question repeats the earlier subproblems (OCW/Minerva), an item twice in one set.  Template
    siblings with other numbers share less than that.  Returns the key of each item's group (its
    smallest item number); ``share <= 0``: ``keys`` unchanged."""
    n_items = len(keys)
    if share <= 0 or len(h) == 0 or n_items == 0:
        return keys
    # items with one key are one group from the start
    _, first = np.unique(keys, return_inverse=True)
    parent = np.empty(n_items, dtype=np.int64)
    lead: dict = {}
    for k, f in enumerate(first.tolist()):
        parent[k] = lead.setdefault(f, k)
    size = np.bincount(items, minlength=n_items).astype(np.int64)
    order = np.lexsort((items, h))
    hs, its = h[order], items[order].astype(np.int64)
    start = np.ones(len(hs), dtype=bool)
    start[1:] = hs[1:] != hs[:-1]
    gid = np.cumsum(start) - 1
    gsize = np.bincount(gid)
    small = (gsize[gid] >= 2) & (gsize[gid] <= COPY_PAIR_ITEMS)
    idx = np.nonzero(small)[0]
    pairs = []
    for d in range(1, COPY_PAIR_ITEMS):
        j = idx + d
        ok = j < len(hs)
        i2, j2 = idx[ok], j[ok]
        ok = gid[j2] == gid[i2]
        if not ok.any():
            break
        a, b = its[i2[ok]], its[j2[ok]]
        pairs.append(np.minimum(a, b) * n_items + np.maximum(a, b))
    if not pairs:
        return np.array([keys[int(parent[k])] for k in range(n_items)], dtype=keys.dtype)
    code, shared = np.unique(np.concatenate(pairs), return_counts=True)
    a, b = code // n_items, code % n_items
    ok = shared >= share * np.minimum(size[a], size[b])

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = int(parent[x])
        return x

    for x, y in zip(a[ok].tolist(), b[ok].tolist()):
        rx, ry = root(x), root(y)
        if rx != ry:
            parent[max(rx, ry)] = min(rx, ry)
    roots = np.array([root(k) for k in range(n_items)], dtype=np.int64)
    return keys[roots]


def _common(h: np.ndarray, q: np.ndarray, max_items: int) -> np.ndarray:
    """Sorted gram hashes found in more than ``max_items`` distinct questions (none when max_items < 1)."""
    if max_items < 1 or len(h) == 0:
        return np.empty(0, dtype=np.uint64)
    u, c = np.unique(_distinct_pairs(h, q), return_counts=True)
    return u[c > max_items]


_FIGURE_CODE = re.compile(r"\[asy\].*?\[/asy\]", re.S | re.I)


def _no_figures(text: str) -> str:
    """A benchmark text without its figure code (Asymptote ``[asy]...[/asy]``): drawing commands are
    not the item's text, and problem sites share them across problems."""
    return _FIGURE_CODE.sub(" ", text) if "[asy]" in text.lower() else text


def _item_texts(it: "BenchmarkItem", with_options: bool) -> list:
    texts = it.texts + ([it.question + "\n" + it.options] if with_options and it.options else [])
    return [_no_figures(t) for t in texts]


def _common_short(items: list, cand: dict, max_items: int, with_options: bool, chunk: int = 2000) -> dict:
    """{L: sorted shape hashes (:func:`shape_hashes`: any single letter for any other) of the candidate
    short questions of L tokens whose shape occurs inside the texts of more than ``max_items`` distinct
    questions} (a second pass over the items, ``chunk`` at a time:
    only the hits are kept)."""
    sizes = sorted(cand)
    sorted_cand = {L: np.unique(cand[L]) for L in sizes}
    hits_h: dict = {L: [] for L in sizes}
    hits_q: dict = {L: [] for L in sizes}
    for start in range(0, len(items), chunk):
        parts: dict = {L: [] for L in sizes}
        keys: dict = {L: [] for L in sizes}
        for it in items[start:start + chunk]:
            qkey = np.uint64(blake64(" ".join(tokens(it.question))))
            for t in _item_texts(it, with_options):
                tt = tokens(t)
                g = gram_hashes(shape_hashes(tt, token_hashes(tt)), sizes)
                for L in sizes:
                    if len(g[L]):
                        parts[L].append(g[L])
                        keys[L].append(np.full(len(g[L]), qkey, dtype=np.uint64))
        for L in sizes:
            if not parts[L]:
                continue
            h, q = np.concatenate(parts[L]), np.concatenate(keys[L])
            c = sorted_cand[L]
            pos = np.minimum(np.searchsorted(c, h), len(c) - 1)
            found = c[pos] == h
            if found.any():
                hits_h[L].append(h[found])
                hits_q[L].append(q[found])
    out = {}
    for L in sizes:
        if hits_h[L]:
            out[L] = _common(np.concatenate(hits_h[L]), np.concatenate(hits_q[L]), max_items)
    return out


STOCK_GRAM = 4      # stock phrasing: sequences of 4 words (numbers, letters, notation left out) ...
STOCK_ITEMS = 3     # ... found in the texts of at least 3 distinct benchmark questions


def _word_grams(toks: list, k: int = STOCK_GRAM) -> np.ndarray:
    words = [t for t in toks if is_word(t)]
    return gram_hashes(token_hashes(words), [k])[k] if len(words) >= k else np.empty(0, dtype=np.uint64)


def _stock_phrasing(items: list, with_options: bool) -> np.ndarray:
    """Sorted hashes of the word ``STOCK_GRAM``-grams found in the texts (question, options, solutions,
    figure code left out) of at least ``STOCK_ITEMS`` distinct questions: the benchmarks' own stock
    phrasing ("find the number of ordered pairs", "express your answer in terms of")."""
    hs, qs = [], []
    for it in items:
        parts = [_word_grams(tokens(t)) for t in _item_texts(it, with_options)]
        parts = [g for g in parts if len(g)]
        if parts:
            g = np.unique(np.concatenate(parts))
            hs.append(g)
            qs.append(np.full(len(g), blake64(" ".join(tokens(it.question))), dtype=np.uint64))
    if not hs:
        return np.empty(0, dtype=np.uint64)
    return _common(np.concatenate(hs), np.concatenate(qs), STOCK_ITEMS - 1)


def stock_share(toks: list, stock: Optional[np.ndarray]) -> float:
    """Share of the words of ``toks`` inside a stock phrase (1.0 when there are no words)."""
    words = [t for t in toks if is_word(t)]
    if not words:
        return 1.0
    if stock is None or len(stock) == 0 or len(words) < STOCK_GRAM:
        return 0.0
    g = gram_hashes(token_hashes(words), [STOCK_GRAM])[STOCK_GRAM]
    hit = np.zeros(len(words), dtype=bool)
    for i in np.nonzero(np.isin(g, stock))[0]:
        hit[i:i + STOCK_GRAM] = True
    return float(hit.mean())


SPEC_GRAM = 4       # specificity: 4-grams of tokens (words, numbers, letters and notation alike) ...
_ENV_NAMES = frozenset("""matrix pmatrix bmatrix vmatrix smallmatrix array align aligned alignat gather gathered
cases equation eqnarray split multline tabular center""".split())
_COLUMN_SPEC = re.compile(r"^[clrp]+$")


def informative(tok: str) -> bool:
    """A token that can tell one text from another: a CJK character, a word of three or more letters that
    is not notation (a TeX command, a formula or environment name, a column spec ``ccc``), a number of two
    or more digits, or letters and digits mixed (``2i``, ``x2``)."""
    if not tok or tok[0] == "\\":
        return False
    if len(tok) == 1:
        return bool(_CJK_CHAR.match(tok))
    if tok.isdigit():
        return True
    if tok.isalpha():
        return len(tok) >= 3 and tok not in NOTATION and tok not in _ENV_NAMES and not _COLUMN_SPEC.match(tok)
    return any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok)


_V_HASH = None
_LETTER_HASHES = None


def shape_hashes(toks: list, th: np.ndarray) -> np.ndarray:
    """Token hashes with every single Latin letter as one variable ``v``: which letter names a variable
    does not make a formula specific (``sin x y`` is ``sin a b``); numbers are kept, they are the data."""
    global _V_HASH, _LETTER_HASHES
    if _V_HASH is None:
        _V_HASH = np.uint64(blake64("\x00v"))
        _LETTER_HASHES = np.sort(np.array([blake64(c) for c in "abcdefghijklmnopqrstuvwxyz"], dtype=np.uint64))
    single = _in_sorted(th, _LETTER_HASHES) if len(th) else np.zeros(0, dtype=bool)
    return np.where(single, _V_HASH, th) if single.any() else th


def shape_grams(sh: np.ndarray) -> np.ndarray:
    """Hashes of the ``SPEC_GRAM``-grams of shape hashes: the polynomial alone (set membership only,
    no finaliser: a third of the cost of :func:`gram_hashes`)."""
    if len(sh) < SPEC_GRAM:
        return np.empty(0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return ((sh[:-3] * _P + sh[1:-2]) * _P + sh[2:-1]) * _P + sh[3:]


def _in_sorted(q: np.ndarray, sorted_h: np.ndarray) -> np.ndarray:
    """Bool per entry of ``q``: found in the sorted array ``sorted_h`` (a few lookups, no sort of it)."""
    pos = np.minimum(np.searchsorted(sorted_h, q), len(sorted_h) - 1)
    return sorted_h[pos] == q


def _progression(toks: list) -> bool:
    """A counting run: numbers rising or falling (``18 19 20 21``, primes ``11 13 17 19``) or single
    letters in alphabet order (``m n o p``)."""
    if all(t.isdigit() for t in toks):
        v = [int(t) if len(t) < 19 else 0 for t in toks]
        d = [b - a for a, b in zip(v, v[1:])]
        return all(x > 0 for x in d) or all(x < 0 for x in d)
    if all(len(t) == 1 and t.isascii() and t.isalpha() for t in toks):
        d = [ord(b) - ord(a) for a, b in zip(toks, toks[1:])]
        return all(x == 1 for x in d) or all(x == -1 for x in d)
    return False


def _specific_grams(toks: list, th: np.ndarray, generic: Optional[np.ndarray], varied: bool = False) -> np.ndarray:
    """Bool per ``SPEC_GRAM``-gram of the tokens: specific when it holds an :func:`informative` token and
    3 distinct tokens (``0 1 0 0``, ``c c c c`` are predictable), is no counting run (:func:`_progression`)
    and is not generic: its shape (:func:`shape_hashes`) is found in fewer than ``decontam.generic_items``
    distinct benchmark questions (``begin pmatrix a b``, ``a 2 b 2``, ``find the number of``).  ``varied``: only the
    distinct-token condition (a gram that is not predictable; counting runs still refused)."""
    k = SPEC_GRAM
    if len(th) < k:
        return np.zeros(0, dtype=bool)
    a, b, c, d = th[:-3], th[1:-2], th[2:-1], th[3:]
    distinct = 1 + (b != a) + ((c != a) & (c != b)) + ((d != a) & (d != b) & (d != c))
    if varied:
        ok = distinct >= 3
    else:
        info = np.fromiter(map(informative, toks), dtype=np.int64, count=len(toks))
        csum = np.concatenate([[0], np.cumsum(info)])
        ok = (distinct >= 3) & (csum[k:] - csum[:-k] > 0)
    if not varied and generic is not None and len(generic) and ok.any():
        ok &= ~_in_sorted(shape_grams(shape_hashes(toks, th)), generic)
    for i in np.nonzero(ok)[0]:
        if _progression(toks[i:i + k]):
            ok[i] = False
    return ok


def specificity(toks: list, th: np.ndarray, generic: Optional[np.ndarray], varied: bool = False) -> int:
    """How specific a run of tokens is: the number of its tokens inside a specific ``SPEC_GRAM``-gram
    (:func:`_specific_grams`).  Formula tokens count like words: ``1421 div 7 47 1421 div 7 47 203`` is
    specific; ``begin pmatrix a b c d end pmatrix``, ``18 19 20 21 22`` or a stock sentence is not.
    ``varied``: the tokens inside a gram that is merely not predictable (the long-span rule)."""
    ok = _specific_grams(toks, th, generic, varied)
    if not ok.any():
        return 0
    cover = np.zeros(len(th) + 1, dtype=np.int64)
    idx = np.nonzero(ok)[0]
    np.add.at(cover, idx, 1)
    np.add.at(cover, idx + SPEC_GRAM, -1)
    return int((np.cumsum(cover)[:len(th)] > 0).sum())


def short_share(qt: list, th: np.ndarray, generic: Optional[np.ndarray]) -> float:
    """Share of a short question's tokens inside a specific gram (:func:`specificity`); a question
    shorter than a gram: its share of words (:func:`is_word`)."""
    if not qt:
        return 0.0
    if len(qt) < SPEC_GRAM:
        return sum(map(is_word, qt)) / len(qt)
    return specificity(qt, th, generic) / len(qt)


def build_index(benchmarks: Benchmarks, cfg) -> GramIndex:
    """The n-gram index of every loaded item (questions, options, solutions) and the short-question sets.

    Items with the same question (one problem in several benchmark files: MATH, Minerva, AGIEval's
    copy) count once for the commonness rule (``cfg.max_items``)."""
    n = int(cfg.ngram)
    lo = int(cfg.short_min_grams)
    exclude = list(cfg.exclude_short or [])
    with_options = bool(getattr(cfg, "short_include_options", False))
    max_items = int(getattr(cfg, "max_items", 0) or 0)
    # whole questions shorter than a span of evidence (min_span tokens) are looked up whole: under
    # ngram tokens they remove the page (the short rule), from ngram tokens on the lines they cover
    top = max(n, int(getattr(cfg, "min_span", 0) or 0))
    names = benchmarks.names()
    bnum = {b: i for i, b in enumerate(names)}
    folder_of = {f.benchmark: f.path.split("/", 1)[0] for f in benchmarks.files}
    short_ok = {b: not selected(b, folder_of.get(b, ""), exclude) for b in names}
    hs, its, bs = [], [], []
    short_h: dict[int, list] = {k: [] for k in range(lo, top)}
    short_i: dict[int, list] = {k: [] for k in range(lo, top)}
    short_s: dict[int, list] = {k: [] for k in range(lo, top)}     # shapes: the commonness test
    item_bench = np.empty(len(benchmarks.items), dtype=np.int16)
    item_ids = []
    stats = {"short_generic": 0, "short_common": 0, "common_grams": 0}
    generic_items = int(getattr(cfg, "generic_items", 0) or 0)
    short_specific = float(getattr(cfg, "short_specific", 0) or 0)
    spec_h, spec_q, short_cand = [], [], []
    item_key = np.zeros(len(benchmarks.items), dtype=np.uint64)   # the question's tokens, hashed
    for k, it in enumerate(benchmarks.items):
        b = bnum[it.benchmark]
        item_bench[k] = b
        item_ids.append(it.item_id)
        qkey = np.uint64(blake64(" ".join(tokens(it.question))))
        item_key[k] = qkey
        item_grams, item_spec = [], []
        for t in _item_texts(it, with_options):
            tt = tokens(t)
            th = token_hashes(tt)
            if len(th) >= n:
                item_grams.append(gram_hashes(th, [n])[n])
            if len(th) >= SPEC_GRAM and generic_items:
                item_spec.append(shape_grams(shape_hashes(tt, th)))
        if item_spec and generic_items:           # (h, text) pairs are made distinct in _common
            g = np.concatenate(item_spec)
            spec_h.append(g)
            spec_q.append(np.full(len(g), k, dtype=np.int64))
        if item_grams:
            g = np.unique(np.concatenate(item_grams))
            hs.append(g)
            its.append(np.full(len(g), k, dtype=np.int32))
            bs.append(np.full(len(g), b, dtype=np.int16))
        qt = tokens(_no_figures(it.question) + ("\n" + it.options if with_options and it.options else ""))
        if lo <= len(qt) < top and (len(qt) >= n or short_ok[it.benchmark]):
            short_cand.append((k, qt))
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.empty(0, dtype=dt))
    all_h, all_i, all_b = cat(hs, np.uint64), cat(its, np.int32), cat(bs, np.int16)
    # a gram's commonness counts distinct texts: the copies of one item (in two sets, or a subproblem
    # repeating the earlier ones) are one text, so what only they share is neither common nor generic
    groups = copy_groups(all_h, all_i, item_key, float(getattr(cfg, "copy_share", 0) or 0))
    stats["copies_merged"] = int(len(np.unique(item_key)) - len(np.unique(groups)))
    generic = _common(cat(spec_h, np.uint64), groups[cat(spec_q, np.int64)], generic_items - 1) \
        if generic_items else np.empty(0, dtype=np.uint64)
    del spec_h, spec_q
    stats["generic_grams"] = int(len(generic))
    short_use: dict = {}                               # benchmark -> {"used": n, "generic": n}
    for k, qt in short_cand:
        use = short_use.setdefault(benchmarks.items[k].benchmark, {"used": 0, "generic": 0})
        th = token_hashes(qt)
        if short_share(qt, th, generic) < short_specific:
            stats["short_generic"] += 1
            use["generic"] += 1
            continue
        use["used"] += 1
        g = gram_hashes(th, [len(qt)])[len(qt)]
        short_h[len(qt)].append(int(g[0]))
        short_s[len(qt)].append(int(gram_hashes(shape_hashes(qt, th), [len(qt)])[len(qt)][0]))
        short_i[len(qt)].append(k)
    common = _common(all_h, groups[all_i], max_items)
    if len(common):
        keep = ~np.isin(all_h, common)
        all_h, all_i, all_b = all_h[keep], all_i[keep], all_b[keep]
    stats["common_grams"] = int(len(common))
    h, items = _dedup_sorted(all_h, all_i, all_b)
    short = {}
    cand = {L: np.array(short_h[L], dtype=np.uint64) for L in range(lo, top) if short_h[L]}
    shapes = {L: np.array(short_s[L], dtype=np.uint64) for L in cand}
    common_short = _common_short(benchmarks.items, shapes, max_items, with_options) if max_items >= 1 else {}
    for L, sh in cand.items():
        si = np.array(short_i[L], dtype=np.int32)
        if L in common_short:
            ok = ~np.isin(shapes[L], common_short[L])
            stats["short_common"] += int((~ok).sum())
            sh, si = sh[ok], si[ok]
        if len(sh):
            short[L] = _dedup_sorted(sh, si, item_bench[si])
    stock = _stock_phrasing(benchmarks.items, with_options) if float(getattr(cfg, "max_stock", 0) or 0) > 0 \
        else np.empty(0, dtype=np.uint64)
    stats["stock_phrases"] = int(len(stock))
    _TOKEN_HASH.clear()  # the driver keeps only the index
    bits, log2 = _bitset(h)
    all_short = np.concatenate([v[0] for v in short.values()]) if short else np.empty(0, dtype=np.uint64)
    sbits, slog2 = _bitset(all_short)
    stats["short_questions"] = int(len(all_short))
    stats["short_by_benchmark"] = {b: short_use[b] for b in sorted(short_use)}
    return GramIndex(n=n, hashes=h, items=items, short=short, item_benchmark=item_bench,
                     item_ids=item_ids, benchmarks=names, min_short=lo, bits=bits, bits_log2=log2,
                     short_bits=sbits, short_bits_log2=slog2, stats=stats,
                     questions=[it.question for it in benchmarks.items], stock=stock, generic=generic)


def _bitset(h: np.ndarray) -> tuple[np.ndarray, int]:
    """A bitset over the top bits of the (uniform) gram hashes, about 16 bits per entry."""
    log2 = int(min(32, max(16, np.ceil(np.log2(max(1, len(h)) * 16)))))
    bits = np.zeros(1 << (log2 - 3), dtype=np.uint8)
    top = h >> np.uint64(64 - log2)
    np.bitwise_or.at(bits, (top >> np.uint64(3)).astype(np.int64),
                     (np.uint8(1) << (top & np.uint64(7)).astype(np.uint8)))
    return bits, log2


def _maybe(bits: Optional[np.ndarray], log2: int, q: np.ndarray) -> np.ndarray:
    """Positions of ``q`` that may be in the set behind ``bits`` (a bitset has no false negatives)."""
    if bits is None or len(q) == 0:
        return np.arange(len(q))
    top = q >> np.uint64(64 - log2)
    on = (bits[(top >> np.uint64(3)).astype(np.int64)] >> (top & np.uint64(7)).astype(np.uint8)) & 1
    return np.nonzero(on)[0]


def _find(bits, log2, sorted_h, sorted_items, q):
    """[(position in q, item numbers)] of the entries of ``q`` found in the sorted hashes."""
    cand = _maybe(bits, log2, q)
    if len(cand) == 0:
        return []
    return [(int(cand[p]), its) for p, its in _lookup(sorted_h, sorted_items, q[cand])]


def _lookup(sorted_h: np.ndarray, sorted_items: np.ndarray, q: np.ndarray):
    """Positions in ``q`` that hit, and for each hit position the list of item numbers."""
    if len(q) == 0 or len(sorted_h) == 0:
        return []
    left = np.searchsorted(sorted_h, q, side="left")
    li = np.minimum(left, len(sorted_h) - 1)
    hit = np.nonzero(sorted_h[li] == q)[0]
    if len(hit) == 0:
        return []
    right = np.searchsorted(sorted_h, q[hit], side="right")
    return [(int(p), sorted_items[left[p]:r]) for p, r in zip(hit, right)]


# ---------------------------------------------------------------- the question rule
COVER_GRAM = 6   # the coverage rule counts shared 6-grams of coverage tokens


def _cover_token(t: str) -> str:
    """A text token as the coverage rule compares it: a number is ``#``, a single letter ``v`` (a
    question restated with other numbers or other names still covers its item)."""
    if t.isdigit():
        return "#"
    if len(t) == 1 and t.isascii():
        return "v"
    return t


def cover_tokens(text: str) -> list:
    """The tokens of ``text`` for the coverage rule: text tokens by :func:`_cover_token`; figure code
    (Asymptote) as written and marked apart: in drawing code nearly every token is a coordinate or a
    point's letter, so wildcards would make every figure alike, and a figure's numbers are its data."""
    if "[asy]" not in (text or "").lower():
        return [_cover_token(t) for t in tokens(text)]
    out, pos = [], 0
    for m in _FIGURE_CODE.finditer(text):
        out += [_cover_token(t) for t in tokens(text[pos:m.start()])]
        out += ["\x00" + t for t in tokens(m.group(0))]
        pos = m.end()
    return out + [_cover_token(t) for t in tokens(text[pos:])]


def coverage(question: list, page: list, k: int = COVER_GRAM) -> float:
    """Share of the ``question`` tokens inside a ``k``-gram that ``page`` holds too (both cover_tokens)."""
    if not question:
        return 0.0
    k = min(k, len(question))
    have = {tuple(page[i:i + k]) for i in range(len(page) - k + 1)}
    hit = np.zeros(len(question), dtype=bool)
    for i in range(len(question) - k + 1):
        if tuple(question[i:i + k]) in have:
            hit[i:i + k] = True
    return float(hit.mean())


def _question_evidence(k: int, good: list, starts: list, page_grams: np.ndarray, pt: "_PageTokens",
                       page_cover, page_figures: bool, index: "GramIndex", min_cover: float, long_words: int,
                       max_stock: float, only_cover: bool = False) -> bool:
    """Are the ``good`` spans of item ``k`` (its matched grams start at ``starts``) evidence by the
    question rule?  Yes when a span holds ``long_words`` words, when a matched gram is not one of the
    question's (a solution's or the options' text), or when the page around the spans holds at least
    ``min_cover`` of the question (:func:`coverage`; the question with its figure code when the page
    holds figure code, so a page that draws another figure is another problem, and without it when
    the page holds none, so a page that shows the figure as a picture and copies the text is covered):
    a stock sentence of a question ("find the number
    of ordered pairs (a, b) of integers such that") on a page that asks another question is none.
    ``only_cover`` (spans not specific enough on their own): evidence only when every matched gram is
    the question's and the page covers it."""
    if only_cover:
        long_words = max_stock = 0
    if long_words and any(pt.words[b] - pt.words[a] >= long_words for a, b in good):
        return True
    if max_stock > 0 and any(stock_share(pt.toks[a:b], index.stock) < max_stock for a, b in good):
        return True
    question = index.questions[k] if k < len(index.questions) else ""
    if not question:
        return not only_cover
    qg = gram_hashes(token_hashes(tokens(_no_figures(question))), [index.n])[index.n]
    if not np.isin(page_grams[np.asarray(starts, dtype=np.int64)], qg).all():
        return not only_cover
    a, b = min(x for x, _ in good), max(y for _, y in good)
    q = cover_tokens(question if page_figures else _no_figures(question))
    return bool(q) and coverage(q, page_cover()[max(0, a - len(q)):b + len(q)]) >= min_cover


# ---------------------------------------------------------------- applying it to a page
_FIGURE_PREFIX = re.compile(r"^\[specific \d+(?:/\d+)?\] ")


def evidence_text(evidence: str) -> str:
    """A row's evidence without its specificity figure (``[specific 23/31] ``): the matched page tokens."""
    return _FIGURE_PREFIX.sub("", evidence or "")


@dataclass
class PageResult:
    text: Optional[str]            # cleaned text; None when the page is removed
    removed: bool = False
    lines_removed: int = 0         # lines removed from a kept page (0 when removed or clean)
    rows: list = field(default_factory=list)   # (benchmark, item_id, action, reason, evidence, removed_text)
    removed_lines: list = field(default_factory=list)  # indexes of the lines the n-gram rule removed
    flagged: bool = False          # decontam.mode = "flag": rows written, nothing removed
    lines_flagged: int = 0         # lines a kept page would have lost (flag mode)

    @property
    def contaminated(self) -> bool:
        return bool(self.rows)


@dataclass
class _PageTokens:
    toks: list                 # token strings (a TeX command without its backslash)
    hashes: np.ndarray         # uint64 token hashes
    line_of: np.ndarray        # 0-based line of each token (lines split at '\\n')
    words: np.ndarray          # int64 prefix sums of is_word: words in [a, b) = words[b] - words[a]


def _page_tokens(text: str) -> _PageTokens:
    raw = _tokens(_TOKEN_NL_RE, text)
    toks, word, line_of, line = [], [], [], 0
    for t in raw:
        if t == "\n":
            line += 1
            continue
        word.append(is_word(t))
        toks.append(t[1:] if t[0] == "\\" else t)
        line_of.append(line)
    words = np.zeros(len(toks) + 1, dtype=np.int64)
    if toks:
        np.cumsum(np.array(word, dtype=np.int64), out=words[1:])
    return _PageTokens(toks, token_hashes(toks), np.array(line_of, dtype=np.int64), words)


def _spans(windows: list) -> list:
    """Merge token windows ``[a, b)`` (any order) into disjoint spans, in order."""
    out: list = []
    for a, b in sorted(windows):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _lines_text(lines: list, line_set) -> str:
    return "\n".join(lines[i] for i in sorted(line_set))


def decontaminate_text(text: Optional[str], index: GramIndex, cfg) -> PageResult:
    """Apply the n-gram, short-question and too-short rules to one page's text (module docstring).

    ``rows`` are ``(benchmark, item_id, action, reason, evidence, removed_text)``: the page tokens
    of the matched spans, and the lines that item's match removes (for a page removed by a short
    question, the lines that hold it)."""
    if not text:
        return PageResult(text=text)
    pt = _page_tokens(text)
    n = index.n
    grams = gram_hashes(pt.hashes, [n] + sorted(index.short))
    min_specific = int(getattr(cfg, "min_specific", 0) or 0)
    min_span = int(getattr(cfg, "min_span", 0) or 0)
    long_span = int(getattr(cfg, "long_span", 0) or 0)
    flag = getattr(cfg, "mode", "remove") == "flag"
    # short rule: a whole short question, as a contiguous token sequence
    short_hits = []                                   # (position, length, item numbers)
    whole_hits: dict[int, list] = {}                  # item -> windows of its whole question (ngram.. tokens)
    for L, (sh, si) in index.short.items():
        for pos, its in _find(index.short_bits, index.short_bits_log2, sh, si, grams[L]):
            if L < n:
                short_hits.append((pos, L, its))
            else:
                for x in its:
                    whole_hits.setdefault(int(x), []).append((pos, pos + L))
    # n-gram rule: an item's matching grams form its spans on the page; a span is evidence with at
    # min_specific specific tokens (grams matching different items never add up)
    windows: dict[int, list] = {}                     # item number -> its token windows (evidence only)
    by_item: dict[int, list] = {}
    for p, its in _find(index.bits, index.bits_log2, index.hashes, index.items, grams[n]):
        for x in its:
            by_item.setdefault(int(x), []).append((p, p + n))
    min_cover = float(getattr(cfg, "min_coverage", 0) or 0)
    long_words = int(getattr(cfg, "long_words", 0) or 0)
    max_stock = float(getattr(cfg, "max_stock", 0) or 0)
    cover: list = []

    def page_cover() -> list:                         # the page's coverage tokens, once per page
        if not cover:
            c = cover_tokens(text)
            cover.append(c if len(c) == len(pt.toks) else [_cover_token(t) for t in pt.toks])
        return cover[0]

    page_figures = "[asy]" in text.lower()
    spec: dict = {}                                   # (a, b) -> specificity of the span
    for k, ws in by_item.items():
        good, weak = [], []
        for a, b in _spans(ws):
            if b - a < min_span:
                continue
            key = (a, b)
            if key not in spec:
                spec[key] = specificity(pt.toks[a:b], pt.hashes[a:b], index.generic) if min_specific else b - a
            if spec[key] >= min_specific:
                good.append((a, b))
            elif long_span and b - a >= long_span and \
                    specificity(pt.toks[a:b], pt.hashes[a:b], None, varied=True) >= long_span:
                good.append((a, b))       # a long run of one item: its formula, however generic its 4-grams
            elif 2 * spec[key] >= min_specific:
                weak.append((a, b))
        # a span half as specific (a question's formula and its stock phrasing around it) is evidence
        # only when it is the question's and the page around it covers the question (a restatement)
        for spans_, only in ((good, False), (weak, True)):
            if not spans_ or (only and min_cover <= 0):
                continue
            kept = [(a, b) for a, b in ws if any(ga <= a and b <= gb for ga, gb in spans_)]
            if min_cover <= 0 or _question_evidence(k, spans_, [a for a, _ in kept], grams[n], pt, page_cover,
                                                    page_figures, index, min_cover, long_words, max_stock,
                                                    only_cover=only):
                windows[k] = sorted(set(windows.get(k, []) + kept))
    for k, ws in whole_hits.items():                  # a whole question is evidence at any length
        windows[k] = sorted(set(windows.get(k, []) + ws))
    if not windows and not short_hits:
        return PageResult(text=text)
    lines = text.split("\n")
    removed_set: set = set()
    item_lines: dict[int, set] = {}
    for k, ws in windows.items():
        ls = set()
        for a, b in ws:
            ls.update(range(int(pt.line_of[a]), int(pt.line_of[b - 1]) + 1))
        item_lines[k] = ls
        removed_set |= ls
    removed_lines = sorted(removed_set)

    def evidence(ws) -> str:
        sp = _spans(ws)
        figure = ""
        if min_specific:                               # the specificity that made it evidence
            got = [spec.get((a, b)) for a, b in sp]
            if all(x is not None for x in got):
                figure = f"[specific {sum(got)}/{sum(b - a for a, b in sp)}] "
            elif any(x is not None for x in got):
                figure = f"[specific {sum(x for x in got if x is not None)}] "
        return _cut(figure + " … ".join(" ".join(pt.toks[a:b]) for a, b in sp), EVIDENCE_CHARS)

    def rows_for(keys, action, reason, ev, removed):
        seen, out = set(), []
        act = FLAGGED.get(action, action) if flag else action
        for k in keys:
            key = index.item(k)
            if key not in seen:
                seen.add(key)
                out.append((key[0], key[1], act, reason, ev(k), _cut(removed(k), REMOVED_CHARS)))
        return out

    ngram_rows = lambda action, reason: rows_for(  # noqa: E731
        windows, action, reason, lambda k: evidence(windows[k]), lambda k: _lines_text(lines, item_lines[k]))
    if short_hits:
        short_ws: dict[int, list] = {}
        for p, L, its in short_hits:
            for x in its:
                short_ws.setdefault(int(x), []).append((p, p + L))
        short_lines = {k: {i for a, b in ws for i in range(int(pt.line_of[a]), int(pt.line_of[b - 1]) + 1)}
                       for k, ws in short_ws.items()}
        rows = rows_for(short_ws, PAGE_REMOVED, R_SHORT, lambda k: evidence(short_ws[k]),
                        lambda k: _lines_text(lines, short_lines[k])) + \
            [r for r in ngram_rows(PAGE_REMOVED, R_NGRAM)]
        if flag:
            return PageResult(text=text, rows=rows, removed_lines=removed_lines, flagged=True)
        return PageResult(text=None, removed=True, rows=rows, removed_lines=removed_lines)
    kept = [ln for i, ln in enumerate(lines) if i not in removed_set]
    cleaned = "\n".join(kept)
    if len(cleaned.strip()) < cfg.min_chars_after:
        rows = ngram_rows(PAGE_REMOVED, R_TOO_SHORT)
        if flag:
            return PageResult(text=text, rows=rows, removed_lines=removed_lines, flagged=True)
        return PageResult(text=None, removed=True, rows=rows, removed_lines=removed_lines)
    rows = ngram_rows(SEGMENT_REMOVED, R_NGRAM)
    if flag:
        return PageResult(text=text, rows=rows, lines_flagged=len(removed_lines), removed_lines=removed_lines,
                          flagged=True)
    return PageResult(text=cleaned, removed=False, lines_removed=len(removed_lines), rows=rows,
                      removed_lines=removed_lines)


# ---------------------------------------------------------------- grams common on the crawl
def matched_grams(text: Optional[str], index: GramIndex) -> np.ndarray:
    """The distinct index hashes (n-grams and short questions) that ``text`` contains."""
    if not text:
        return np.empty(0, dtype=np.uint64)
    pt = _page_tokens(text)
    grams = gram_hashes(pt.hashes, [index.n] + sorted(index.short))
    found = [grams[index.n][p] for p, _ in _find(index.bits, index.bits_log2, index.hashes, index.items,
                                                     grams[index.n])]
    for L, (sh, si) in index.short.items():
        found += [grams[L][p] for p, _ in _find(index.short_bits, index.short_bits_log2, sh, si, grams[L])]
    return np.unique(np.array(found, dtype=np.uint64))


def without_grams(index: GramIndex, common: np.ndarray) -> GramIndex:
    """``index`` without the hashes in ``common`` (grams found on too many pages of the corpus)."""

    if len(common) == 0:
        return index
    keep = ~np.isin(index.hashes, common)
    h, items = index.hashes[keep], index.items[keep]
    short = {}
    for L, (sh, si) in index.short.items():
        k = ~np.isin(sh, common)
        if k.any():
            short[L] = (sh[k], si[k])
    bits, log2 = _bitset(h)
    all_short = np.concatenate([v[0] for v in short.values()]) if short else np.empty(0, dtype=np.uint64)
    sbits, slog2 = _bitset(all_short)
    return replace(index, hashes=h, items=items, short=short, bits=bits, bits_log2=log2, short_bits=sbits,
                   short_bits_log2=slog2, stats=dict(index.stats, crawl_common_grams=int(len(common))))


def common_on_pages(texts: Iterable[Optional[str]], index: GramIndex, max_pages: int) -> np.ndarray:
    """Sorted hashes of the benchmark grams found on more than ``max_pages`` of the pages: a stock
    phrase of the crawl, not a copy of one benchmark item (NeMo Curator's ``max_matches``)."""
    counts: dict = {}
    for t in texts:
        for h in matched_grams(t, index).tolist():
            counts[h] = counts.get(h, 0) + 1
    return np.array(sorted(h for h, c in counts.items() if c > max_pages), dtype=np.uint64)


# ---------------------------------------------------------------- many pages, counts
def empty_counts() -> dict:
    return {"pages_in": 0, "pages_out": 0, "pages_removed": 0, "pages_cleaned": 0, "segments_removed": 0,
            "pages_flagged": 0, "segments_flagged": 0,
            "by_rule": {R_SHORT: 0, R_TOO_SHORT: 0, R_NGRAM: 0}, "by_benchmark": {}, "by_benchmark_rule": {}}


