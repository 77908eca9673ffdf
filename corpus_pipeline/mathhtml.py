"""Rewrite the maths in a parsed HTML tree as delimited TeX text (pure, lxml).

Main-text extractors (trafilatura included) delete ``<math>``, ``<script>`` and
``<img>`` and ignore unknown elements, so maths written in any of those forms
is lost.  ``rewrite_math(tree)`` runs BEFORE the extractor and replaces each
maths element by a ``<span>`` holding its TeX between ``$...$`` (inline) or
``$$...$$`` (display), keeping the page structure around it.  It handles:

- ``mathjax``: ``<script type="math/tex">`` / ``math/tex; mode=display`` (the
  MathJax v2 rendered siblings are dropped), MathJax v3 ``<mjx-container>``;
- ``katex``: ``.katex`` / ``.katex-display`` with their
  ``<annotation encoding="application/x-tex">`` (the rendered HTML is dropped);
- ``mathml``: ``<math>`` (its own TeX annotation or ``alttext`` when present,
  else converted by :mod:`corpus_pipeline.mathml`), Wikipedia's
  ``.mwe-math-element`` (MathML + fallback image) counted once;
- ``img_tex``: formula images whose ``alt`` or URL holds TeX (Wikipedia
  ``mwe-math-fallback-image``, WordPress ``latex.php?latex=``, codecogs,
  mimeTeX/mathTeX CGI, Google chart ``cht=tx``, ``class="latex|tex"``);
- ``asciimath``: on pages that load an ASCIIMath engine, `...` in the text
  (and ``<script type="math/asciimath">``) converted by
  :mod:`corpus_pipeline.asciimath`;
- raw TeX without delimiters in ``<div class="math">`` / ``<span class="math">``
  (rendered client-side), reported with the engine the page loads.

TeX already in the text between MathJax/KaTeX delimiters is left alone (it
survives extraction as text); ``detect_text_delimiters`` finds it.  Display
environments written bare in the text (``\\begin{align}..``) are put between
``$$`` when they sit in a paragraph-level element and the page loads MathJax or
KaTeX (``_environment_texts``); after extraction ``brackets_to_dollars`` writes
``\\[..\\]`` as ``$$..$$`` on such pages.

Each inserted formula is wrapped in the private-use marks ``MARK_OPEN`` /
``MARK_CLOSE`` so the caller can tell inserted maths from maths that was in
the text, then strip the marks (``strip_marks``).
"""
from __future__ import annotations

import functools
import html
import re
from urllib.parse import unquote, unquote_plus

from lxml import etree
from lxml.html import HtmlElement

from .asciimath import asciimath_to_tex
from .mathml import local_name, mathml_to_tex, tex_annotation

# printable (trafilatura drops unprintable characters) and rare: U+2045/U+2046
MARK_OPEN = "\u2045"
MARK_CLOSE = "\u2046"

MATHJAX_RENDER_CLASSES = {
    "MathJax_Preview", "MathJax", "MathJax_Display", "MathJax_SVG", "MathJax_SVG_Display",
    "MathJax_CHTML", "MathJax_MathML", "MJX_Assistive_MathML", "MathJax_PHTML", "MathJax_PlainSource",
}

# Candidates come in two groups.  Elements found by class (KaTeX, MathJax output,
# Wikipedia's maths wrapper) are searched only when the page's source mentions the
# class at all (a substring test: the class search visits every element and is the
# costly part); they come first since they may contain <math>/<img>.  Then elements
# found by tag, with lxml's C-level tag iterator, in document order.
_CLASS_HINTS = {
    "katex": "contains(@class,'katex')",
    "MathJax": "contains(@class,'MathJax')",
    "MJX": "contains(@class,'MJX')",
    "mwe-math-element": "contains(@class,'mwe-math-element')",
    # <div class="math">TeX</div> / <span class="math">: raw TeX for a client-side renderer
    'class="math': "contains(concat(' ', normalize-space(@class), ' '), ' math ')",
}
_TAGS = ("script", "math", "img", "mjx-container")
_NS_MATH = etree.XPath("//*[substring(name(), string-length(name()) - 4) = ':math']")
_ASCIIMATH_ENGINE = re.compile(r"asciimath|[=,]AM_|/AM_", re.I)
_AM_SKIP_TAGS = {"code", "pre", "script", "style", "textarea", "kbd", "samp"}
_AM_SPAN = re.compile(r"(?<!\\)`([^`]+?)(?<!\\)`")
_IMG_HINT = re.compile(r"tex|chl=|mwe-math|equation|formula", re.I)


