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
  indented blocks (two or more lines indented by 4 spaces or a tab, a blank line before and
  after, not a list or money), joined by newlines;
- ``table_edit``: the tables (outermost ``<table>`` elements, then pipe tables: runs of lines
  holding ``|`` whose second line is a ``---`` separator) joined; normalised to one HTML
  table (the pipe lines' cells when no ``<table>`` is there, else the first ``<table>``: the
  benchmark's own behaviour), then its rows' cell texts (cells joined by a space, rows by a
  newline) compared;
- ``table_teds``: TEDS on the same normalised tables: ``1 - tree_edit_distance / max(nodes)``,
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
_INDENT = re.compile(r" {4}|\t")
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
    lines = md.split("\n")
    i = 0
    while i < len(lines):
        if not _INDENT.match(lines[i]):
            i += 1
            continue
        j = i
        while j < len(lines) and _INDENT.match(lines[j]):
            j += 1
        # a run of indented lines with a blank line before it (not the text's first line) and an
        # empty line (or the end) after it: the benchmark's regular expression, line by line
        if i >= 2 and not lines[i - 1].strip() and (j == len(lines) or lines[j] == ""):
            body_lines = [ln for ln in lines[i:j] if ln.strip()]
            if len(body_lines) >= 2 and not any(_NOT_CODE_LINE.search(ln.strip()) for ln in body_lines):
                out.append("\n".join(ln[4:] if ln.startswith("    ") else ln[1:] for ln in body_lines))
        i = j
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
    """Outermost <table>...</table> spans (an unclosed one runs to the end)."""
    out, depth, start = [], 0, 0
    for m in _TABLE_TAG.finditer(md):
        if not m.group(1):
            if depth == 0:
                start = m.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                out.append(md[start:m.end()])
    if depth:
        out.append(md[start:])
    return out


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
# tables: normalised HTML, row text, TEDS

def _pipe_table_html(md: str) -> str:
    rows = [ln.strip() for ln in md.split("\n") if "|" in ln and ln.strip()]
    rows = [ln for ln in rows if not _MD_SEPARATOR_LINE.match(ln)]
    if not rows:
        return ""
    parts = ["<table>"]
    for i, ln in enumerate(rows):
        cells = [c.strip() for c in ln.split("|") if c.strip()]
        if cells:
            tag = "th" if i == 0 else "td"
            parts.append("<tr>" + "".join(f"<{tag}>{_esc(c)}</{tag}>" for c in cells) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def normalised_table(table_text: str):
    """The lxml <table> element the metric compares (None when there is no table)."""
    if not table_text.strip():
        return None
    if "<table" in table_text.lower():
        html = table_text
    elif "|" in table_text:
        html = _pipe_table_html(table_text)
    else:
        html = f"<table><tr><td>{_esc(table_text)}</td></tr></table>"
    if not html:
        return None
    import lxml.html

    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except Exception:  # noqa: BLE001 - an unparsable table is no table
        return None
    return next(root.iter("table"), None)


def _text(el) -> str:
    return "".join(s.strip() for s in el.itertext())


def table_rows_text(table) -> str:
    if table is None:
        return ""
    rows = []
    for tr in table.iter("tr"):
        cells = [c for c in tr.iter("td", "th")]
        line = " ".join(_text(c) for c in cells)
        if line:
            rows.append(line)
    return "\n".join(rows)


_FLATTEN = {"tbody", "thead", "tfoot"}


def _tree(el):
    """(label tag, text, children) with tbody/thead/tfoot flattened into their parent."""
    kids = []
    for c in el:
        if not isinstance(c.tag, str):
            continue
        if c.tag in _FLATTEN:
            kids.extend(_tree(c)[2])
        else:
            kids.append(_tree(c))
    return (el.tag, _text(el), kids)


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
    pt, tt = normalised_table(p["table"]), normalised_table(t["table"])
    out["table_edit"] = edit_similarity(table_rows_text(pt), table_rows_text(tt))
    out["table_teds"] = None if out["table_edit"] is None else teds(pt, tt)
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
