"""Decontamination against maths benchmarks (pure: no Spark).

Three parts:

* **Loaders** (:func:`load_benchmarks`): a directory of benchmark test sets in
  the layouts users meet (DeepSeek-Math evaluation copies, the MATH test split
  as ``jsonl.gz``, AGIEval ``data/v1``, the math-evaluation-harness files in
  ``extra/``).  Each known file has a field mapping (:data:`FORMATS`); unknown
  files are listed and skipped; a malformed line of a known file is an
  :class:`~corpus_pipeline.errors.InputFileError` naming file and line.
* **Normalization and grams** (:func:`tokens`): lower case; every character
  that is not a letter, digit or CJK character separates words (``x+y=2`` ->
  ``x y 2``); each CJK character is one gram.  Tokens are additionally NFKC
  folded one by one (full-width ``１`` -> ``1``), which can only add matches.
  Tokens hash to stable 64-bit values (BLAKE2b), n-grams to a polynomial of
  those, finalised with a 64-bit mixer (:func:`gram_hashes`).
* **The index and the rules** (:class:`GramIndex`, :func:`decontaminate_text`):
  a sorted ``uint64`` array of the hashed ``cfg.ngram``-grams of every
  benchmark text (question/problem, options, solution) with the item each came
  from, plus, per length n in ``[short_min_grams, ngram)``, the hashes of the
  benchmark questions that are exactly n grams long.  On a page (a segment is
  a line) an n-gram match removes every line from the first to the last token
  it covers; a page containing an entire short question is removed; a page
  whose cleaned text is shorter than ``cfg.min_chars_after`` is removed.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

from .errors import InputFileError
from .text import TokenHashCache, blake64

# ---------------------------------------------------------------- actions and reasons
SEGMENT_REMOVED = "segment_removed"
PAGE_REMOVED = "page_removed"
R_NGRAM = "ngram_overlap"                 # lines touched by a benchmark n-gram
R_SHORT = "short_exact_match"             # page contains a whole short benchmark question
R_TOO_SHORT = "too_short_after_cleaning"  # what remained after removing lines was too short

# ---------------------------------------------------------------- normalization
# CJK ideographs (basic, ext A, ext B-F, compatibility), kana and hangul: one gram per character.
_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
    "\U00020000-\U0002ebef\U00030000-\U0003134f"
)
# A token: one CJK character, or a run of letters/digits (\w minus "_" minus CJK).
_TOKEN_RE = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+")
_TOKEN_NL_RE = re.compile(f"\n|[{_CJK}]|[^\\W_{_CJK}]+")   # the same, with line breaks as markers

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


def tokens(text: str) -> list[str]:
    """The normalized grams of ``text``."""
    return _tokens(_TOKEN_RE, text)


def _tokens(rx, text: str) -> list[str]:
    low = (text or "").lower()
    found = rx.findall(low)
    if low.isascii() or _is_nfkc("NFKC", low):
        return found
    return [x for t in found for x in ((t,) if t.isascii() else _fold(t))]


def token_hash(tok: str) -> int:
    return _TOKEN_HASH.hash(tok)


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
@dataclass
class Format:
    """Field mapping of one file format.  Field names may be dotted paths ('other.solution', 'messages.0.content')."""
    question: tuple                       # first present non-empty string is the question/problem
    context: tuple = ()                   # prepended to the question when present (passage, body ...)
    solutions: tuple = ()                 # every present one is indexed (strings or lists of strings)
    solutions_fallback: tuple = ()        # used only when none of `solutions` is present
    options: tuple = ()                   # list of strings or one string
    extra_texts: tuple = ()               # more indexed texts (formal statements ...)
    ids: tuple = ()                       # first present is the item id, else "L<line>"
    strip_calculator: bool = False        # GSM8K's <<48/2=24>> notes


FORMATS: dict[str, Format] = {
    "gsm8k": Format(question=("question",), solutions=("cot",), solutions_fallback=("answer",), ids=("id",),
                    strip_calculator=True),   # openai's original file: the solution is in "answer"
    "math": Format(question=("problem",), solutions=("solution",), ids=("unique_id", "id", "idx")),
    "cmath": Format(question=("question",), ids=("id", "idx")),
    "agieval": Format(question=("question",), context=("passage",), solutions=("other.solution",),
                      options=("options",), ids=("id",)),
    "mgsm": Format(question=("messages.0.content", "question"), solutions=("answer_reasoning",), ids=("id",)),
    "mmlu_stem": Format(question=("question",), options=("options", "choices"), ids=("id",)),
    "ocw": Format(question=("problem",), solutions=("solution",), ids=("id", "idx")),
    "sat": Format(question=("question",), options=("options",), ids=("id",)),
    "minif2f": Format(question=("informal_statement",), solutions=("informal_proof",),
                      extra_texts=("formal_statement",), ids=("id", "problem_name", "name")),
    # math-evaluation-harness files (extra/): one mapping covers their fields
    "harness": Format(
        question=("problem", "question", "Question", "input", "content"),
        context=("body", "Body", "context"),
        solutions=("solution", "rationale", "steps", "cot"),
        options=("options",),
        ids=("id", "idx", "ID", "unique_id", "question_number"),
    ),
}

AGIEVAL_TASKS = (
    "aqua-rat", "gaokao-biology", "gaokao-chemistry", "gaokao-chinese", "gaokao-english",
    "gaokao-geography", "gaokao-history", "gaokao-mathcloze", "gaokao-mathqa", "gaokao-physics",
    "jec-qa-ca", "jec-qa-kd", "logiqa-en", "logiqa-zh", "lsat-ar", "lsat-lr", "lsat-rc", "math",
    "sat-en", "sat-en-without-passage", "sat-math",
)
# The AGIEval tasks DeepSeekMath evaluates on (maths); the others (law, logic, languages, sciences) are
# recognised but used only when named exactly in cfg.benchmarks: their generic short questions
# ("下列说法正确的是", "The main purpose of the passage is to") would remove pages that have nothing
# to do with a maths benchmark.
AGIEVAL_MATH_TASKS = ("aqua-rat", "gaokao-mathcloze", "gaokao-mathqa", "math", "sat-math")
EXTRA_NAMES = (
    "aime24", "amc23", "aqua", "asdiv", "carp_en", "cmath_dev600", "cn_middle_school", "college_math",
    "gaokao2023en", "gaokao2024_I", "gaokao2024_II", "gaokao2024_mix", "mawps", "mawps_addsub",
    "mawps_multiarith", "mawps_singleeq", "mawps_singleop", "minerva_math", "olympiadbench", "svamp",
)

_GZ = r"(?:\.gz)?"
# (regex over the path relative to the benchmarks directory, benchmark name template, format)
KNOWN_FILES: list[tuple] = [
    (rf"gsm8k/test\.jsonl{_GZ}", "gsm8k", "gsm8k"),
    (rf"math/test\.jsonl{_GZ}", "math", "math"),
    (rf"cmath/test\.jsonl{_GZ}", "cmath", "cmath"),
    (rf"agieval/(?P<task>{'|'.join(map(re.escape, AGIEVAL_TASKS))})\.jsonl{_GZ}", "agieval/{task}", "agieval"),
    (rf"mgsm(?:_[a-z]+)?/mgsm_(?P<lang>[a-z]+)\.jsonl{_GZ}", "mgsm/{lang}", "mgsm"),
    (rf"mmlu_stem/test\.jsonl{_GZ}", "mmlu_stem", "mmlu_stem"),
    (rf"ocw/test\.jsonl{_GZ}", "ocw", "ocw"),
    (rf"sat/test\.jsonl{_GZ}", "sat", "sat"),
    (rf"minif2f/test\.jsonl{_GZ}", "minif2f", "minif2f"),
    (rf"extra/(?P<name>{'|'.join(EXTRA_NAMES)})(?:_test)?\.jsonl{_GZ}", "{name}", "harness"),
    (rf"extra/(?P<name>{'|'.join(EXTRA_NAMES)})/test\.jsonl{_GZ}", "{name}", "harness"),
]
_KNOWN = [(re.compile(p + r"\Z"), name, fmt) for p, name, fmt in KNOWN_FILES]
_DOC_FILE = re.compile(r"(?i)^(license|licence|copying|readme|notice)|\.(md|txt|rst)$")
_CALC = re.compile(r"<<[^<>]*>>")


@dataclass
class BenchmarkItem:
    benchmark: str
    item_id: str
    question: str                 # the question/problem (with its passage/body when the format has one)
    texts: list                   # every indexed text: question, options, solutions ...
    options: str = ""             # the options of a multiple-choice item, one per line


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
        return not self.benchmark.startswith("agieval/") or self.benchmark[len("agieval/"):] in AGIEVAL_MATH_TASKS


@dataclass
class Benchmarks:
    items: list = field(default_factory=list)      # BenchmarkItem
    files: list = field(default_factory=list)      # BenchmarkFile, loaded
    skipped: list = field(default_factory=list)    # relative paths of files not known (listed, not loaded)
    unselected: list = field(default_factory=list)  # known files not used (non-maths AGIEval tasks, cfg.benchmarks)

    def names(self) -> list[str]:
        return sorted({f.benchmark for f in self.files})


def identify(relpath: str) -> Optional[tuple[str, str]]:
    """(benchmark name, format) of a file given by its path relative to the benchmarks dir, or None."""
    rel = relpath.replace(os.sep, "/")
    for rx, name, fmt in _KNOWN:
        m = rx.match(rel)
        if m:
            return name.format(**m.groupdict()), fmt
    return None


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


def _get(rec, dotted: str):
    cur = rec
    for part in dotted.split("."):
        if isinstance(cur, dict):
            cur = cur.get(part)
        elif isinstance(cur, list) and part.isdigit():
            i = int(part)
            cur = cur[i] if i < len(cur) else None
        else:
            return None
        if cur is None:
            return None
    return cur


def _strings(v) -> list[str]:
    if isinstance(v, str):
        s = v.strip()
        return [s] if s and s != "None" else []
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    return []


def parse_record(rec, fmt: Format, benchmark: str, line_no: int) -> BenchmarkItem:
    """One benchmark item from one JSON record; ValueError when the record lacks its question."""
    if not isinstance(rec, dict):
        raise ValueError(f"expected a JSON object, got {type(rec).__name__}")
    question = None
    for f in fmt.question:
        qs = _strings(_get(rec, f))
        if qs:
            question = qs[0]
            break
    if question is None:
        raise ValueError(f"no question text (expected a non-empty string in one of: {', '.join(fmt.question)})")
    ctx = [s for f in fmt.context for s in _strings(_get(rec, f))]
    if ctx:
        question = "\n".join(ctx + [question])
    texts = [question]
    opts = [s for f in fmt.options for s in _strings(_get(rec, f))]
    options = "\n".join(opts)
    if opts:
        texts.append(options)
    sols = [s for f in fmt.solutions for s in _strings(_get(rec, f))]
    if not sols:
        sols = [s for f in fmt.solutions_fallback for s in _strings(_get(rec, f))]
    texts.extend(sols)
    for f in fmt.extra_texts:
        texts.extend(_strings(_get(rec, f)))
    if fmt.strip_calculator:
        question = _CALC.sub("", question)
        texts = [_CALC.sub("", t) for t in texts]
    item_id = None
    for f in fmt.ids:
        v = _get(rec, f)
        if v is not None and not isinstance(v, (dict, list)) and str(v) != "":
            item_id = str(v)
            break
    if item_id is None:
        item_id = f"L{line_no}"
    return BenchmarkItem(benchmark=benchmark, item_id=item_id, question=question, texts=texts, options=options)


def read_benchmark_file(path: str | Path, benchmark: str, fmt_name: str) -> list[BenchmarkItem]:
    """Every item of one JSONL (or .jsonl.gz) benchmark file; InputFileError names file and line."""
    path = Path(path)
    fmt = FORMATS[fmt_name]
    opener = gzip.open if path.name.endswith(".gz") else open
    items: list[BenchmarkItem] = []
    line_no = 0
    try:
        with opener(path, "rb") as fh:
            for line_no, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise InputFileError(path, f"not UTF-8 text: {e}", line_no) from None
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputFileError(path, f"not valid JSON ({e.msg} at column {e.colno})", line_no) from None
                try:
                    items.append(parse_record(rec, fmt, benchmark, line_no))
                except ValueError as e:
                    raise InputFileError(path, f"{benchmark} record: {e}", line_no) from None
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        if isinstance(e, FileNotFoundError):
            raise InputFileError(path, "file not found") from None
        raise InputFileError(path, f"cannot read: {e}", line_no + 1 if line_no else None) from None
    return items


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

    def nbytes(self) -> int:
        b = self.hashes.nbytes + self.items.nbytes + self.item_benchmark.nbytes
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


def build_index(benchmarks: Benchmarks, cfg) -> GramIndex:
    """The n-gram index of every loaded item (questions, options, solutions) and the short-question sets."""
    n = int(cfg.ngram)
    lo = int(cfg.short_min_grams)
    exclude = list(cfg.exclude_short or [])
    with_options = bool(getattr(cfg, "short_include_options", False))
    names = benchmarks.names()
    bnum = {b: i for i, b in enumerate(names)}
    folder_of = {f.benchmark: f.path.split("/", 1)[0] for f in benchmarks.files}
    short_ok = {b: not selected(b, folder_of.get(b, ""), exclude) for b in names}
    hs, its, bs = [], [], []
    short_h: dict[int, list] = {k: [] for k in range(lo, n)}
    short_i: dict[int, list] = {k: [] for k in range(lo, n)}
    item_bench = np.empty(len(benchmarks.items), dtype=np.int16)
    item_ids = []
    for k, it in enumerate(benchmarks.items):
        b = bnum[it.benchmark]
        item_bench[k] = b
        item_ids.append(it.item_id)
        texts = it.texts + ([it.question + "\n" + it.options] if with_options and it.options else [])
        for t in texts:
            th = token_hashes(tokens(t))
            if len(th) >= n:
                g = np.unique(gram_hashes(th, [n])[n])
                hs.append(g)
                its.append(np.full(len(g), k, dtype=np.int32))
                bs.append(np.full(len(g), b, dtype=np.int16))
        if short_ok[it.benchmark]:
            qt = tokens(it.question + ("\n" + it.options if with_options and it.options else ""))
            if lo <= len(qt) < n:
                g = gram_hashes(token_hashes(qt), [len(qt)])[len(qt)]
                short_h[len(qt)].append(int(g[0]))
                short_i[len(qt)].append(k)
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.empty(0, dtype=dt))
    h, items = _dedup_sorted(cat(hs, np.uint64), cat(its, np.int32), cat(bs, np.int16))
    short = {}
    for L in range(lo, n):
        if short_h[L]:
            sh = np.array(short_h[L], dtype=np.uint64)
            si = np.array(short_i[L], dtype=np.int32)
            sb = item_bench[si]
            short[L] = _dedup_sorted(sh, si, sb)
    _TOKEN_HASH.clear()  # the driver keeps only the index
    bits, log2 = _bitset(h)
    all_short = np.concatenate([v[0] for v in short.values()]) if short else np.empty(0, dtype=np.uint64)
    sbits, slog2 = _bitset(all_short)
    return GramIndex(n=n, hashes=h, items=items, short=short, item_benchmark=item_bench,
                     item_ids=item_ids, benchmarks=names, min_short=lo, bits=bits, bits_log2=log2,
                     short_bits=sbits, short_bits_log2=slog2)


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


# ---------------------------------------------------------------- applying it to a page
@dataclass
class PageResult:
    text: Optional[str]            # cleaned text; None when the page is removed
    removed: bool = False
    lines_removed: int = 0         # lines removed from a kept page (0 when removed or clean)
    rows: list = field(default_factory=list)   # (benchmark, item_id, action, reason)
    removed_lines: list = field(default_factory=list)  # indexes of the lines the n-gram rule removed

    @property
    def contaminated(self) -> bool:
        return bool(self.rows)


_NL_HASH = np.uint64(token_hash("\n"))


def _page_tokens(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Token hashes of a page and the line number (0-based, lines split at '\\n') of each token."""
    th = token_hashes(_tokens(_TOKEN_NL_RE, text))
    nl = th == _NL_HASH
    line_of = np.cumsum(nl)[~nl]
    return th[~nl], line_of


