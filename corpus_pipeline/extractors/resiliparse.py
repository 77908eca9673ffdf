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

# Every element rewrite_math and engine_loaded look for has one of these in its markup (lower-cased):
# KaTeX / MathJax / MathJax 3 classes, tags and scripts, Wikipedia's maths wrapper,
# <script type="math/...">, <math> and <m:math>, ASCIIMath engines; or class="... math ...";
# or an <img> whose src/class hint at TeX (mathhtml's image hints).  Substring tests first:
# one alternation regex over a whole page cost ~10 ms, as much as the extraction.
_HINT_WORDS = ("katex", "mathjax", "mjx", "mwe-math", "math/", "<math", ":math", "asciimath", "am_")
_CLASS_MATH = re.compile(r"class\s*=\s*[\"']?[^\"'>]*\bmath\b")
_IMG_TAG = re.compile(r"<img\b[^>]*>")
_IMG_HINT = re.compile(r"(?:src|class)\s*=\s*(?:\"[^\"]*|'[^']*|[^\s>]*)(?:tex|chl=|mwe-math|equation|formula)")


def math_hint(html: str) -> bool:
    """True when the page may hold maths markup that rewrite_math handles (never misses one)."""
    low = html.lower()
    if any(w in low for w in _HINT_WORDS):
        return True
    if "math" in low and _CLASS_MATH.search(low):
        return True
    return "<img" in low and any(_IMG_HINT.search(m.group(0)) for m in _IMG_TAG.finditer(low))


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

            from ..mathhtml import rewrite_math

            lxml_tree = load_html(html)
            if lxml_tree is not None:
                kinds = set(rewrite_math(lxml_tree, html))
                if kinds:
                    html = tostring(lxml_tree, encoding="unicode")
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
        text = _CONTROL.sub("", text)
        title = " ".join(_CONTROL.sub("", tree.title or "").split())

        def engines():
            if lxml_tree is None:
                return set()
            from ..mathhtml import engine_loaded

            return engine_loaded(lxml_tree)

        return finish_text(text, title, kinds, engines)
