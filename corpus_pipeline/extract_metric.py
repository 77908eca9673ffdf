"""Extraction scored per content type against Markdown ground truth (pure): WebMainBench's metric.

WebMainBench (opendatalab, Apache-2.0; the benchmark behind MinerU-HTML, successor of the
llm-webkit benchmark whose pages are in ``html/llm_webkit_bench``) scores an extractor's
Markdown against a human-made Markdown ground truth with one normalised edit similarity
per content type.  This module re-implements those definitions from the benchmark's public
description and behaviour (no code taken from it):

- **edit similarity** of two strings: ``1 - levenshtein(a, b) / max(len(a), len(b))``; when
  both are empty the page is *not scored* for that type (``None``), so each type's mean runs
  over the pages where the prediction or the ground truth has that content (a prediction with
  code where the truth has none scores 0 for code);
- ``text_edit``: similarity of the whole Markdown texts (the benchmark compares the full
  texts, formulas, code and tables included);
- ``formula_edit``: the formulas of each side, found outside code (fenced blocks and
  `` `inline` `` code removed first) by ``$$..$$``, ``\\[..\\]``, ``$..$``, ``\\(..\\)`` (not
  after a backslash), taken in that order of patterns, each stripped, joined by newlines;
- ``code_edit``: the bodies of fenced blocks (the lines between the fence lines) and of
  indented blocks (after a blank stretch, two or more lines starting with 4+ spaces or tabs,
  not a list or money; nothing required after the block, and a block one empty line below
  another is not found: the benchmark's pattern behaves so), joined by newlines;
- ``table_edit``: the tables (outermost ``<table>`` elements of the text with its code removed,
  re-serialised as Python's html.parser reads them through BeautifulSoup: minimal escaping,
  ``<br/>``, whitespace-only strings as one space or newline; then pipe tables: runs of lines
  holding ``|`` whose second line is a ``---`` separator) joined by newlines and normalised to
  one HTML string (the pipe lines as an HTML table when no ``<table>`` is there, else the joined
  text as it stands): the similarity of those two strings, markup included (as the benchmark
  computes it, not of the cell texts);
- ``table_teds``: TEDS on the first table of the same normalised strings: ``1 - tree_edit_distance / max(nodes)``,
  nodes labelled by tag and text (renaming costs 1 across tags, else the normalised edit
  distance of the texts; tbody/thead/tfoot flattened).  The benchmark's published
  implementation falls back to the node-count difference (it passes its bracket strings to a
  tree library that expects node objects); this one computes the tree edit distance
  (Zhang-Shasha), and uses the node-count difference only above ``TEDS_MAX_NODES``;
- ``overall``: the mean of the five per-type means.

:func:`score_page` scores one page, :func:`aggregate` averages pages.  Used by
``python -m bench extract_quality`` and ``tests/test_extraction_quality.py``.
"""
from __future__ import annotations

from html.parser import HTMLParser

import re

from rapidfuzz.distance import Levenshtein

METRICS = ("text_edit", "formula_edit", "code_edit", "table_edit", "table_teds")
TEDS_MAX_NODES = 800

_FENCED = re.compile(r"```[\s\S]*?```")
_INLINE_CODE = re.compile(r"`[^`]*`")
_FORMULA_PATTERNS = (
    re.compile(r"(?<!\\)\$\$(.*?)(?<!\\)\$\$", re.S),
    re.compile(r"(?<!\\)\\\[(.*?)(?<!\\)\\\]", re.S),
    re.compile(r"(?<!\\)\$(.*?)(?<!\\)\$", re.S),
    re.compile(r"(?<!\\)\\\((.*?)(?<!\\)\\\)", re.S),
)
# An indented block as the benchmark finds it: a line break, whitespace (blank lines), a line break,
# then two or more lines each starting with 4+ spaces or with tabs.  Its pattern ends in a look-ahead
# for a blank line or a line end, which the last line always meets by leaving its own line break
# out, so nothing is required after the block; when the line after it is empty, the block takes its
# line break along, and an indented block one empty line further down is then not found (searches
# do not overlap).  Whitespace-only lines before the block belong to the blank lines.
_INDENTED_BLOCK = re.compile(r"""
    \n \s* \n                        # a blank stretch before the block
    (                                   # the block:
      (?: (?: \x20{4,} | \t+ ) [^\n]* (?: \n | $ ) ){2,}   # 2+ indented lines, line break optional
    )
    (?= \n \s* \n | $ )              # a blank stretch or a line end next
""", re.M | re.X)
_NOT_CODE_LINE = re.compile(r"^[-•*]\s|^\d+\.\s|\$[\d,]|\b(?:million|billion|thousand)\b", re.I)
_MD_SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")
_MD_SEPARATOR_LINE = re.compile(r"^[\s|\-:]+$")
_TABLE_TAG = re.compile(r"<(/?)table\b[^>]*>", re.I)