def decontaminate_text(text: Optional[str], index: GramIndex, cfg) -> PageResult:
    """Apply the n-gram, short-question and too-short rules to one page's text."""
    if not text:
        return PageResult(text=text)
    lines = text.split("\n")
    th, line_of = _page_tokens(text)
    n = index.n
    sizes = [n] + sorted(index.short)
    grams = gram_hashes(th, sizes)
    # short rule: a whole short question, as a contiguous gram sequence
    short_items: list[int] = []
    for L, (sh, si) in index.short.items():
        for _pos, its in _find(index.short_bits, index.short_bits_log2, sh, si, grams[L]):
            short_items.extend(int(x) for x in its)
    # n-gram rule
    hits = _find(index.bits, index.bits_log2, index.hashes, index.items, grams[n])
    if not hits and not short_items:
        return PageResult(text=text)
    mask_diff = np.zeros(len(lines) + 1, dtype=np.int64)
    ngram_items: dict[int, None] = {}
    for pos, its in hits:
        a, b = line_of[pos], line_of[pos + n - 1]
        mask_diff[a] += 1
        mask_diff[b + 1] -= 1
        for x in its:
            ngram_items.setdefault(int(x), None)
    removed_mask = np.cumsum(mask_diff[:-1]) > 0
    removed_lines = [int(i) for i in np.nonzero(removed_mask)[0]]

    def rows_for(items, action, reason):
        seen, out = set(), []
        for k in items:
            key = index.item(k)
            if key not in seen:
                seen.add(key)
                out.append((key[0], key[1], action, reason))
        return out

    if short_items:
        rows = rows_for(short_items, PAGE_REMOVED, R_SHORT) + rows_for(ngram_items, PAGE_REMOVED, R_NGRAM)
        return PageResult(text=None, removed=True, rows=rows, removed_lines=removed_lines)
    kept = [ln for ln, r in zip(lines, removed_mask) if not r]
    cleaned = "\n".join(kept)
    if len(cleaned.strip()) < cfg.min_chars_after:
        return PageResult(text=None, removed=True, rows=rows_for(ngram_items, PAGE_REMOVED, R_TOO_SHORT),
                          removed_lines=removed_lines)
    return PageResult(text=cleaned, removed=False, lines_removed=len(removed_lines),
                      rows=rows_for(ngram_items, SEGMENT_REMOVED, R_NGRAM), removed_lines=removed_lines)


