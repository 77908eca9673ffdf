"""Code blocks and tables as Markdown, rewritten in the parsed page before the main-text extractor.

Main-text extractors flatten a ``<pre>`` into lines and a ``<table>`` into cells separated by tabs
or spaces: the code's extent and the table's rows and columns are lost.  Before extraction:

- every outermost ``<pre>``, and every ``<code>`` whose text spans lines outside a ``<pre>``,
  becomes a ``<pre>`` holding a fenced block: ```` ```lang ```` (the language when the element
  or its ``<code>`` child names one in its class: ``language-python``, ``lang-js``,
  ``brush: cpp``, ``highlight-source-r``, ``sourceCode python``), the code's text, ```` ``` ````;
- a paragraph that is one ``<code>`` element and nothing else (``<p><code>PrimeQ[83^27 + 1]</code></p>``:
  the page sets the code apart as a block) becomes a fenced block as well;
- every other ``<code>`` (one line) is written `` `code` ``, as Markdown writes inline code;
- every data table (no table or ``<pre>`` inside it, 2+ rows with text, at most ``MAX_CELL_CHARS``
  characters a cell: layout tables are left alone, a data table inside one is converted) becomes a
  ``<pre>`` holding a pipe table: its first row as the header, a ``|---|`` separator, one line a
  row; ``|`` inside a cell written ``\\|``, line breaks in a cell as spaces.  A data table with a
  cell spanning rows or columns (``colspan``/``rowspan`` over 1) cannot be a pipe table (its
  cells would shift under the wrong headers): it is written as one line of plain HTML instead
  (``<table>``, ``<tr>``, ``<th>``/``<td>`` with only their spans, cell text escaped), as
  Markdown allows and as the benchmark's ground truth writes such tables.

:func:`markdown_blocks_html` does it on the HTML source (for resiliparse, before lexbor parses it),
:func:`markdown_blocks_lxml` on an lxml tree (trafilatura's).
"""
from __future__ import annotations

import html as htmllib
import re
import textwrap
from typing import Callable

MAX_CELL_CHARS = 400
_DONE = "data-cp-markdown"   # marks the <pre> elements written here
_LANG = re.compile(r"(?:^|\s)(?:language|lang|brush:|highlight-source|highlight|sourceCode|syntax)[-_:\s]?"
                   r"([A-Za-z][\w+#.-]{0,20})", re.I)
_NOT_LANG = {"none", "plain", "plaintext", "text", "txt", "nohighlight", "code", "block", "default", "auto",
             "source", "sourcecode", "hljs", "wrap", "line", "numbers"}


def language(*classes: str) -> str:
    """The programming language a ``class`` attribute names ('' when none)."""
    for cls in classes:
        if not cls:
            continue
        for m in _LANG.finditer(cls):
            lang = m.group(1).lower().rstrip(".-")
            if lang not in _NOT_LANG:
                return lang
    return ""


def fenced(code: str, lang: str = "") -> str:
    """``code`` as a fenced block; the indentation all its lines share is the page source's layout
    (a ``<pre>`` indented with the HTML around it), not the code's, and is taken off."""
    code = textwrap.dedent(code.strip("\n"))
    fence = "````" if "```" in code else "```"
    return f"{fence}{lang}\n{code}\n{fence}"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def pipe_table(rows: list) -> str:
    """Rows of cell texts -> a Markdown pipe table (short rows padded)."""
    width = max(len(r) for r in rows)
    lines = []
    for i, r in enumerate(rows):
        cells = [_cell(c) for c in r] + [""] * (width - len(r))
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + "---|" * width)
    return "\n".join(lines)


