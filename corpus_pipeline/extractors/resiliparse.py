"""``resiliparse``: the product's maths rewrite, then resiliparse's main-content text.

resiliparse (Webis; ``extract_plain_text(main_content=True)``) builds its own
DOM (lexbor) and has no maths handling: MathJax scripts, MathML and formula
images would vanish.  Pages whose source may hold an element that
:func:`corpus_pipeline.mathhtml.rewrite_math` rewrites (:func:`rewrite_hint`) are parsed with lxml,
rewritten exactly as for trafilatura, and only when something was rewritten serialized back to
HTML for resiliparse; every other page goes to resiliparse untouched (unless nested deeper than
:data:`MAX_DEPTH`, see there).  A page that only mentions maths (:func:`math_hint`: a MathJax or
KaTeX engine loaded, a class or URL with "math" in it) is parsed with lxml only when its text has
TeX delimiters, to look for the engine (:func:`corpus_pipeline.mathhtml.engine_loaded`).
``favor`` has no effect here.
"""
from __future__ import annotations

import re

from ..extract import Skip, finish_text
from ..mathhtml import engine_loaded, rewrite_math
from .structure import markdown_blocks_html, tidy_text

# Every element rewrite_math and engine_loaded look for has one of these in its markup (lower-cased):
# KaTeX / MathJax / MathJax 3 classes, tags and scripts, Wikipedia's maths wrapper,
# <script type="math/...">, <math> and <m:math>, ASCIIMath engines (as mathhtml._ASCIIMATH_ENGINE
# finds them: ``asciimath``, ``=AM_``, ``,AM_``, ``/AM_``); or class="... math ..."; or an <img>
# whose src/class hint at TeX (mathhtml's image hints).  Measured on 1,194 real pages of 176 KB
# mean: the test costs 1 ms a page (lower-casing the str, eleven substring scans and a Python loop
# over <img> tags cost 2.4 ms), so the words that contain "math" are only looked for when "math" is
# there, and everything runs on ASCII-lower-cased UTF-8 bytes.  A bare
# "am_" matched a sixth of ordinary news pages ("param_", "stream_") and sent them through lxml.
_MATH_WORDS = (b"mathjax", b"mwe-math", b"math/", b"<math", b":math", b"asciimath")
_CLASS_MATH = re.compile(rb"class\s*=\s*[\"']?[^\"'>]*\bmath\b")
_IMG_HINT = re.compile(rb"<img\b[^>]*?(?:src|class)\s*=\s*(?:\"[^\"]*|'[^']*|[^\s>]*)"
                       rb"(?:tex|chl=|mwe-math|equation|formula)")


def math_hint(html: str) -> bool:
    """True when the page may hold maths markup that rewrite_math handles (never misses one)."""
    low = html.encode("utf-8", "surrogatepass").lower()
    has_math = b"math" in low
    if has_math and any(w in low for w in _MATH_WORDS):
        return True
    if b"katex" in low or b"mjx" in low:
        return True
    if b"am_" in low and (b"=am_" in low or b",am_" in low or b"/am_" in low):
        return True
    if has_math and _CLASS_MATH.search(low):
        return True
    return b"<img" in low and _IMG_HINT.search(low) is not None


# rewrite_hint: what mathhtml._candidates looks for, in the source.  Its class tokens are searched
# case-sensitively there (so here), and only inside a class attribute's value; <script type="math/...">
# by its type; <math>, <m:math>, <mjx-container>, ASCIIMath engines and formula images as math_hint
# finds them; a bare ``\begin{`` on a page naming MathJax or KaTeX (mathhtml's display-environment
# rule).  Measured on the real pages of the shared data (WARCs and html/, 1,537 documents):
# math_hint flags 257, many without any candidate element (MathJax configuration text, a
# "favicon-math" class, a /math/ URL); rewrite_hint flags 170 and misses none.
_ASCII_WS = b" \t\n\r\x0b\x0c"
_VALUE_END = (b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b">", b'"', b"'")


def _ends_with(raw: bytes, k: int, name: bytes) -> bool:
    """``raw[:k]`` ends with ``name\\s*`` (``name`` in any ASCII case)."""
    while k > 0 and raw[k - 1] in _ASCII_WS:
        k -= 1
    return k >= len(name) and raw[k - len(name):k].lower() == name


def _after(raw: bytes, k: int, name: bytes) -> bool:
    """``raw[:k]`` ends with ``name\\s*=\\s*`` (``name`` in any ASCII case)."""
    while k > 0 and raw[k - 1] in _ASCII_WS:
        k -= 1
    return k > 0 and raw[k - 1] == 61 and _ends_with(raw, k - 1, name)      # 61: "="


def _in_value(raw: bytes, i: int, name: bytes = b"class") -> bool:
    """Is ``raw[i]`` inside the value of an attribute ``name`` (quoted or not)?  The same as
    ``re.search(name + rb"\\s*=\\s*(?:\"[^\"]*?|'[^']*?|[^\\s>\"']*?)" + <what is at i>)`` matching there."""
    for quote in (b'"', b"'"):
        k = raw.rfind(quote, 0, i)
        if k >= 0 and _after(raw, k, name):
            return True
    # unquoted: the value is in the run before i that holds no space, quote or ">"; its "=" is at the
    # run's start (spaces before it) or inside it right after the name
    r = max(raw.rfind(c, 0, i) for c in _VALUE_END) + 1
    return (_after(raw, r, name) or (r < i and raw[r] == 61 and _ends_with(raw, r, name))
            or (name + b"=") in raw[r:i].lower())


