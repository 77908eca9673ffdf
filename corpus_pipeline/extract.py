"""HTML -> title and main text, keeping maths (pure).

INTERFACE (stable; the ingest stage calls exactly this):
    extract_html(html: str, url: str, *, timeout_s: float = 5.0, favor: str = "default")
        -> Extracted | Skip

Skip reasons are short snake_case strings counted by ingest:
``extract_timeout`` (the page hit ``timeout_s``), ``extract_empty`` (no main
text), ``extract_error`` (anything else went wrong), ``extract_too_large``
(more than ``MAX_HTML_CHARS`` characters: not even parsed).

How maths survives: the page is parsed once with lxml (trafilatura's own
loader), :func:`corpus_pipeline.mathhtml.rewrite_math` replaces every maths
element (MathJax scripts, KaTeX, MathML, formula images) by a ``<span>`` with
its TeX between ``$..$`` / ``$$..$$``, then trafilatura extracts the main text
from that tree (plain text, no comments, tables kept).  TeX already written
between delimiters in the page's text passes through as text.

Time limit (``timeout_s``; ``None`` or ``<= 0`` disables it):
- in the main thread of a process (plain loops, Spark's Python workers, which
  run tasks in their worker's main thread) it is ``signal.setitimer`` +
  SIGALRM: the handler raises inside the extraction, any outer ITIMER_REAL is
  restored afterwards (re-armed with its remaining time);
- in any other thread (SIGALRM cannot be used there) a watchdog
  ``threading.Timer`` injects the same exception into the extracting thread
  with ``PyThreadState_SetAsyncExc``.
Both interrupt Python code only: a single long C call (lxml parsing a huge
page, one regex) finishes first and the page is then reported as timed out.
The exception derives from ``BaseException`` so that trafilatura's internal
``except Exception`` handlers cannot swallow it.  Deep nesting needs no
pre-check: libxml2 stops nesting at depth 255 by itself.
"""
from __future__ import annotations

import ctypes
import re
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from . import extractors
from .extractors.structure import drop_repeated_quotes_html, markdown_blocks_lxml
from .lang import detect_lang
from .mathhtml import (
    MARK_CLOSE,
    MARK_OPEN,
    bbcode_to_delimiters,
    brackets_to_dollars,
    detect_text_delimiters,
    engine_loaded,
    rewrite_math,
    strip_marks,
)
from .warc import decode_html

MAX_HTML_CHARS = 20_000_000
_SE_GROUP = re.compile(r"[ \t]*\$\\(?:begin|end)group\$[ \t]*\n?")
FAVORS = ("default", "recall", "precision", "fast")   # fast: trafilatura without its fallback algorithms


@dataclass
class Extracted:
    title: str
    text: str
    has_math_markup: bool = False
    math_kinds: list = field(default_factory=list)   # e.g. ["mathjax", "mathml"]
    lang: str = ""                                     # ISO 639-1 code from :mod:`corpus_pipeline.lang`, "und"


@dataclass
class Skip:
    reason: str
    detail: str = ""


class ExtractTimeout(BaseException):
    """Raised inside the extraction when its time limit expires."""


# ---------------------------------------------------------------------------
# time limit

@contextmanager
def time_limit(seconds):
    """Raise ExtractTimeout in the calling thread after ``seconds``."""
    if not seconds or seconds <= 0:
        yield
        return
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _watchdog(seconds):
            yield


@contextmanager
def _alarm(seconds):
    state = {"active": True, "fired": False}

    def handler(signum, frame):
        if state["active"]:
            state["active"] = False
            state["fired"] = True
            raise ExtractTimeout()

    started = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, handler)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    completed = False
    try:
        yield
        completed = True
    finally:
        while True:  # a late alarm may fire while we disarm: retry until disarmed
            try:
                signal.setitimer(signal.ITIMER_REAL, 0)
                state["active"] = False
                break
            except ExtractTimeout:
                continue
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay > 0:  # re-arm the caller's own timer with what was left of it
            left = old_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), old_interval)
    _raise_if_swallowed(completed, state)


def _raise_if_swallowed(completed: bool, state: dict) -> None:
    """The limit fired but the block finished: the exception was raised inside code that swallows
    exceptions (a finalizer or weakref callback running in this thread reports it as "unraisable",
    a library's bare ``except``).  The limit was still exceeded: say so."""
    if completed and state["fired"]:
        raise ExtractTimeout()


# two prototypes of the same C function: one raises, one (NULL) clears a pending exception
_set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
_clear_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))


@contextmanager
def _watchdog(seconds):
    tid = threading.get_ident()
    lock = threading.Lock()
    state = {"active": True, "fired": False}

    def fire():
        with lock:
            if state["active"]:
                state["fired"] = True
                _set_async_exc(tid, ExtractTimeout)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    completed = False
    try:
        yield
        completed = True
    finally:
        while True:
            try:
                with lock:
                    state["active"] = False
                    if state["fired"]:  # clear a pending, not yet delivered exception
                        _clear_async_exc(tid, None)
                timer.cancel()
                break
            except ExtractTimeout:
                continue
    _raise_if_swallowed(completed, state)