@functools.lru_cache(maxsize=32)
def _class_xpath(tokens: tuple) -> etree.XPath:
    return etree.XPath("//*[@class and (" + " or ".join(_CLASS_HINTS[t] for t in tokens) + ")]")


def _candidates(tree, html: str | None) -> list:
    if not isinstance(html, str):
        html = None
    tokens = tuple(t for t in _CLASS_HINTS if html is None or t in html)
    out = list(_class_xpath(tokens)(tree)) if tokens else []
    for el in tree.iter(_TAGS):
        if el.tag == "img":
            if _IMG_HINT.search((el.get("src") or "") + " " + (el.get("class") or "")):
                out.append(el)
        elif el.tag == "script":
            typ = (el.get("type") or "").lower()
            if typ[:5] == "math/":
                out.append(el)
            elif _ASCIIMATH_ENGINE.search(el.get("src") or "") or (
                    "mathjax-config" in typ and _ASCIIMATH_ENGINE.search(el.text or "")):
                out.append(el)  # marks the page as written in ASCIIMath
        else:
            out.append(el)
    if html is None or ":math" in html:
        out.extend(_NS_MATH(tree))
    return out


_ENGINE_SCRIPTS = etree.XPath(
    "//script[@src and (contains(translate(@src,'MATHJAXKTE','mathjaxkte'),'mathjax')"
    " or contains(translate(@src,'MATHJAXKTE','mathjaxkte'),'katex'))]"
    " | //script[contains(@type,'mathjax-config')]"
    " | //link[contains(translate(@href,'KATE','kate'),'katex')]"
)

# TeX inside image URLs
_IMG_URL_TEX = [
    # WordPress.com / Jetpack: latex.php?latex=...&bg=...
    (re.compile(r"latex\.php\?(?:.*&)?latex=([^&]*)", re.I), unquote_plus),
    # Google chart API
    (re.compile(r"chart\?(?:.*&)?cht=tx&(?:.*&)?chl=([^&]*)", re.I), unquote_plus),
    # codecogs png.latex?TEX, gif.latex?TEX, svg.latex?TEX, and the eqneditor variants
    (re.compile(r"codecogs\.com/[^?]*?\.?latex\?(.*)$", re.I | re.S), unquote),
    # mimeTeX / mathTeX / latexrender CGI
    (re.compile(r"(?:mime|math)tex(?:\.cgi|\.exe|\.php)?\?(.*)$", re.I | re.S), unquote),
]
# "latex"/"tex" with a display or inline variant ("tex-display", "latex_inline", AoPS's "latexcenter")
_IMG_CLASS_TEX = re.compile(r"(?:^|\s)(?:(?:la)?tex(?:[-_]?(?:display|inline|block|center))?|"
                            r"mwe-math-fallback-image[\w-]*|math-?tex|"
                            r"ql-img-inline-formula|equation|formula)(?:\s|$)", re.I)
_BR = re.compile(r"<br\s*/?>", re.I)
_TEX_CMD = re.compile(r"\\[A-Za-z]+")
_TEXY = re.compile(r"\\[A-Za-z]+|[\^_{}]")
# an alt text that is one delimited formula: $..$, $$..$$, \(..\), \[..\]
_ALT_DELIMS = re.compile(r"^(?:\$\$([^$]+)\$\$|\$([^$]+)\$|\\\((.+)\\\)|\\\[(.+)\\\])$", re.S)

# $...$ with a TeX command inside, $$...$$, \(...\), \[...\], \begin{env}
_TEXT_DELIMS = re.compile(
    r"\$\$[^$]{1,4000}?\$\$"
    r"|\\\((?:(?!\\\)).){1,2000}?\\\)"
    r"|\\\[(?:(?!\\\]).){1,4000}?\\\]"
    r"|\\begin\{(?:equation|align|gather|multline|eqnarray)\*?\}"
    # $..$ must hold a TeX command (2+ letters: "\d" is a regex) or a sub/superscript
    # on a one-letter base ("x_1", "e^{..}"; "$fl_array" in code is not one)
    r"|(?<![\w$\\])\$(?=[^\s$])[^$\n]{0,300}?"
    r"(?:\\[A-Za-z]{2,}|(?<![A-Za-z]{2})[\^_](?:\{|\w(?!\w)))[^$\n]{0,300}?(?<=\S)\$(?!\w)",
    re.S,
)
_HAS_DELIMS = re.compile(r"\$|\\\(|\\\[|\\begin\{")
_MARKED = re.compile(MARK_OPEN + ".*?" + MARK_CLOSE, re.S)