def html_table(rows: list, spans: list) -> str:
    """Rows of cell texts and their (tag, colspan, rowspan) -> a one-line HTML table."""
    out = ["<table>"]
    for r, sp in zip(rows, spans):
        out.append("<tr>")
        for text, (tag, colspan, rowspan) in zip(r, sp):
            attrs = (f' colspan="{colspan}"' if colspan > 1 else "") + (f' rowspan="{rowspan}"' if rowspan > 1 else "")
            out.append(f"<{tag}{attrs}>{htmllib.escape(' '.join(text.split()), quote=False)}</{tag}>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def table_markdown(rows_cells, spans) -> str | None:
    """A data table as a pipe table, or as HTML when a cell spans (None: a layout table).
    ``spans``: per row, per cell, (tag, colspan, rowspan)."""
    kept = _table_rows(rows_cells)
    if kept is None:
        return None
    rows, keep = kept
    sp = [spans[i] for i in keep]
    if any(c > 1 or r > 1 for row in sp for _, c, r in row):
        return html_table(rows, sp)
    return pipe_table(rows)


def _span(attrs: str, name: str) -> int:
    m = re.search(name + r"""\s*=\s*["']?\s*(\d{1,4})""", attrs, re.I) if name in attrs.lower() else None
    return max(1, int(m.group(1))) if m else 1


def _table_rows(rows_cells) -> tuple | None:
    """([[cell text]], indexes of the rows kept) of a table, or None when it is a layout table."""
    rows, keep = [], []
    n_cells = 0
    for i, cells in enumerate(rows_cells):
        texts = []
        for c in cells:
            if len(c) > MAX_CELL_CHARS:
                return None
            texts.append(c)
        if texts and any(t.strip() for t in texts):
            rows.append(texts)
            keep.append(i)
            n_cells += len(texts)
    # one row is no data table (no header over data): it is a layout row, a post's signature or a
    # toolbar, whose cells the extractor judges one by one (resiliparse drops a "user-info" <div>);
    # as a <pre> it would be kept whole
    if n_cells < 2 or len(rows) < 2:
        return None
    return rows, keep


# ---------------------------------------------------------------------------
# resiliparse: on the HTML source, before lexbor parses it
#
# Iterating a resiliparse DOM collection (query_selector_all) costs time quadratic in its length
# (645 <code> elements: 1.5 s; 3,000: 85 s), and a Python walk over lexbor nodes costs ~7 us a node
# (20 ms on a mean page, 10x resiliparse's whole extraction): the blocks are found with regular
# expressions on the source instead (C speed, well under a millisecond on a mean page).

_PRE_RE = re.compile(r"<pre\b([^>]*)>(.*?)</pre\s*>", re.I | re.S)
_CODE_RE = re.compile(r"<code\b([^>]*)>(.*?)</code\s*>", re.I | re.S)
_TABLE_TAG_RE = re.compile(r"<(/?)table\b[^>]*>", re.I)
_TR_SPLIT = re.compile(r"<tr\b[^>]*>", re.I)
_CELL_RE = re.compile(r"<(t[dh])\b([^>]*)>(.*?)(?=<t[dh]\b|</tr\b|$)", re.I | re.S)
_JUNK_RE = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>|<!--.*?-->", re.I | re.S)
_BR_RE = re.compile(r"<br\b[^>]*>", re.I)
_TAG_RE = re.compile(r"<[^>]*>")
_CLASS_RE = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)


def _html_text(fragment: str) -> str:
    if "<" in fragment:
        if "<s" in fragment or "<n" in fragment or "<t" in fragment or "<!" in fragment or "<S" in fragment:
            fragment = _JUNK_RE.sub("", fragment)
        if "<br" in fragment or "<BR" in fragment:
            fragment = _BR_RE.sub("\n", fragment)
        fragment = _TAG_RE.sub("", fragment)
    if "&" in fragment:

        fragment = htmllib.unescape(fragment)
    return fragment


def _class(attrs: str) -> str:
    m = _CLASS_RE.search(attrs or "")
    return next((g for g in m.groups() if g), "") if m else ""


def _pre_html(text: str) -> str:

    # the parser drops a newline right after <pre>: one more keeps the block on its own lines
    return f'<pre {_DONE}="1">\n\n{htmllib.escape(text, quote=False)}\n</pre>'


_BLOCK_TAG = re.compile(r"</?(pre|table|code)\b", re.I)


def _block_tags(html: str) -> set:
    """Which of ``pre``, ``table`` and ``code`` have a start or end tag in ``html``: one scan of the
    page (each regular expression's own search costs ~0.14 ms on a mean page of 150 KB)."""
    found: set = set()
    for m in _BLOCK_TAG.finditer(html):
        found.add(m.group(1).lower())
        if len(found) == 3:
            break
    return found