# ---------------------------------------------------------------------------
# extraction

def _trafilatura_text(tree, url, favor):
    import trafilatura

    return trafilatura.extract(
        tree, url=url or None, include_comments=False, include_formatting=False,
        include_tables=True, include_images=False, include_links=False,
        favor_recall=(favor == "recall"), favor_precision=(favor == "precision"), fast=(favor == "fast"),
        output_format="txt",
    )


def _title(tree) -> str:
    from trafilatura.metadata import extract_title

    try:
        return " ".join((extract_title(tree) or "").split())
    except Exception:  # noqa: BLE001 - a title is optional
        return ""


def finish_text(text, title: str, kinds: set, engines=lambda: set()):
    """The shared tail of every extractor: TeX delimiters already in the text
    (``tex_delimiters`` plus the engines the page loads, ``engines()`` is only
    called when needed), forum BBCode maths and ``\\[..\\]`` as ``$$..$$`` on pages loading an
    engine, inserted-maths marks removed.
    An :class:`Extracted` (``lang`` still empty) or ``Skip("extract_empty")``."""

    if not text or not text.strip():
        return Skip("extract_empty")
    kinds = set(kinds)
    has_delims = detect_text_delimiters(text)
    if has_delims or "[/" in text:  # the engine search costs a tree walk: only when needed
        found = engines()
        if found:
            text, n_bb = bbcode_to_delimiters(text)
            text, _ = brackets_to_dollars(text)
            has_delims = has_delims or n_bb > 0
        if has_delims:
            kinds.add("tex_delimiters")
            kinds |= found
    if "group$" in text:   # Stack Exchange's hidden $\begingroup$ / $\endgroup$ macros: no content
        text = _SE_GROUP.sub("", text)
    # two inserted inline formulas side by side would read as one $$ delimiter: keep them apart
    text = text.replace("$" + MARK_CLOSE + MARK_OPEN + "$", "$ $")
    text = strip_marks(text)
    if not text.strip():
        return Skip("extract_empty")
    kinds = sorted(kinds)
    return Extracted(title=strip_marks(title or ""), text=text, has_math_markup=bool(kinds), math_kinds=kinds)


def trafilatura_extract(html: str, url: str, favor: str):
    """The trafilatura extractor: lxml tree, maths rewritten in it, trafilatura on the tree."""
    from trafilatura.utils import load_html

    tree = load_html(drop_repeated_quotes_html(html))
    if tree is None:
        return Skip("extract_empty", "no HTML tree")
    kinds = set(rewrite_math(tree, html))
    # tables stay trafilatura's own (rows as "a | b" lines): replacing them changes which part of the
    # page trafilatura keeps, and cost 9 of trafilatura's 5,661 evaldata snippets (issue 37)
    markdown_blocks_lxml(tree, tables=False)
    title = _title(tree)
    text = _trafilatura_text(tree, url, favor)
    return finish_text(text, title, kinds, lambda: engine_loaded(tree))


def extract_html(html, url: str, *, timeout_s: float = 5.0, favor: str = "default",
                 extractor: str = "trafilatura", charset: str | None = None):
    """Main text, title, maths kinds and language of one HTML page with its maths as TeX, or a Skip.

    ``html`` is ``str``, or ``bytes`` decoded with ``charset`` (else BOM, ``<meta>``,
    detection: :func:`warc.decode_html`).  ``extractor`` names one of
    :func:`corpus_pipeline.extractors.names`; the time limit, size checks and the
    language apply to every extractor alike.
    """

    if favor not in FAVORS:
        raise ValueError(f"favor must be one of {FAVORS}, not {favor!r}")
    impl = extractors.get(extractor)   # ValueError naming the known extractors
    if isinstance(html, (bytes, bytearray)):
        html = decode_html(bytes(html), f"text/html; charset={charset}" if charset else None)[0]
        if html is None:
            return Skip("decode_failed")
    if not html or not html.strip():
        return Skip("extract_empty", "empty page")
    if len(html) > MAX_HTML_CHARS:
        return Skip("extract_too_large", f"{len(html)} chars")
    try:
        with time_limit(timeout_s):
            res = impl.extract(html, url, favor)
            if isinstance(res, Extracted) and not res.lang:
                res.lang = detect_lang(res.text)
            return res
    except ExtractTimeout:
        return Skip("extract_timeout", f"over {timeout_s} s")
    except RecursionError as e:
        return Skip("extract_error", f"RecursionError: {e}"[:200])
    except Exception as e:  # noqa: BLE001 - every other failure is counted, never raised
        return Skip("extract_error", f"{type(e).__name__}: {e}"[:200])