def _classes(el) -> set:
    c = el.get("class")
    return set(c.split()) if c else set()


# a TeX comment (an unescaped % to the end of its line) with more TeX on a later line
_TEX_COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%[^\n]*(?=\n\s*\S)")


def clean_tex(tex: str) -> str:
    tex = _BR.sub(" ", tex)
    if "&" in tex:  # entities left in URLs (codecogs writes &space; and &plus;)
        tex = html.unescape(tex.replace("&space;", " "))
    # comments go before the line breaks collapse: joined, one would comment out the lines after it
    if "%" in tex and "\n" in tex:
        tex = _TEX_COMMENT.sub(r"\1", tex)
    tex = " ".join(tex.split())
    # a lone trailing "\\" (line break) is noise after collapsing the formula
    while tex.endswith("\\\\"):
        tex = tex[:-2].rstrip()
    # a lone trailing backslash (a control space "\\ " whose space collapsed away) would escape our
    # closing $: trailing control spaces are no content, drop them all ("a\\ \\ " -> "a")
    while tex.endswith("\\") and (len(tex) - len(tex.rstrip("\\"))) % 2:
        tex = tex[:-1].rstrip()
    # $ inside TeX would close our delimiter
    return tex.replace("$", r"\$") if "$" in tex and r"\$" not in tex else tex


def _delimited(tex: str, display: bool) -> str:
    d = "$$" if display else "$"
    return f"{MARK_OPEN}{d}{tex}{d}{MARK_CLOSE}"


def _replace(el, text: str, removed: set) -> None:
    """Put a <span> holding ``text`` where ``el`` was (its tail kept)."""
    parent = el.getparent()
    if parent is None:
        return
    span = el.makeelement("span", {})
    span.text = text
    span.tail = el.tail
    parent.replace(el, span)
    for d in el.iter():
        removed.add(d)


def _drop(el, removed: set) -> None:
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    prev = el.getprevious()
    parent.remove(el)
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    for d in el.iter():
        removed.add(d)


_HTML_BLOCKS = {"p", "div", "dl", "dd", "dt", "table", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
                "script", "style", "form", "section", "article", "pre", "blockquote", "iframe"}


def _is_broken_math(math_el) -> bool:
    """A <math> element holding page structure (an unclosed or mislabelled tag): not one formula."""
    return any(isinstance(d.tag, str) and d.tag in _HTML_BLOCKS for d in math_el.iterdescendants())


def _katex_stripped_tex(katex_el) -> str | None:
    """TeX of a KaTeX element whose MathML tags were stripped (CSDN): its ``katex-mathml`` part holds
    the MathML's text, then the annotation's TeX as the last block of text."""
    mathml = next((d for d in katex_el.iterdescendants()
                   if "katex-mathml" in (d.get("class") or "").split()), None)
    if mathml is None or len(mathml):
        return None
    blocks = [b.strip() for b in _BLANK_LINES.split(mathml.text or "") if b.strip()]
    return blocks[-1] if blocks else None


_BLANK_LINES = re.compile(r"\n[ \t\r]*\n")


def _math_tex(math_el) -> tuple[str, bool]:
    tex = tex_annotation(math_el)
    if tex is None:
        tex = mathml_to_tex(math_el)
    display = (math_el.get("display") or "").lower() == "block" or \
        (math_el.get("mode") or "").lower() == "display"
    return tex, display


def img_tex(img) -> str | None:
    """TeX held by a formula image (alt text or URL), or None for other images."""
    src = img.get("src") or ""
    alt = img.get("alt") or ""
    from_url = None
    low = src.lower()
    if src and ("tex" in low or "chl=" in low):
        for pat, dec in _IMG_URL_TEX:
            m = pat.search(src)
            if m:
                from_url = dec(m.group(1))
                break
    if from_url is not None and from_url.strip():
        tex = from_url
    else:
        cls = img.get("class") or ""
        if not (from_url is not None or (cls and _IMG_CLASS_TEX.search(cls))):
            return None
        if not alt.strip():
            return None
        # a class such as "equation" alone is weak evidence: also want TeX-looking alt
        if from_url is None and "mwe-math" not in cls and "latex" not in cls.lower() \
                and not _TEXY.search(alt):
            return None
        m = _ALT_DELIMS.match(alt.strip())   # AoPS writes alt="$x^2$": our delimiters go around it
        tex = next(g for g in m.groups() if g is not None) if m else alt
    tex = clean_tex(tex)
    return tex or None