def markdown_blocks_html(html: str) -> str:
    """Code blocks and data tables of an HTML source rewritten as Markdown ``<pre>`` blocks
    (for resiliparse, before it parses the page); inline code gets its backticks; quotes that
    repeat the page's earlier text dropped (:func:`drop_repeated_quotes_html`)."""
    html = drop_repeated_quotes_html(html)
    tags = _block_tags(html)
    if "table" in tags:
        html = _tables_sub(html)
    if "pre" in tags:
        html = _PRE_RE.sub(_pre_sub, html)
    if "code" in tags and _CODE_RE.search(html) is not None:
        if "<div" in html or "<DIV" in html:
            html = _code_lines(html)
        if "<p" in html or "<P" in html:
            html = _CODE_PARA_RE.sub(_code_para_sub, html)
        html = _CODE_RE.sub(_code_sub, html)
    return html


# two or more <div> lines in a row whose text is all inside <code> elements (spaces and wrapping
# tags aside): a highlighter's code listing (SyntaxHighlighter and its kind write one <div> a source
# line, one <code> a token), one code block, not a string of inline code spans
_LINE_START = re.compile(r"<div\b[^>]*>(?:\s|&nbsp;|&#160;|<span\b[^>]*>)*<code\b", re.I)
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>", re.I)
_CODE_ELEMENT_RE = re.compile(r"<code\b[^>]*>.*?</code\s*>", re.I | re.S)
_SPACES = re.compile(r"(?:\s|&nbsp;|&#160;|&#xa0;)+", re.I)


def _code_only(inner: str) -> bool:
    if "<code" not in inner and "<CODE" not in inner:
        return False
    rest = _TAG_RE.sub("", _CODE_ELEMENT_RE.sub("", inner))
    return not rest or _SPACES.fullmatch(rest) is not None


def _code_lines(html: str) -> str:
    """Runs of 2+ <div> lines in a row (only blanks between them) whose text is all inside <code>
    elements become one fenced block each.  The lines are found from their start (a <div> whose
    first content is a <code>, C-speed regex), each ending at the next div tag, which must close it."""
    lines = []   # (start, end, inner) of code-only lines
    for m in _LINE_START.finditer(html):
        t = _DIV_TAG.search(html, m.end())
        if t is None or not t.group(1):
            continue
        inner = html[html.find(">", m.start()) + 1:t.start()]
        if _code_only(inner):
            lines.append((m.start(), t.end(), inner))
    if len(lines) < 2:
        return html
    out, last, i = [], 0, 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and not html[lines[j - 1][1]:lines[j][0]].strip():
            j += 1
        if j - i >= 2 and lines[i][0] >= last:
            code = [_html_text(inner).replace("\xa0", " ").rstrip() for _, _, inner in lines[i:j]]
            if any(c.strip() for c in code):
                out += [html[last:lines[i][0]], _pre_html(fenced("\n".join(code)))]
                last = lines[j - 1][1]
        i = j
    if not out:
        return html
    out.append(html[last:])
    return "".join(out)


# a paragraph that is one <code> element and nothing else: the page sets the code apart as a block
_CODE_PARA_RE = re.compile(r"<p\b[^>]*>\s*<code\b([^>]*)>((?:(?!</?code\b|</?p\b).)*)</code\s*>\s*</p\s*>",
                           re.I | re.S)


def _code_para_sub(m) -> str:
    text = _html_text(m.group(2))
    if not text.strip():
        return m.group(0)
    return _pre_html(fenced(text, language(_class(m.group(1)))))


# ---------------------------------------------------------------------------
# quotes that repeat the page: a forum reply quoting an earlier post

QUOTE_REPEAT_SHARE = 0.7     # of a quote's lines' characters found earlier on the page
QUOTE_MIN_CHARS = 40         # repeated characters at least (a short "yes" quote is no duplicate)
QUOTE_LINE_MIN = 12          # lines shorter than this (a date, "Wrote:") are not tested
QUOTE_MAX_TESTS = 300        # quotes tested a page (each test searches the text before it): the rest kept
_QUOTE_OPEN = re.compile(r"<(blockquote)\b[^>]*>|<(div)\b[^>]*?\bclass\s*=\s*[\"']?[^\"'>]*?(?<![a-z])quote(?![a-z])[^>]*>",
                         re.I)
_CITE_RE = re.compile(r"<cite\b.*?</cite\s*>", re.I | re.S)
_ANY_TAG = re.compile(r"<[^>]*>")


