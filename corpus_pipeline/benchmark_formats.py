"""Benchmark formats for decontamination: how a test set's files are found, read and fetched (pure).

A format is one benchmark family (GSM8K, MATH, AGIEval, ...): a :class:`BenchmarkFormat`
with the file paths it recognises under a benchmarks folder (regular expressions
over the path relative to it, each with the benchmark name it gives), the field
mapping of its JSON lines (:class:`Format`), which of its benchmarks are used
when ``decontam.benchmarks`` names none, and where ``corpus-pipeline
fetch-benchmarks`` downloads it.  :data:`REGISTRY` holds them in registration
order (the order files are recognised in).

Adding a benchmark is one :class:`BenchmarkFormat` and one ``REGISTRY.register``
line, here or in a module named by ``plugins.modules``; a format whose files are
not JSON lines overrides :meth:`BenchmarkFormat.read`.
"""
from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .errors import InputFileError
from .plugins import Registry

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


_FIELDS: dict[str, Format] = {
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
_CALC = re.compile(r"<<[^<>]*>>")


@dataclass
class BenchmarkItem:
    benchmark: str
    item_id: str
    question: str                 # the question/problem (with its passage/body when the format has one)
    texts: list                   # every indexed text: question, options, solutions ...
    options: str = ""             # the options of a multiple-choice item, one per line

@dataclass(frozen=True)
class BenchmarkFormat:
    """One benchmark family: its files, its fields, its default use and its downloads."""
    name: str                     # the format's name (``gsm8k``; ``harness`` for extra/)
    fields: Format                # field mapping of its JSON lines
    files: tuple                  # (regex over the path relative to the benchmarks folder, benchmark name
                                  #  template filled from the regex's named groups)
    downloads: tuple = ()         # (group name for --only, URL, destination relative to the folder)
    not_default: tuple = ()       # its benchmarks used only when ``decontam.benchmarks`` names them

    def is_default(self, benchmark: str) -> bool:
        """Used when ``decontam.benchmarks`` is empty."""
        return benchmark not in self.not_default

    def read(self, path, benchmark: str) -> list:
        """Every item of one file (JSON lines, ``.gz`` too); InputFileError names file and line."""
        return read_jsonl_items(path, benchmark, self.fields)


REGISTRY = Registry("benchmark format", {})


def get(name: str) -> BenchmarkFormat:
    return REGISTRY.get(name)


def formats() -> list[BenchmarkFormat]:
    """Every registered format, in registration order."""
    return [REGISTRY.get(n) for n in REGISTRY.ordered()]


def identify(relpath: str) -> Optional[tuple[str, str]]:
    """(benchmark name, format) of a file given by its path relative to the benchmarks dir, or None."""
    rel = relpath.replace(os.sep, "/")
    for f in formats():
        for pattern, name in f.files:
            m = re.match(pattern + r"\Z", rel)
            if m:
                return name.format(**m.groupdict()), f.name
    return None


def downloads() -> list[tuple[str, str, str]]:
    """(group, URL, destination) of every format, in registration order."""
    return [d for f in formats() for d in f.downloads]


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
    """Every item of one benchmark file, read by its format; InputFileError names file and line."""
    return get(fmt_name).read(path, benchmark)


def read_jsonl_items(path: str | Path, benchmark: str, fmt: Format) -> list[BenchmarkItem]:
    """Every item of one JSONL (or .jsonl.gz) file with the field mapping ``fmt``."""
    path = Path(path)
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


# ---------------------------------------------------------------- the known formats
_GZ = r"(?:\.gz)?"
_DS = "https://raw.githubusercontent.com/deepseek-ai/DeepSeek-Math/main/evaluation/datasets/"
_HARNESS = "https://raw.githubusercontent.com/QwenLM/Qwen2.5-Math/main/evaluation/data/"
_AGIEVAL = "https://raw.githubusercontent.com/ruixiangcui/AGIEval/main/data/v1/"
_GSM8K = "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl"
# the math-evaluation-harness files fetch-benchmarks downloads (EXTRA_NAMES are the ones recognised)
_HARNESS_EXTRA = (
    "aime24", "amc23", "aqua", "asdiv", "carp_en", "cn_middle_school", "college_math", "gaokao2023en",
    "gaokao2024_I", "gaokao2024_II", "gaokao2024_mix", "mawps", "minerva_math", "olympiadbench", "svamp",
)


def _test_set(name: str, url: str) -> BenchmarkFormat:
    """A family with one ``<name>/test.jsonl`` file."""
    return BenchmarkFormat(name, _FIELDS[name], ((rf"{name}/test\.jsonl{_GZ}", name),),
                           ((name, url, f"{name}/test.jsonl"),))


for _f in (
    _test_set("gsm8k", _GSM8K),
    _test_set("math", _HARNESS + "math/test.jsonl"),
    _test_set("cmath", _DS + "cmath/test.jsonl"),
    BenchmarkFormat("agieval", _FIELDS["agieval"],
                    ((rf"agieval/(?P<task>{'|'.join(map(re.escape, AGIEVAL_TASKS))})\.jsonl{_GZ}", "agieval/{task}"),),
                    tuple(("agieval", f"{_AGIEVAL}{t}.jsonl", f"agieval/{t}.jsonl") for t in AGIEVAL_MATH_TASKS),
                    not_default=tuple(f"agieval/{t}" for t in AGIEVAL_TASKS if t not in AGIEVAL_MATH_TASKS)),
    BenchmarkFormat("mgsm", _FIELDS["mgsm"], ((rf"mgsm(?:_[a-z]+)?/mgsm_(?P<lang>[a-z]+)\.jsonl{_GZ}", "mgsm/{lang}"),),
                    (("mgsm", _DS + "mgsm_zh/mgsm_zh.jsonl", "mgsm/mgsm_zh.jsonl"),)),
    _test_set("mmlu_stem", _DS + "mmlu_stem/test.jsonl"),
    _test_set("ocw", _DS + "ocw/test.jsonl"),
    _test_set("sat", _DS + "sat/test.jsonl"),
    _test_set("minif2f", _DS + "minif2f/test.jsonl"),
    BenchmarkFormat("harness", _FIELDS["harness"],
                    ((rf"extra/(?P<name>{'|'.join(EXTRA_NAMES)})(?:_test)?\.jsonl{_GZ}", "{name}"),
                     (rf"extra/(?P<name>{'|'.join(EXTRA_NAMES)})/test\.jsonl{_GZ}", "{name}")),
                    tuple(("extra", f"{_HARNESS}{n}/test.jsonl", f"extra/{n}_test.jsonl") for n in _HARNESS_EXTRA)),
):
    REGISTRY.register(_f.name, _f)