def edit_similarity(pred: str, truth: str):
    """``1 - distance / longer length``; None when both are empty (not scored)."""
    longest = max(len(pred), len(truth))
    if longest == 0:
        return None
    return 1.0 - Levenshtein.distance(pred, truth) / longest


# ---------------------------------------------------------------------------
# content types in Markdown

def code_blocks(md: str) -> list:
    out = []
    for m in _FENCED.finditer(md):
        body = "\n".join(m.group(0).split("\n")[1:-1])
        if body:
            out.append(body)
    for m in _INDENTED_BLOCK.finditer(md):
        body_lines = [ln for ln in m.group(1).split("\n") if ln.strip()]
        if len(body_lines) < 2 or any(_NOT_CODE_LINE.search(ln.strip()) for ln in body_lines):
            continue
        out.append("\n".join(ln[4:] if ln.startswith("    ") else ln[1:] for ln in body_lines))
    return out


def formulas(md: str) -> list:
    text = _INLINE_CODE.sub("", _FENCED.sub("", md))
    out = []
    for pat in _FORMULA_PATTERNS:
        for m in pat.finditer(text):
            body = m.group(1).strip()
            if body:
                out.append(body)
    return out


def _html_tables(md: str) -> list:
    """The outermost <table> elements of the text with its code removed, re-serialised."""
    text = _INLINE_CODE.sub("", _FENCED.sub("", md))
    if "<table" not in text.lower():
        return []
    return [t.html() for t in _parse_html(text).iter("table")
            if not any(a.tag in _TABLE_PARENTS for a in t.ancestors())]


def _is_separator(line: str) -> bool:
    return all(not p.strip() or _MD_SEPARATOR_CELL.match(p.strip()) for p in line.split("|"))


def tables(md: str) -> list:
    out = _html_tables(md)
    run: list = []
    for line in md.split("\n") + [""]:
        if "|" in line:
            run.append(line)
            continue
        if len(run) >= 2 and _is_separator(run[1]):
            out.append("\n".join(run))
        run = []
    return out


def split_markdown(md: str) -> dict:
    """{'text', 'formula', 'code', 'table'} strings of one Markdown text, as the metric sees them."""
    md = md or ""
    return {"text": md, "formula": "\n".join(formulas(md)), "code": "\n".join(code_blocks(md)),
            "table": "\n".join(tables(md))}


# ---------------------------------------------------------------------------
# tables: a small HTML tree (the benchmark parses with Python's html.parser through BeautifulSoup)

_VOID = frozenset("area base br col embed hr img input keygen link menuitem meta param source track wbr "
                  "basefont bgsound command frame image isindex nextid spacer".split())
_LIST_ATTRS = frozenset(("class", "accesskey", "dropzone", "rel", "rev", "headers", "accept-charset",
                         "archive", "sizes", "sandbox", "for"))
_PRESERVE_WS = frozenset(("pre", "textarea"))
_RAW_TEXT = frozenset(("script", "style"))
_TABLE_PARENTS = frozenset(("td", "tr", "tbody", "table"))


class _Node:
    """An element: ``tag``, ``attrs`` [(name, value)], ``children`` (_Node, str, or ("comment", text))."""

    __slots__ = ("tag", "attrs", "children", "parent")

    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.children, self.parent = tag, attrs, [], parent

    def ancestors(self):
        p = self.parent
        while p is not None:
            yield p
            p = p.parent

    def iter(self, tag):
        """Descendant elements named ``tag``, document order."""
        for c in self.children:
            if isinstance(c, _Node):
                if c.tag == tag:
                    yield c
                yield from c.iter(tag)

    def strings(self):
        for c in self.children:
            if isinstance(c, str):
                yield c
            elif isinstance(c, _Node) and c.tag not in _RAW_TEXT:
                yield from c.strings()

    def text(self) -> str:
        """The stripped strings joined (comments and script/style left out)."""
        return "".join(s.strip() for s in self.strings())

    def html(self) -> str:
        out = []
        self._html(out, False)
        return "".join(out)

    def _html(self, out, raw):
        attrs = "".join(f" {k}={_quote_attr(v)}" for k, v in self.attrs)
        if self.tag in _VOID and not self.children:
            out.append(f"<{self.tag}{attrs}/>")
            return
        out.append(f"<{self.tag}{attrs}>")
        raw = raw or self.tag in _RAW_TEXT
        for c in self.children:
            if isinstance(c, _Node):
                c._html(out, raw)
            elif isinstance(c, str):
                out.append(c if raw else _esc(c))
            else:
                out.append(c[1])
        out.append(f"</{self.tag}>")


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _quote_attr(v: str) -> str:
    v = _esc(v)
    if '"' not in v:
        return f'"{v}"'
    if "'" not in v:
        return f"'{v}'"
    return '"' + v.replace('"', "&quot;") + '"'