def rewrite_math(tree: HtmlElement, html: str | None = None) -> list:
    """Replace maths elements in ``tree`` (in place); return the kinds found.

    ``html``: the page's source, if at hand; cheap substring tests on it skip
    the searches that cannot match."""
    kinds: set = set()
    removed: set = set()
    candidates = _candidates(tree, html)
    has_tex_scripts = False
    asciimath_page = False
    raw_tex_elements = False
    mathjax_render = []
    for el in candidates:
        if el in removed:
            continue
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == "script":
            typ = (el.get("type") or "").lower().replace(" ", "")
            if not typ.startswith("math/"):
                asciimath_page = True  # an ASCIIMath engine (see _candidates)
                continue
            if typ.startswith("math/asciimath"):
                tex = clean_tex(asciimath_to_tex(el.text or ""))
                kinds.add("asciimath")
                if tex:
                    _replace(el, _delimited(tex, "mode=display" in typ), removed)
                continue
            if not typ.startswith("math/tex"):
                continue  # math/mml and others: left to the extractor (dropped)
            has_tex_scripts = True
            tex = clean_tex(el.text or "")
            kinds.add("mathjax")
            if tex:
                _replace(el, _delimited(tex, "mode=display" in typ), removed)
            else:
                _drop(el, removed)
            continue
        if tag == "img":
            tex = img_tex(el)
            if tex:
                kinds.add("img_tex")
                cls = el.get("class") or ""
                _replace(el, _delimited(tex, "display" in cls or "center" in cls or "block" in cls), removed)
            continue
        if tag == "mjx-container":
            math = next((m for m in el.iter() if local_name(m) == "math"), None)
            if math is not None:
                tex, _ = _math_tex(math)
            else:
                tex = "".join(el.itertext())
            tex = clean_tex(tex)
            kinds.add("mathjax")
            display = (el.get("display") or "").lower() in ("true", "block")
            if tex:
                _replace(el, _delimited(tex, display), removed)
            else:
                _drop(el, removed)
            continue
        if local_name(el) == "math":
            if _is_broken_math(el):
                # an unclosed <math> that swallowed the page: its own text is the formula, the
                # elements it swallowed go back to the page (scripts and all, for the extractor to drop)
                tex = clean_tex(el.text or "")
                kinds.add("mathml")
                el.text = None
                if tex:
                    span = el.makeelement("span", {})
                    span.text = _delimited(tex, False)
                    el.insert(0, span)
                el.drop_tag()
                continue
            tex, display = _math_tex(el)
            tex = clean_tex(tex)
            kinds.add("mathml")
            if tex:
                _replace(el, _delimited(tex, display), removed)
            else:
                _drop(el, removed)
            continue
        cls = _classes(el)
        if "katex" in cls or "katex-display" in cls:
            math = next((m for m in el.iter() if local_name(m) == "math"), None)
            tex = None
            if math is not None:
                tex, _ = _math_tex(math)
            else:
                tex = _katex_stripped_tex(el)
            if tex is None:
                continue
            kinds.add("katex")
            tex = clean_tex(tex)
            display = "katex-display" in cls or any(
                "katex-display" in c or "katex--display" in c for c in
                ((a.get("class") or "") for a in el.iterancestors()))
            if tex:
                _replace(el, _delimited(tex, display), removed)
            continue
        if "mwe-math-element" in cls:
            math = next((m for m in el.iter() if local_name(m) == "math"), None)
            tex = tex_annotation(math) if math is not None else None
            display = any("display" in (d.get("class") or "") for d in el.iter() if d is not el)
            if tex is None:
                img = next(el.iter("img"), None)
                tex = (img.get("alt") if img is not None else None) or \
                    (mathml_to_tex(math) if math is not None else None)
            tex = clean_tex(tex or "")
            kinds.add("mathml")
            if tex:
                _replace(el, _delimited(tex, display), removed)
            continue
        if "math" in cls and (el.tag in ("div", "span", "p")) and len(el) == 0:
            raw = el.text or ""
            if _TEX_CMD.search(raw) and not _HAS_DELIMS.search(raw):
                tex = clean_tex(raw)
                if tex:
                    raw_tex_elements = True
                    _replace(el, _delimited(tex, el.tag != "span"), removed)
            continue
        if cls & MATHJAX_RENDER_CLASSES:
            mathjax_render.append(el)
    if (html is None or "\\begin{" in html) and _environment_texts(tree, removed):
        kinds |= {"tex_delimiters"} | engine_loaded(tree)
    if raw_tex_elements:
        kinds |= engine_loaded(tree) or {"tex_delimiters"}
    if asciimath_page and _asciimath_text(tree):
        kinds.add("asciimath")
    # MathJax v2 output (rendered glyphs, previews): drop it when the TeX source
    # scripts are on the page; otherwise use the assistive MathML it may carry.
    for el in mathjax_render:
        if el in removed or el.getparent() is None:
            continue
        cls = _classes(el)
        if has_tex_scripts:
            _drop(el, removed)
            continue
        if cls & {"MJX_Assistive_MathML", "MathJax_Preview"}:
            continue
        math = next((m for m in el.iter() if local_name(m) == "math"), None)
        if math is not None:
            tex, _ = _math_tex(math)
            tex = clean_tex(tex)
            kinds.add("mathjax")
            if tex:
                _replace(el, _delimited(tex, "MathJax_Display" in cls or
                                        "MathJax_SVG_Display" in cls), removed)
    return sorted(kinds)