def _lines(fragment: str) -> list:
    """Normalised text lines of an HTML fragment (every tag a line break; script/style dropped)."""
    if "<" in fragment:
        fragment = _ANY_TAG.sub("\n", _JUNK_RE.sub("", fragment))
    if "&" in fragment:
        fragment = htmllib.unescape(fragment)
    return [" ".join(ln.split()) for ln in fragment.split("\n") if ln.strip()]


def repeats_page(quote_lines: list, prior: Callable[[], str]) -> bool:
    """True when a quote's text is (mostly) text the page already holds: ``QUOTE_REPEAT_SHARE`` of
    the characters of its lines of ``QUOTE_LINE_MIN``+ characters are in the earlier text ``prior()``,
    and at least ``QUOTE_MIN_CHARS`` of them.  ``prior`` is called only for a quote with that many
    characters in such lines (most quotes, and most pages' only one, are too short to count)."""
    tested = [ln for ln in quote_lines if len(ln) >= QUOTE_LINE_MIN]
    total = sum(len(ln) for ln in tested)
    if total < QUOTE_MIN_CHARS:
        return False
    earlier = prior()
    found = sum(len(ln) for ln in tested if ln in earlier)
    return found >= QUOTE_MIN_CHARS and found >= QUOTE_REPEAT_SHARE * total


def _element_end(html: str, tag: str, start: int) -> int:
    """End of the element whose start tag begins at ``start`` (nested same tags counted; -1: unclosed)."""
    depth = 0
    for m in re.finditer(r"<(/?)" + tag + r"\b[^>]*>", html[start:], re.I):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return start + m.end()
    return -1


def _find_all(html: str, word: str) -> list:
    out, i = [], html.find(word)
    while i >= 0:
        out.append(i)
        i = html.find(word, i + 1)
    return out


class _Quotes:
    """The quote start tags of a page in order (matches of :data:`_QUOTE_OPEN`), found from the
    occurrences of "uote" and "UOTE" (str.find), each checked at the start of its tag: the regular
    expression alone, tried at every "<" of a page, cost 0.4 ms a page."""

    def __init__(self, html: str):
        self.html, self.hits, self.k = html, sorted(_find_all(html, "uote") + _find_all(html, "UOTE")), 0

    def next(self, pos: int):
        html, hits = self.html, self.hits
        while self.k < len(hits):
            i = hits[self.k]
            self.k += 1
            if i < pos:
                continue
            lt = html.rfind("<", pos, i)
            if lt >= 0 and html.find(">", lt, i) < 0:
                m = _QUOTE_OPEN.match(html, lt)
                if m is not None:
                    return m
        return None

    def span(self, pos: int):
        """(start, end of the start tag, end) of the next whole quote element, or None (none left, or
        one left unclosed)."""
        m = self.next(pos)
        if m is None:
            return None
        end = _element_end(self.html, m.group(1) or m.group(2), m.start())
        return None if end < 0 else (m.start(), m.end(), end)


def _without_nested_quotes(quote: str) -> str:
    """A quote element's own markup: the quote elements inside it cut out."""
    out, pos, quotes = [], 0, _Quotes(quote)
    while True:
        sp = quotes.span(pos)
        if sp is None:
            break
        out.append(quote[pos:sp[0]])
        pos = sp[2]
    out.append(quote[pos:])
    return "".join(out)


def drop_repeated_quotes_html(html: str) -> str:
    """Quotes (``<blockquote>``, an element whose class names a quote: ``bbcode_quote``,
    ``mycode_quote``) whose text repeats text found earlier on the page dropped: a forum reply
    quoting an earlier post of the thread holds that post a second time, a within-page duplicate.
    A quote is judged on its own text (its ``<cite>`` author line and the quotes nested in it left
    out); one that is kept is searched for nested quotes in turn (a forum post written as a
    ``<blockquote>`` keeps its reply and loses the quote inside it).  Quotes of text that is not
    on the page before them (another thread, a book) are kept."""
    quotes = _Quotes(html)
    if not quotes.hits:         # no "uote" nor "UOTE" (blockquote, a *quote* class): nothing to test
        return html
    body = html.find("<body")
    out, last, pos = [], 0, max(body, 0)   # the <head> holds no page text
    prior = ""
    pending = []      # the spans of page text before the quotes tested so far, not yet in ``prior``

    def earlier_text() -> str:
        nonlocal prior
        prior += "".join("\n" + "\n".join(_lines(html[a:b])) for a, b in pending)
        pending.clear()
        return prior

    for _ in range(QUOTE_MAX_TESTS):
        sp = quotes.span(pos)
        if sp is None:
            break
        start, tag_end, end = sp
        pending.append((pos, start))
        own = _lines(_CITE_RE.sub("", _without_nested_quotes(html[tag_end:end])))
        if repeats_page(own, earlier_text):
            out.append(html[last:start])
            last = pos = end
        else:
            pos = tag_end   # kept: its text becomes prior text as the search goes on inside it
    if not out:
        return html
    out.append(html[last:])
    return "".join(out)