def _parse_html(text: str) -> _Node:
    """A tree as Python's html.parser events build it without repairs: an end tag closes the most
    recent open element of its name (and those inside it; ignored when none is open), void elements
    close at once, whitespace-only strings outside <pre>/<textarea> become one newline or space,
    attribute values of list attributes (``class`` ...) have their whitespace collapsed."""
    root = _Node("[document]", [], None)

    class Builder(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.cur, self.data, self.closed_void = root, [], []

        def flush(self):
            if not self.data:
                return
            d = "".join(self.data)
            self.data = []
            if not d.strip(" \t\n\r\f") and not any(n.tag in _PRESERVE_WS for n in (self.cur, *self.cur.ancestors())):
                d = "\n" if "\n" in d else " "
            self.cur.children.append(d)

        def handle_starttag(self, tag, attrs, void_closes=True):
            self.flush()
            merged = {}
            for k, v in attrs:
                v = "" if v is None else v
                merged[k] = " ".join(v.split()) if k in _LIST_ATTRS else v
            node = _Node(tag, list(merged.items()), self.cur)
            self.cur.children.append(node)
            self.cur = node
            if tag in _VOID and void_closes:
                self.cur = node.parent
                self.closed_void.append(tag)

        def handle_startendtag(self, tag, attrs):
            self.handle_starttag(tag, attrs, void_closes=False)
            self.handle_endtag(tag, redundant_void=False)

        def handle_endtag(self, tag, redundant_void=True):
            if redundant_void and tag in self.closed_void:
                self.closed_void.remove(tag)
                return
            self.flush()
            n = self.cur
            while n is not root and n.tag != tag:
                n = n.parent
            if n is not root:
                self.cur = n.parent

        def handle_data(self, data):
            self.data.append(data)

        def leaf(self, kind, markup):
            """A node without children (comment, declaration, processing instruction), as written."""
            self.flush()
            self.cur.children.append((kind, markup))

        def handle_comment(self, data):
            self.leaf("comment", f"<!--{data}-->")

        def handle_decl(self, decl):
            self.leaf("decl", f"<!{decl}>")

        def unknown_decl(self, data):
            self.leaf("decl", f"<![{data}]>")

        def handle_pi(self, data):
            self.leaf("pi", f"<?{data}>")

    b = Builder()
    try:
        b.feed(text)
        b.close()
    except Exception:  # noqa: BLE001 - what was parsed so far stands
        pass
    b.flush()
    return root


def _pipe_table_html(md: str) -> str:
    """A pipe table as the benchmark's HTML: first row th, then td; cell text as it stands."""
    rows = [ln.strip() for ln in md.split("\n") if "|" in ln and ln.strip()]
    rows = [ln for ln in rows if not _MD_SEPARATOR_LINE.match(ln)]
    if not rows:
        return ""
    parts = ["<table>"]
    for i, ln in enumerate(rows):
        cells = [c.strip() for c in ln.split("|") if c.strip()]
        if cells:
            tag = "th" if i == 0 else "td"
            parts.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def normalised_html(table_text: str) -> str:
    """The string table_edit compares: the joined tables as they stand when one is HTML (the
    benchmark's behaviour: pipe tables beside an HTML one stay Markdown), else the pipe lines as one
    HTML table, else the text in one cell; "" for no table."""
    if not table_text.strip():
        return ""
    if "<table" in table_text.lower():
        return table_text
    if "|" in table_text:
        return _pipe_table_html(table_text)
    return f"<table><tr><td>{table_text}</td></tr></table>"


def normalised_table(table_text: str):
    """The first <table> of :func:`normalised_html` as a tree (None when there is none)."""
    html = normalised_html(table_text)
    if not html.strip():
        return None
    return next(_parse_html(html).iter("table"), None)


_FLATTEN = {"tbody", "thead", "tfoot"}


def _tree(el):
    """(label tag, text, children) with tbody/thead/tfoot flattened into their parent."""
    kids = []
    for c in el.children:
        if not isinstance(c, _Node):
            continue
        if c.tag in _FLATTEN:
            kids.extend(_tree(c)[2])
        else:
            kids.append(_tree(c))
    return (el.tag, el.text(), kids)


def _postorder(tree) -> tuple[list, list]:
    """Labels and leftmost-leaf indexes in post-order."""
    labels, lml = [], []

    def walk(node):
        first = None
        for k in node[2]:
            leaf = walk(k)
            if first is None:
                first = leaf
        labels.append((node[0], node[1]))
        idx = len(labels) - 1
        lml.append(idx if first is None else first)
        return lml[idx]

    walk(tree)
    return labels, lml


def _rename_cost(a, b) -> float:
    if a[0] != b[0]:
        return 1.0
    if a[1] == b[1]:
        return 0.0
    if not a[1] or not b[1]:
        return float(len(a[1] or b[1]))
    return Levenshtein.distance(a[1], b[1]) / max(len(a[1]), len(b[1]))


def tree_edit_distance(t1, t2) -> float:
    """Zhang-Shasha ordered tree edit distance (insert/delete 1, rename :func:`_rename_cost`)."""
    l1, lml1 = _postorder(t1)
    l2, lml2 = _postorder(t2)
    keys1 = sorted({max(i for i in range(len(l1)) if lml1[i] == v) for v in set(lml1)})
    keys2 = sorted({max(j for j in range(len(l2)) if lml2[j] == v) for v in set(lml2)})
    td = [[0.0] * len(l2) for _ in l1]
    for i in keys1:
        for j in keys2:
            li, lj = lml1[i], lml2[j]
            m, n = i - li + 2, j - lj + 2
            fd = [[0.0] * n for _ in range(m)]
            for x in range(1, m):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, n):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, m):
                a = li + x - 1
                for y in range(1, n):
                    b = lj + y - 1
                    if lml1[a] == li and lml2[b] == lj:
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[x - 1][y - 1] + _rename_cost(l1[a], l2[b]))
                        td[a][b] = fd[x][y]
                    else:
                        p, q = lml1[a] - li, lml2[b] - lj
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1, fd[p][q] + td[a][b])
    return td[-1][-1]


