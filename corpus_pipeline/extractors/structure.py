"""Code blocks and tables as Markdown, rewritten in the parsed page before the main-text extractor.

Main-text extractors flatten a ``<pre>`` into lines and a ``<table>`` into cells separated by tabs
or spaces: the code's extent and the table's rows and columns are lost.  Before extraction:

- every outermost ``<pre>``, and every ``<code>`` whose text spans lines outside a ``<pre>``,
  becomes a ``<pre>`` holding a fenced block: ```` ```lang ```` (the language when the element
  or its ``<code>`` child names one in its class: ``language-python``, ``lang-js``,
  ``brush: cpp``, ``highlight-source-r``, ``sourceCode python``), the code's text, ```` ``` ````;
- every other ``<code>`` (one line) is written `` `code` ``, as Markdown writes inline code;
- every outermost data table (no nested table or ``<pre>``, 2+ cells, at most
  ``MAX_CELL_CHARS`` characters a cell: layout tables are left alone) becomes a ``<pre>`` holding
  a pipe table: its first row as the header, a ``|---|`` separator, one line a row; ``|``
  inside a cell written ``\\|``, line breaks in a cell as spaces.

:func:`markdown_blocks_lexbor` does it on resiliparse's DOM (lexbor, C), :func:`markdown_blocks_lxml`
on an lxml tree (trafilatura's).  Both return the number of blocks rewritten.
"""
from __future__ import annotations

import re

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
    code = code.strip("\n")
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


def _table_rows(rows_cells) -> list | None:
    """[[cell text]] of a table, or None when it is a layout table."""
    rows = []
    n_cells = 0
    for cells in rows_cells:
        texts = []
        for c in cells:
            if len(c) > MAX_CELL_CHARS:
                return None
            texts.append(c)
        if texts and any(t.strip() for t in texts):
            rows.append(texts)
            n_cells += len(texts)
    if n_cells < 2:
        return None
    return rows


# ---------------------------------------------------------------------------
# resiliparse / lexbor

def _lexbor_has_ancestor(node, tags: tuple) -> bool:
    p = node.parent
    return p is not None and p.type == node.type and p.closest(", ".join(tags)) is not None


def _lexbor_replace_with_pre(tree, node, text: str) -> None:
    pre = tree.create_element("pre")
    pre.setattr(_DONE, "1")
    pre.append_child(tree.create_text_node("\n" + text + "\n"))
    node.parent.replace_child(pre, node)


def markdown_blocks_lexbor(tree) -> int:
    """Code blocks and data tables of a resiliparse ``HTMLTree`` rewritten as Markdown (in place)."""
    doc = tree.document
    n = 0
    for table in doc.query_selector_all("table"):
        if table.parent is None or _lexbor_has_ancestor(table, ("table",)):
            continue
        if table.query_selector("table, pre") is not None:
            continue
        for junk in table.query_selector_all("script, style, noscript, template"):
            junk.decompose()
        rows = _table_rows([c.text for c in tr.query_selector_all("td, th")]
                           for tr in table.query_selector_all("tr"))
        if rows is None:
            continue
        _lexbor_replace_with_pre(tree, table, pipe_table(rows))
        n += 1
    for pre in doc.query_selector_all("pre"):
        if pre.parent is None or _lexbor_has_ancestor(pre, ("pre",)):
            continue
        if pre.hasattr(_DONE):
            continue
        code = pre.query_selector("code")
        text = pre.text
        if not text.strip():
            continue
        lang = language(pre.getattr("class") or "", (code.getattr("class") or "") if code is not None else "")
        pre.text = "\n" + fenced(text, lang) + "\n"
        n += 1
    for code in doc.query_selector_all("code"):
        if code.parent is None or _lexbor_has_ancestor(code, ("pre", "code")):
            continue
        text = code.text
        if "\n" not in text.strip("\n") and code.query_selector("br") is None:
            if text.strip() and "`" not in text:
                code.text = "`" + text.strip() + "`"   # inline code, as Markdown writes it
            continue
        _lexbor_replace_with_pre(tree, code, fenced(text, language(code.getattr("class") or "")))
        n += 1
    return n


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
        rows = _table_rows([_lxml_text(c) for c in tr.iter("td", "th")] for tr in table.iter("tr"))
        if rows is None:
            continue
        _lxml_replace_with_pre(table, pipe_table(rows))
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
    for code in list(tree.iter("code")):
        if code.getparent() is None or any(a.tag in ("pre", "code") for a in code.iterancestors()):
            continue
        text = _lxml_text(code)
        if "\n" not in text.strip("\n"):
            if inline_code and text.strip() and "`" not in text:
                for child in list(code):
                    code.remove(child)
                code.text = "`" + text.strip() + "`"   # inline code, as Markdown writes it
            continue
        _lxml_replace_with_pre(code, fenced(text, language(code.get("class") or "")))
        n += 1
    return n
