"""``resiliparse``: the product's maths rewrite, then resiliparse's main-content text.

resiliparse (Webis; ``extract_plain_text(main_content=True)``) builds its own
DOM (lexbor) and has no maths handling: MathJax scripts, MathML and formula
images would vanish.  Pages whose source mentions maths at all (:func:`math_hint`) are parsed with lxml, rewritten by
:func:`corpus_pipeline.mathhtml.rewrite_math` exactly as for trafilatura, and
only when something was rewritten serialized back to HTML for resiliparse; every
other page goes to resiliparse untouched (unless nested deeper than
:data:`MAX_DEPTH`, see there).  ``favor`` has no effect here.
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
        lxml_tree = None
        if math_hint(html):
            from lxml.html import tostring
            from trafilatura.utils import load_html

            lxml_tree = load_html(html)
            if lxml_tree is not None:
                kinds = set(rewrite_math(lxml_tree, html))
                if kinds:
                    html = tostring(lxml_tree, encoding="unicode")
        html = markdown_blocks_html(html)
        tree = HTMLTree.parse(html)
        if tree.document.query_selector(_TOO_DEEP) is not None:
            from lxml.html import tostring
            from trafilatura.utils import load_html

            if lxml_tree is None:
                lxml_tree = load_html(html)
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
            if lxml_tree is None:
                return set()

            return engine_loaded(lxml_tree)

        return finish_text(text, title, kinds, engines)