def _count(tree) -> int:
    return 1 + sum(_count(k) for k in tree[2])


def teds(pred_table, truth_table):
    """TEDS of two normalised tables; 1.0 when neither has one, 0.0 when one side has none."""
    if pred_table is None and truth_table is None:
        return 1.0
    if pred_table is None or truth_table is None:
        return 0.0
    t1, t2 = _tree(pred_table), _tree(truth_table)
    n1, n2 = _count(t1), _count(t2)
    if max(n1, n2) > TEDS_MAX_NODES:
        dist = abs(n1 - n2)
    else:
        dist = tree_edit_distance(t1, t2)
    return max(0.0, min(1.0, 1.0 - dist / max(n1, n2)))


# ---------------------------------------------------------------------------
# pages

def score_page(pred: str, truth: str) -> dict:
    """The five metrics of one page (a value is None where the page is not scored for it)."""
    p, t = split_markdown(pred or ""), split_markdown(truth or "")
    out = {
        "text_edit": edit_similarity(p["text"], t["text"]),
        "formula_edit": edit_similarity(p["formula"], t["formula"]),
        "code_edit": edit_similarity(p["code"], t["code"]),
    }
    out["table_edit"] = edit_similarity(normalised_html(p["table"]), normalised_html(t["table"]))
    out["table_teds"] = (None if out["table_edit"] is None
                         else teds(normalised_table(p["table"]), normalised_table(t["table"])))
    out["n_formulas"] = len(formulas(pred or ""))
    out["n_formulas_truth"] = len(formulas(truth or ""))
    return out


def aggregate(rows: list) -> dict:
    """Per metric: mean over the pages scored for it (and how many); ``overall``: mean of the five."""
    out = {}
    for m in METRICS:
        vals = [r[m] for r in rows if r.get(m) is not None]
        out[m] = sum(vals) / len(vals) if vals else 0.0
        out[m + "_pages"] = len(vals)
    out["overall"] = sum(out[m] for m in METRICS) / len(METRICS)
    out["pages"] = len(rows)
    return out