_ENV_TEXT = etree.XPath("//text()[contains(., '\\begin{')]")
_BARE_ENV = re.compile(r"\\begin\{((?:equation|align|alignat|flalign|gather|multline|eqnarray|displaymath)\*?)\}"
                       r"[\s\S]{0,8000}?\\end\{\1\}")
# elements that hold running text: a paragraph, a list item, a cell, a quote, inline markup
_TEXT_BLOCKS = {"p", "li", "dd", "dt", "td", "th", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6",
                "span", "em", "strong", "b", "i", "u", "font", "label", "center", "a", "sup", "sub", "small"}
_NO_ENV_ANCESTORS = {"pre", "code", "script", "style", "textarea", "kbd", "samp", "noscript"}


def _environment_texts(tree, removed: set) -> int:
    """Display environments written bare (``\\begin{equation}..\\end{equation}``, align, gather,
    multline, ...; MathJax renders them without delimiters) in the text of a paragraph-level element
    (``<p>``, ``<li>``, a cell, a quote, a ``<span class="math-container">``) on a page that loads
    MathJax or KaTeX: put between ``$$`` as every other displayed formula.  Text lying loose in a
    layout container (``<div>``, ``<body>``, ``<section>``: no paragraph markup) is left as the page
    wrote it, and so is code.  Returns the number delimited."""
    found = []
    for t in _ENV_TEXT(tree):
        el = t.getparent()
        if el is None or el in removed:
            continue
        owner = el if t.is_text else el.getparent()
        if owner is None or owner.tag not in _TEXT_BLOCKS or _BARE_ENV.search(t) is None:
            continue
        if el.tag in _NO_ENV_ANCESTORS or any(a.tag in _NO_ENV_ANCESTORS for a in owner.iterancestors()):
            continue
        found.append((el, t.is_text))
    if not found or not engine_loaded(tree):
        return 0
    total = 0
    for el, is_text in found:
        text, n = _wrap_bare(el.text if is_text else el.tail)
        total += n
        if is_text:
            el.text = text
        else:
            el.tail = text
    return total


# displayed maths already delimited in a text: an environment inside it is part of that formula
_DISPLAY_SPANS = re.compile(r"\$\$[\s\S]*?\$\$|\\\[[\s\S]*?\\\]")


def _wrap_bare(text: str) -> tuple[str, int]:
    out, last, total = [], 0, 0
    for m in _DISPLAY_SPANS.finditer(text):
        part, n = _BARE_ENV.subn(_env_sub, text[last:m.start()])
        out += [part, m.group(0)]
        last, total = m.end(), total + n
    part, n = _BARE_ENV.subn(_env_sub, text[last:])
    return "".join(out) + part, total + n


def _env_sub(m) -> str:
    return _delimited(clean_tex(m.group(0)), True)


_AM_SPACING = re.compile(r"(?:\\?\s)+")


def _am_sub(m) -> str:
    if _AM_SPACING.fullmatch(m.group(1)):   # `\ \ \ ` lays out the formulas around it: a space
        return " "
    tex = clean_tex(asciimath_to_tex(m.group(1)))
    return _delimited(tex, False) if tex else m.group(0)


def _am_convert(s: str) -> tuple[str, int]:
    if "`" not in s:
        return s, 0
    s, n = _AM_SPAN.subn(_am_sub, s)
    return s.replace("\\`", "`"), n