# ---------------------------------------------------------------- many pages, counts
def empty_counts() -> dict:
    return {"pages_in": 0, "pages_out": 0, "pages_removed": 0, "pages_cleaned": 0, "segments_removed": 0,
            "by_rule": {R_SHORT: 0, R_TOO_SHORT: 0, R_NGRAM: 0}, "by_benchmark": {}, "by_benchmark_rule": {}}


def tally(pages_in: int, page_stats: Iterable[tuple], rows: Iterable[tuple]) -> dict:
    """Counts for the report.

    ``page_stats``: (page_id, removed, lines_removed) of every contaminated page;
    ``rows``: contamination rows (page_id, benchmark, item_id, action, reason).
    Page counts per benchmark and per rule count distinct pages."""
    c = empty_counts()
    c["pages_in"] = int(pages_in)
    for _pid, removed, lines in page_stats:
        if removed:
            c["pages_removed"] += 1
        else:
            c["pages_cleaned"] += 1
            c["segments_removed"] += int(lines)
    c["pages_out"] = c["pages_in"] - c["pages_removed"]
    by_rule: dict = {}
    by_b: dict = {}
    by_br: dict = {}
    for pid, bench, _item, action, reason in rows:
        rule = R_NGRAM if action == SEGMENT_REMOVED else reason
        if action == PAGE_REMOVED and reason == R_NGRAM:
            rule = None  # an n-gram item on a page the short rule removed: the page counts under the short rule
        if rule:
            by_rule.setdefault(rule, set()).add(pid)
        by_b.setdefault(bench, {}).setdefault(action, set()).add(pid)
        by_br.setdefault(bench, {}).setdefault(reason, set()).add(pid)
    for k, v in by_rule.items():
        c["by_rule"][k] = len(v)
    c["by_benchmark"] = {b: {a: len(p) for a, p in sorted(d.items())} for b, d in sorted(by_b.items())}
    c["by_benchmark_rule"] = {b: {r: len(p) for r, p in sorted(d.items())} for b, d in sorted(by_br.items())}
    return c


def decontaminate_pages(pages: Iterable[dict], index: GramIndex, cfg, id_field: str = "page_id"):
    """Apply :func:`decontaminate_text` to dicts with ``text`` and ``id_field``.

    Returns (kept pages with text cleaned, contamination rows in schemas.CONTAMINATION order, counts)."""
    out, rows, stats = [], [], []
    n = 0
    for p in pages:
        n += 1
        r = decontaminate_text(p.get("text"), index, cfg)
        pid = p.get(id_field)
        rows.extend((pid,) + row for row in r.rows)
        if r.contaminated:
            stats.append((pid, r.removed, r.lines_removed))
        if not r.removed:
            q = dict(p)
            q["text"] = r.text
            out.append(q)
    return out, rows, tally(n, stats, rows)