def _tables_sub(html: str) -> str:
    """Every innermost table (no table inside it) that is a data table, as a pipe table."""
    out, last, open_at = [], 0, None
    for m in _TABLE_TAG_RE.finditer(html):
        if not m.group(1):
            open_at = m
            continue
        if open_at is None:
            continue
        start, inner = open_at.start(), html[open_at.end():m.start()]
        open_at = None
        if "<pre" in inner or "<PRE" in inner:
            continue
        raw = [_CELL_RE.findall(row) for row in _TR_SPLIT.split(inner)[1:]]
        # a cell holding a page's worth of markup is layout: rejected before any text is computed
        if not raw or any(len(c[2]) > 20 * MAX_CELL_CHARS for r in raw for c in r):
            continue
        md = table_markdown([[_html_text(c[2]) for c in r] for r in raw],
                            [[(t.lower(), _span(a, "colspan"), _span(a, "rowspan")) for t, a, _ in r] for r in raw])
        if md is None:
            continue
        out += [html[last:start], _pre_html(md)]
        last = m.end()
    if not out:
        return html
    out.append(html[last:])
    return "".join(out)


def _pre_sub(m) -> str:
    if _DONE in m.group(1):
        return m.group(0)
    inner = m.group(2)
    text = _html_text(inner)
    if not text.strip():
        return m.group(0)
    code = _CODE_RE.search(inner)
    return _pre_html(fenced(text, language(_class(m.group(1)), _class(code.group(1)) if code else "")))


def _code_sub(m) -> str:
    inner = m.group(2)
    if _DONE in inner:
        return m.group(0)
    text = _html_text(inner)
    if "\n" in text.strip("\n"):
        return _pre_html(fenced(text, language(_class(m.group(1)))))
    if text.strip() and "`" not in text:
        return f"<code{m.group(1)}>`{inner.strip()}`</code>"
    return m.group(0)


_FENCE_BLOCK = re.compile(r"^(`{3,4})[^\n]*\n[\s\S]*?\n\1[ \t]*$", re.M)
_BULLET = re.compile(r"^[ \t]*[•◦▪‣·][ \t]+", re.M)
_INDENT = re.compile(r"^[ \t]+", re.M)
_BLANKS = re.compile(r"\n{3,}")


def tidy_text(text: str) -> str:
    """resiliparse's plain text as Markdown lines: outside fenced blocks, list bullets as ``- `` and no
    indentation (an indented line would read as an indented code block), at most one blank line."""
    if "\n" not in text:
        return text

    def tidy(part: str) -> str:
        return _BLANKS.sub("\n\n", _INDENT.sub("", _BULLET.sub("- ", part)))

    if "```" not in text:
        return tidy(text)
    out, last = [], 0
    for m in _FENCE_BLOCK.finditer(text):
        out += [tidy(text[last:m.start()]), m.group(0)]
        last = m.end()
    out.append(tidy(text[last:]))
    return "".join(out)


# ---------------------------------------------------------------------------
# lxml

_NO_TEXT = {"script", "style", "noscript", "template"}