def _asciimath_text(tree) -> int:
    """On a page rendered by an ASCIIMath engine: `...` in text -> $TeX$
    (an escaped \\` stays a literal backquote).  Returns the number converted."""
    total = 0
    body = tree.find(".//body")
    root = body if body is not None else tree
    stack = [root]
    while stack:
        el = stack.pop()
        if el.tail and el is not root:
            el.tail, n = _am_convert(el.tail)
            total += n
        if not isinstance(el.tag, str) or el.tag in _AM_SKIP_TAGS:
            continue
        if el.text:
            el.text, n = _am_convert(el.text)
            total += n
        stack.extend(el)
    return total


def engine_loaded(tree: HtmlElement) -> set:
    """Maths engines a page loads: {"mathjax", "katex"} or a subset."""
    found = set()
    for el in _ENGINE_SCRIPTS(tree):
        ref = ((el.get("src") or "") + (el.get("href") or "") + (el.get("type") or "")).lower()
        if "mathjax" in ref:
            found.add("mathjax")
        if "katex" in ref:
            found.add("katex")
    return found


def detect_text_delimiters(text: str) -> bool:
    """True when ``text`` (marks of inserted maths included) has TeX between
    delimiters that was not inserted by ``rewrite_math``."""
    if MARK_OPEN in text:
        text = _MARKED.sub(" ", text)
    return _TEXT_DELIMS.search(text) is not None


# a fenced code block (``` or ```` fences, as extractors.structure writes them) or `inline code`
_FENCE_SPLIT = re.compile(r"^(`{3,4})[^\n]*\n[\s\S]*?\n\1[ \t]*$|(?<!`)`[^`\n]+`(?!`)", re.M)
_BBCODE = re.compile(r"\[(i?tex|i?math|i?latex)\](.+?)\[/\1\]", re.S | re.I)


def bbcode_to_delimiters(text: str) -> tuple[str, int]:
    """Forum BBCode maths ([tex]..[/tex], [itex]..[/itex], [math], [latex], and the
    inline i- forms) -> $$..$$ / $..$.  Meant for pages whose MathJax/KaTeX
    configuration renders these tags.  Returns (text, number replaced)."""
    if "[/" not in text:
        return text, 0
    if "```" in text or "`[" in text:   # BBCode shown inside code (a block or `inline`) stays code
        out, total, last = [], 0, 0
        for m in _FENCE_SPLIT.finditer(text):
            part, n = bbcode_to_delimiters(text[last:m.start()])
            out += [part, m.group(0)]
            total, last = total + n, m.end()
        part, n = bbcode_to_delimiters(text[last:]) if last else (text, 0)
        if not last:   # no closed fence: nothing to keep apart
            return _BBCODE.subn(_bbcode_sub, text)
        return "".join(out) + part, total + n

    return _BBCODE.subn(_bbcode_sub, text)


def _bbcode_sub(m):
    tex = " ".join(m.group(2).split())
    if not tex:
        return m.group(0)
    d = "$" if m.group(1)[:1].lower() == "i" else "$$"
    return f"{d}{tex}{d}"


_DISPLAY_BRACKETS = re.compile(r"(?<!\\)\\\[([\s\S]{1,8000}?)(?<!\\)\\\]")


def _outside_code(text: str, sub) -> tuple[str, int]:
    """``sub(part) -> (part, n)`` applied to the parts of ``text`` outside fenced and inline code."""
    if "`" not in text:
        return sub(text)
    out, last, total = [], 0, 0
    for m in _FENCE_SPLIT.finditer(text):
        part, n = sub(text[last:m.start()])
        out += [part, m.group(0)]
        last, total = m.end(), total + n
    part, n = sub(text[last:])
    return "".join(out) + part, total + n


def brackets_to_dollars(text: str) -> tuple[str, int]:
    """Displayed formulas written ``\\[..\\]`` in the text (for MathJax/KaTeX) as ``$$..$$``, the
    delimiter every other displayed formula gets here: one display delimiter in the output, so
    that a formula reads the same whichever way the page wrote it.  ``\\\\[2pt]`` (a TeX line
    break with its spacing) and code are left alone.  Returns (text, number rewritten)."""
    if "\\[" not in text:
        return text, 0

    def sub(part):
        return _DISPLAY_BRACKETS.subn(lambda m: "$$" + m.group(1).strip() + "$$"
                                      if m.group(1).strip() else m.group(0), part)
    return _outside_code(text, sub)


def strip_marks(text: str) -> str:
    return text.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