def _class_token(raw: bytes, token: bytes) -> bool:
    """``token`` (case-sensitive) inside some class attribute's value."""
    i = raw.find(token)
    while i >= 0:
        if _in_value(raw, i):
            return True
        i = raw.find(token, i + 1)
    return False


def rewrite_hint(html: str) -> bool:
    """True when :func:`corpus_pipeline.mathhtml.rewrite_math` may find an element to rewrite in the
    page (never misses one); a page it passes over is left exactly as rewrite_math would leave it.
    Every page it flags :func:`math_hint` flags too."""
    raw = html.encode("utf-8", "surrogatepass")
    low = raw.lower()
    if b"\\begin{" in raw and (b"mathjax" in low or b"katex" in low):
        return True     # a bare display environment on a page that may load an engine (_environment_texts)
    # each scan of a mean page (150 KB) costs ~0.1 ms: a word whose lower-cased form is absent is not
    # looked for in any case ("math" for class="math, "mjx" for MJX and <mjx-container)
    i = low.find(b"math")
    if i >= 0 and b'class="math' in raw and _CLASS_MATH.search(low):    # a class token "math" (as math_hint)
        return True
    while i >= 0:
        if i and low[i - 1] in b"<:":                                   # <math, <m:math
            return True
        if i >= 5 and low.startswith(b"ascii", i - 5):                   # ASCIIMath engine
            return True
        if low.startswith(b"/", i + 4) and _after(low, i - 1 if i and low[i - 1] in b"\"'" else i, b"type"):
            return True                                                   # <script type="math/...">
        if raw.startswith(b"MathJax", i) and _in_value(raw, i):
            return True
        if i >= 4 and raw.startswith(b"mwe-math-element", i - 4) and _in_value(raw, i - 4):
            return True
        i = low.find(b"math", i + 1)
    if _class_token(raw, b"katex"):
        return True
    if b"mjx" in low and (_class_token(raw, b"MJX") or b"<mjx-container" in low):
        return True
    if b"am_" in low and (b"=am_" in low or b",am_" in low or b"/am_" in low):
        return True
    return b"<img" in low and _IMG_HINT.search(low) is not None


# control characters resiliparse passes through (trafilatura drops them): never text
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# resiliparse's main-content pass is super-quadratic in nesting depth (depth 4,000: 1 s; 8,000:
# 6 s, in C where the time limit cannot interrupt it).  An element with 255 ancestors (one CSS
# query, ~0.2 ms a page) sends the page through lxml first, whose parser (libxml2) stops
# nesting at depth 255, as trafilatura's path always does.
MAX_DEPTH = 255
_TOO_DEEP = " > ".join(["*"] * (MAX_DEPTH + 1))


class ResiliparseExtractor:
    name = "resiliparse"

    def extract(self, html: str, url: str, favor: str = "default"):
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        kinds: set = set()
        source = html
        # state["tree"]: the page's lxml tree (rewritten) when math_hint flags the page, else None.
        # Parsed at once when rewrite_hint says rewrite_math may find something; a page only
        # math_hint flags is parsed when the tree is needed (its rewrite would change nothing).
        state = {"tree": None, "known": False}
        if rewrite_hint(html):                    # (math_hint holds on every page rewrite_hint flags)
            from lxml.html import tostring
            from trafilatura.utils import load_html

            lxml_tree = state["tree"] = load_html(html)
            state["known"] = True
            if lxml_tree is not None:
                kinds = set(rewrite_math(lxml_tree, html))
                if kinds:
                    html = tostring(lxml_tree, encoding="unicode")

        def hinted_tree():
            if not state["known"]:
                state["known"] = True
                if math_hint(source):
                    from trafilatura.utils import load_html

                    state["tree"] = load_html(source)
            return state["tree"]

        html = markdown_blocks_html(html)
        tree = HTMLTree.parse(html)
        if tree.document.query_selector(_TOO_DEEP) is not None:
            from lxml.html import tostring
            from trafilatura.utils import load_html

            lxml_tree = hinted_tree()
            if lxml_tree is None:
                lxml_tree = state["tree"] = load_html(html)
            if lxml_tree is None:
                return Skip("extract_empty", "no HTML tree")
            tree = HTMLTree.parse(tostring(lxml_tree, encoding="unicode"))
        if tree.body is None:
            return Skip("extract_empty", "no HTML body")
        text = extract_plain_text(tree, preserve_formatting=True, main_content=True, list_bullets=True,
                                  alt_texts=False, links=False, form_fields=False, noscript=False,
                                  comments=False)
        text = tidy_text(_CONTROL.sub("", text))
        title = " ".join(_CONTROL.sub("", tree.title or "").split())

        def engines():
            if not state["known"]:
                # engine_loaded looks for "mathjax"/"katex" in script and link attributes: without
                # either in the source it finds nothing in any tree (and math_hint flags both)
                low = source.encode("utf-8", "surrogatepass").lower()
                if b"mathjax" not in low and b"katex" not in low:
                    return set()
            lxml_tree = hinted_tree()
            if lxml_tree is None:
                return set()

            return engine_loaded(lxml_tree)

        return finish_text(text, title, kinds, engines)