def _lxml_text(el) -> str:
    """The text of ``el`` (``<br>`` as a newline; script and style text left out)."""
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and child.tag not in _NO_TEXT:
            if child.tag == "br":
                parts.append("\n")
            parts.append(_lxml_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _lxml_replace_with_pre(el, text: str) -> None:
    parent = el.getparent()
    if parent is None:
        return
    pre = el.makeelement("pre", {_DONE: "1"})
    pre.text = "\n" + text + "\n"
    pre.tail = el.tail
    parent.replace(el, pre)


def markdown_blocks_lxml(tree, tables: bool = True, inline_code: bool = True) -> int:
    """Code blocks and data tables of an lxml tree rewritten as Markdown (in place)."""
    n = 0
    for table in list(tree.iter("table")) if tables else ():
        if table.getparent() is None or any(a.tag == "table" for a in table.iterancestors()):
            continue
        if next(table.iter("pre"), None) is not None or \
                any(t is not table for t in table.iter("table")):
            continue
        trs = [list(tr.iter("td", "th")) for tr in table.iter("tr")]
        md = table_markdown([[_lxml_text(c) for c in r] for r in trs],
                            [[(c.tag, _span(f'colspan="{c.get("colspan", "")}"', "colspan"),
                               _span(f'rowspan="{c.get("rowspan", "")}"', "rowspan")) for c in r] for r in trs])
        if md is None:
            continue
        _lxml_replace_with_pre(table, md)
        n += 1
    for pre in list(tree.iter("pre")):
        if pre.getparent() is None or any(a.tag == "pre" for a in pre.iterancestors()):
            continue
        if pre.get(_DONE):
            continue
        text = _lxml_text(pre)
        if not text.strip():
            continue
        code = next(pre.iter("code"), None)
        lang = language(pre.get("class") or "", (code.get("class") or "") if code is not None else "")
        for child in list(pre):
            pre.remove(child)
        pre.text = "\n" + fenced(text, lang) + "\n"
        n += 1
    n += _lxml_code_lines(tree)
    for code in list(tree.iter("code")):
        if code.getparent() is None or any(a.tag in ("pre", "code") for a in code.iterancestors()):
            continue
        text = _lxml_text(code)
        parent = code.getparent()
        if parent.tag == "p" and len(parent) == 1 and text.strip() and not (parent.text or "").strip() \
                and not (code.tail or "").strip():   # a paragraph that is one code element: a block
            _lxml_replace_with_pre(parent, fenced(text, language(code.get("class") or "")))
            n += 1
            continue
        if "\n" not in text.strip("\n"):
            if inline_code and text.strip() and "`" not in text:
                for child in list(code):
                    code.remove(child)
                code.text = "`" + text.strip() + "`"   # inline code, as Markdown writes it
            continue
        _lxml_replace_with_pre(code, fenced(text, language(code.get("class") or "")))
        n += 1
    return n


_BLANK = " \t\r\n\xa0"


def _lxml_code_only(div) -> bool:
    """True when all the text of ``div`` is inside <code> elements (spaces aside) and it has one."""
    found = []

    def ok(el) -> bool:
        if (el.text or "").strip(_BLANK):
            return False
        for c in el:
            if c.tag == "code":
                found.append(c)
            elif not isinstance(c.tag, str) or c.tag in _NO_TEXT:
                pass
            elif c.tag == "div" or not ok(c):
                return False
            if (c.tail or "").strip(_BLANK):
                return False
        return True

    return ok(div) and bool(found)


def _lxml_code_lines(tree) -> int:
    """Runs of 2+ sibling <div> lines whose text is all in <code> elements (a highlighter's listing,
    as :func:`_code_lines` on the source) become one fenced block."""
    parents = []
    for code in tree.iter("code"):
        div = next((a for a in code.iterancestors() if a.tag in ("div", "pre")), None)
        if div is not None and div.tag == "div" and div.getparent() is not None and div.getparent() not in parents:
            parents.append(div.getparent())
    n = 0
    for parent in parents:
        kids = list(parent)
        i = 0
        while i < len(kids):
            j = i
            while j < len(kids) and kids[j].tag == "div" and _lxml_code_only(kids[j]) and \
                    (j == i or not (kids[j - 1].tail or "").strip(_BLANK)):
                j += 1
            if j - i >= 2:
                code = "\n".join(_lxml_text(k).replace("\xa0", " ").rstrip() for k in kids[i:j])
                kids[i].tail = kids[j - 1].tail   # the text after the listing stays
                for k in kids[i + 1:j]:
                    parent.remove(k)
                _lxml_replace_with_pre(kids[i], fenced(code))
                n += 1
            i = max(j, i + 1)
    return n
