"""Where a page's extraction time goes: the bulk pass (``process_source``, defaults) split by component.

``python -m bench.extract_breakdown`` runs :func:`corpus_pipeline.ingest.process_source` with the
default configuration over the HTML pages of the shared ``warc/derived_minicrawl`` WARCs (245 real
pages, 3 files), ``BENCH_BREAKDOWN_REPEATS`` times (default 5) after one warm-up pass, with a
timer around each step of the path (the functions the pipeline calls, replaced by timed wrappers
in this process only).  Each component is its exclusive time (a timed call inside another is
taken out of the outer one), in ms per page, from CPU time (``time.process_time``: the machine
is shared) and as a share of the whole; the components add up to the measured total.  The
Spark layer's own cost (Arrow conversion, the task, the JVM writing Parquet) is not here:
``python -m bench ingest`` prints the Spark step beside ``process_source`` with the same reader.
"""
from __future__ import annotations

import os
import time
from collections import defaultdict

from bench.bench_ingest import _files

_stack: list = []
_excl: dict = defaultdict(float)
_calls: dict = defaultdict(int)
_clock = time.process_time


def _timed_call(name: str, fn, *a, **k):
    _stack.append(0.0)
    t0 = _clock()
    try:
        return fn(*a, **k)
    finally:
        el = _clock() - t0
        child = _stack.pop()
        _excl[name] += el - child
        _calls[name] += 1
        if _stack:
            _stack[-1] += el


def _wrap(name: str, fn):
    def w(*a, **k):
        return _timed_call(name, fn, *a, **k)
    w.__wrapped__ = fn
    return w


_pages = [0]


def _wrap_gen(name: str, gen_fn):
    """A generator function whose every step (``next``) is timed (and its items counted)."""
    def w(*a, **k):
        it = iter(gen_fn(*a, **k))
        while True:
            try:
                item = _timed_call(name, next, it)
            except StopIteration:
                return
            _pages[0] += 1
            yield item
    return w


# (label, module, attribute, generator?) in the order of the path
COMPONENTS = [
    ("read + decompress (WARC records, HTTP headers)", "corpus_pipeline.sources", "iter_pages", True),
    ("decode (charset, str)", "corpus_pipeline.warc", "decode_html", False),
    ("maths hints (byte scans: rewrite_hint, math_hint)", "corpus_pipeline.extractors.resiliparse", "math_hint",
     False),
    ("maths hints (byte scans: rewrite_hint, math_hint)", "corpus_pipeline.extractors.resiliparse",
     "rewrite_hint", False),
    ("lxml parse (hinted pages)", "trafilatura.utils", "load_html", False),
    ("maths rewrite (hinted pages)", "corpus_pipeline.extractors.resiliparse", "rewrite_math", False),
    ("lxml serialise (rewritten pages)", "lxml.html", "tostring", False),
    ("code blocks and tables (markdown_blocks_html)", "corpus_pipeline.extractors.resiliparse",
     "markdown_blocks_html", False),
    ("resiliparse parse (HTMLTree.parse)", None, "HTMLTree.parse", False),
    ("resiliparse extract_plain_text", "resiliparse.extract.html2text", "extract_plain_text", False),
    ("text tidy (control chars, tidy_text)", "corpus_pipeline.extractors.resiliparse", "tidy_text", False),
    ("finish_text (delimiters, marks)", "corpus_pipeline.extractors.resiliparse", "finish_text", False),
    ("language id (clean_for_lang + detect_fast)", "corpus_pipeline.extract", "detect_lang", False),
    ("fallback extractor (trafilatura, lost pages)", "corpus_pipeline.extractors.trafilatura",
     "TrafilaturaExtractor.extract", False),
    ("page id, URL normalisation", "corpus_pipeline.ingest", "page_id", False),
    ("token count", "corpus_pipeline.ingest", "count_tokens", False),
    ("text hash (normalise + BLAKE2b)", "corpus_pipeline.ingest", "text_hash", False),
]
REST = "the rest (extractor glue: depth check, title; extract_html; page_row; counters)"


class _TimedTree:
    """Stands in for ``resiliparse.parse.html.HTMLTree`` (a C type whose methods cannot be replaced)."""

    def __init__(self, real):
        self._real = real
        self.parse = _wrap("resiliparse parse (HTMLTree.parse)", real.parse)

    def __getattr__(self, name):
        return getattr(self._real, name)


def install() -> None:
    import importlib

    import resiliparse.parse.html as rph

    for label, mod, attr, gen in COMPONENTS:
        if mod is None:
            continue
        m = importlib.import_module(mod)
        if not hasattr(m, attr.split(".")[0]):
            continue                              # an older version of the path (bench on a base commit)
        if "." in attr:
            cls_name, meth = attr.split(".")
            cls = getattr(m, cls_name)
            setattr(cls, meth, _wrap(label, getattr(cls, meth)))
            continue
        fn = getattr(m, attr)
        setattr(m, attr, (_wrap_gen if gen else _wrap)(label, fn))
    rph.HTMLTree = _TimedTree(rph.HTMLTree)


def main() -> None:
    from corpus_pipeline.config import Config
    from corpus_pipeline.counters import Counts
    from corpus_pipeline.ingest import process_source

    files = _files()
    if not files:
        print("no WARC files under the shared data's warc/derived_minicrawl: skipped")
        return
    repeats = int(os.environ.get("BENCH_BREAKDOWN_REPEATS", "5"))
    cfg = Config()
    install()

    def one_pass():
        c = Counts()
        kept = sum(1 for f in files for _ in process_source(f, cfg, c))
        return kept, c

    one_pass()                                   # imports, extractor warm-up: not counted
    _excl.clear()
    _calls.clear()
    _pages[0] = 0
    total = 0.0
    for _ in range(repeats):
        c0 = _clock()
        _stack.append(0.0)
        kept, counts = one_pass()
        _stack.pop()
        total += _clock() - c0
    n = _pages[0] / repeats                       # HTML pages read a pass
    per = 1000.0 / (n * repeats)
    import corpus_pipeline

    print(f"code: {os.path.dirname(os.path.dirname(corpus_pipeline.__file__))}")
    print(f"process_source, defaults (extractor {cfg.ingest.extractor}, reader {cfg.ingest.warc_reader}): "
          f"{len(files)} files, {n:.0f} HTML pages extracted a pass ({kept} kept), {repeats} passes; "
          f"CPU ms per page")
    print("| component | ms/page | share | calls/pass |")
    print("|---|---:|---:|---:|")
    known = 0.0
    for label in dict.fromkeys(c[0] for c in COMPONENTS):
        t = _excl.get(label, 0.0)
        known += t
        print(f"| {label} | {t * per:.2f} | {t / total:.1%} | {_calls.get(label, 0) / repeats:.0f} |")
    rest = total - known
    print(f"| {REST} | {rest * per:.2f} | {rest / total:.1%} | |")
    print(f"| **total** | **{total * per:.2f}** | 100% | |")
    print(f"({1000.0 / (total * per):.1f} pages/s/core; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
