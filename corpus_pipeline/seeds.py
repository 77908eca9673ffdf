"""Seed corpora for the maths classifier (pure, no Spark).

* :func:`default_seed_path` / :func:`load_seed_texts`: the starter seed shipped
  in ``seeds/`` (a few hundred real maths pages, English and Chinese, rendered
  from their sites' sources with the TeX maths kept) or a small seed file read
  in this process.  A user's seed of any size (a file, folder or glob of JSONL(.gz)
  or Parquet with a ``text`` column, OpenWebMath style) is read by Spark
  (:mod:`corpus_pipeline.spark.seeds`); :func:`local_source_files`,
  :func:`source_format`, :func:`check_seed_source` and :func:`source_digest` are the
  pure parts (which files, which format, cheap checks, the run-identity digest).
* :func:`read_records` / :func:`read_texts`: the same readers for any
  JSONL/Parquet file with a ``text`` column (``train`` and ``score`` use them).
* :func:`render_markup`: source markup (LaTeX, Markdown, CNXML with MathML,
  HTML) to plain text that keeps the maths as TeX, so a classifier learns the
  maths and not the markup.  Used to build the starter seed and by tests.

A bad file raises :class:`~corpus_pipeline.errors.InputFileError` naming the
file (and the line for JSONL).
"""
from __future__ import annotations

import glob as globmod
import hashlib
import html as htmlmod
import os
import re
import sys
from pathlib import Path
from typing import Callable, Optional

from . import fs as fsmod
from .errors import InputFileError
from .jsonl import iter_jsonl  # noqa: F401 (re-exported: commands/score.py)
from .lang import detect_lang
from .packaging import project_file

SEED_FILE = "starter_seed.jsonl.gz"
_ENV = "CORPUS_PIPELINE_SEEDS"


# ---------------------------------------------------------------- locating
def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    out = []
    env = os.environ.get(_ENV)
    if env:
        out.append(Path(env))
    out += [
        here.parent / "seeds",                     # source checkout / editable install
        here / "seeds",                            # packaged inside the package
        Path(sys.prefix) / "share" / "corpus_pipeline" / "seeds",   # data-files install
    ]
    return out


def default_seed_path(name: str = SEED_FILE) -> str:
    """Path of a shipped starter seed (``seeds/<name>``; the maths one by default, a profile's
    ``seed`` otherwise).

    Looked up in ``$CORPUS_PIPELINE_SEEDS`` (a folder or the file itself), the
    ``seeds/`` folder beside the package (a checkout), inside the package,
    ``<prefix>/share/corpus_pipeline/seeds``, and the ``--py-files`` zip the package was
    imported from.
    """
    tried = []
    for c in _candidates():
        f = c if c.is_file() and name == SEED_FILE else (c.parent if c.is_file() else c) / name
        tried.append(str(f))
        if f.is_file():
            return str(f)
    try:   # imported from spark-submit's --py-files zip: the seed is a member of the zip

        return project_file("seeds/" + name)
    except (ImportError, FileNotFoundError, OSError):
        pass
    raise InputFileError(tried[0] if tried else SEED_FILE,
                         "the starter seed was not found (looked in: " + ", ".join(tried) +
                         "); pass --seed-corpus FILE or set " + _ENV)


def load_seed_texts(path: Optional[str] = None) -> list[str]:
    """Texts of a seed corpus: ``None`` = the shipped starter seed.

    Empty and whitespace-only texts are left out.  Raises InputFileError on a
    missing, unreadable or malformed file or one without a ``text`` column.
    """
    p = default_seed_path() if path is None else path
    texts = [t for t in read_texts(p) if t and t.strip()]
    if not texts:
        raise InputFileError(p, "no non-empty 'text' values: a seed corpus needs maths documents")
    return texts


def load_seed_records(path: Optional[str] = None) -> list[dict]:
    """The records of a small seed file (``None``: the starter seed) with ``text``, ``lang`` (detected
    when absent), ``url`` and ``site`` (the source repository, else the domain, else '')."""

    p = default_seed_path() if path is None else path
    out = []
    for r in read_records(p):
        t = r.get("text")
        if not t or not str(t).strip():
            continue
        out.append({"text": t, "lang": r.get("lang") or detect_lang(t), "url": r.get("url") or "",
                    "site": r.get("source_repo") or r.get("domain") or ""})
    return out


BACKGROUND_DIR = "background"


def background_path(lang: str) -> Optional[str]:
    """The shipped background set of ``lang`` (``seeds/background/<lang>.jsonl.gz``), or None."""
    name = f"{lang}.jsonl.gz"
    if not lang or "/" in lang or lang.startswith("."):
        return None
    for c in _candidates():
        d = c.parent if c.is_file() else c
        f = d / BACKGROUND_DIR / name
        if f.is_file():
            return str(f)
    try:
        return project_file(f"seeds/{BACKGROUND_DIR}/{name}")
    except (ImportError, FileNotFoundError, OSError):
        return None


def load_background(lang: str, with_sites: bool = False) -> list:
    """Texts of the background set of ``lang`` ([] when none is shipped), in file order;
    ``with_sites``: ``(text, site)`` pairs."""
    p = background_path(lang)
    if p is None:
        return []
    recs = [r for r in read_records(p) if r.get("text")]
    if with_sites:
        return [(r["text"], r.get("domain") or "") for r in recs]
    return [r["text"] for r in recs]


# ---------------------------------------------------------------- seed sources (file, folder, glob)
_JSON_EXT = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")
_PARQUET_EXT = (".parquet", ".pq")
_GLOB_CHARS = "*?["


def is_glob(source: str) -> bool:
    return any(c in str(source) for c in _GLOB_CHARS)


def _data_file(name: str) -> bool:
    base = os.path.basename(name.rstrip("/"))
    return not base.startswith((".", "_"))       # Spark's rule: _SUCCESS, .crc and hidden files are not data


def local_source_files(source: str) -> list[str]:
    """The data files of a local seed source: a file, a folder (its files, recursively,
    hidden and ``_`` files left out) or a glob.  Raises InputFileError when nothing is there."""

    p = fsmod.local_path(source)
    if is_glob(p):
        roots = sorted(globmod.glob(p))
        if not roots:
            raise InputFileError(source, "no file matches this pattern")
    elif os.path.exists(p):
        roots = [p]
    else:
        raise InputFileError(source, "file not found")
    out = []
    for r in roots:
        if os.path.isdir(r):
            for d, dirs, files in os.walk(r):
                dirs[:] = sorted(x for x in dirs if _data_file(x))
                out += [os.path.join(d, f) for f in sorted(files) if _data_file(f)]
        else:
            out.append(r)
    if not out:
        raise InputFileError(source, "no data files here")
    return out


def source_format(source: str, files: list[str]) -> str:
    """'parquet' or 'jsonl' for a seed source from its files' names; mixed or unknown
    extensions are an InputFileError naming the file."""
    kinds = set()
    for f in files:
        low = f.lower()
        if low.endswith(_PARQUET_EXT):
            kinds.add("parquet")
        elif low.endswith(_JSON_EXT):
            kinds.add("jsonl")
        elif low.rsplit("/", 1)[-1].startswith("part-") and "parquet" in low:
            kinds.add("parquet")
        else:
            raise InputFileError(f, "unknown file type in the seed corpus: expected .jsonl(.gz) or .parquet")
    if len(kinds) != 1:
        raise InputFileError(source, "mixes JSONL and Parquet files: give one kind")
    return kinds.pop()


def check_seed_source(source: str) -> None:
    """Cheap checks before any work (local sources only): it exists and its files are
    JSONL or Parquet.  Content is checked when Spark reads it."""

    if fsmod.is_local(source):
        source_format(source, local_source_files(source))


def source_digest(source: Optional[str], list_remote: Optional[Callable] = None) -> Optional[str]:
    """An identity of a seed (or labels) source for ``run.json``, without loading it whole.

    Local: SHA-1 streamed over the files in 1 MB blocks (one file: the SHA-1 of its bytes;
    several: of their relative names, sizes and bytes).  Remote (a Hadoop URI): SHA-1 of every
    file's (path, size, modification time) as ``list_remote(source)`` lists them -- reading a
    terabyte seed on an object store to hash it would cost more than the run's first
    stage, and a rewritten file changes its size or time.  Unlistable: the source name."""

    if not source:
        return None
    try:
        if fsmod.is_local(source):
            files = local_source_files(source)
            h = hashlib.sha1()
            single = len(files) == 1 and not os.path.isdir(fsmod.local_path(source)) and not is_glob(source)
            root = os.path.commonpath(files) if len(files) > 1 else os.path.dirname(files[0])
            for f in files:
                if not single:
                    h.update(f"{os.path.relpath(f, root)}\x1f{os.path.getsize(f)}\x1f".encode("utf-8"))
                with open(f, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        h.update(block)
            return h.hexdigest()[:16]
        if list_remote is None:
            return source
        h = hashlib.sha1(b"listing\x1f")
        for path, size, mtime in list_remote(source):
            h.update(f"{path}\x1f{size}\x1f{mtime}\n".encode("utf-8"))
        return h.hexdigest()[:16]
    except Exception:  # noqa: BLE001 - missing or unlistable: identify by name only
        return source


# ---------------------------------------------------------------- readers
def file_format(path: str) -> str:
    """'jsonl' or 'parquet' from the file name (a folder of Parquet files is 'parquet')."""
    low = str(path).lower().rstrip("/")
    if low.endswith((".parquet", ".pq")) or (os.path.isdir(path) and not low.endswith((".jsonl", ".json"))):
        return "parquet"
    if low.endswith((".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")):
        return "jsonl"
    raise InputFileError(path, "unknown file type: expected .jsonl, .jsonl.gz or .parquet")


def _check_text(path: str, n: int, rec: dict) -> Optional[str]:
    if "text" not in rec:
        raise InputFileError(path, "record has no 'text' field", n)
    t = rec["text"]
    if t is not None and not isinstance(t, str):
        raise InputFileError(path, f"'text' must be a string, got {type(t).__name__}", n)
    return t


def read_parquet_table(path: str, columns: Optional[list] = None):
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        raise InputFileError(path, "file not found")
    try:
        table = pq.read_table(path, columns=columns)
    except Exception as e:  # noqa: BLE001 - pyarrow raises many types for a bad file
        raise InputFileError(path, f"not a readable Parquet file: {e}") from None
    return table


def read_texts(path: str) -> list[Optional[str]]:
    """The ``text`` column of a JSONL(.gz) or Parquet file, in file order."""
    if file_format(path) == "parquet":
        import pyarrow as pa

        if not os.path.exists(path):
            raise InputFileError(path, "file not found")
        try:
            import pyarrow.parquet as pq

            schema = pq.read_schema(path) if os.path.isfile(path) else None
        except Exception as e:  # noqa: BLE001
            raise InputFileError(path, f"not a readable Parquet file: {e}") from None
        if schema is not None and "text" not in schema.names:
            raise InputFileError(path, f"no 'text' column (columns: {', '.join(schema.names)})")
        table = read_parquet_table(path, ["text"])
        if not pa.types.is_string(table.schema.field("text").type) and \
                not pa.types.is_large_string(table.schema.field("text").type):
            raise InputFileError(path, f"'text' column must be strings, is {table.schema.field('text').type}")
        return table.column("text").to_pylist()
    return [_check_text(path, n, rec) for n, rec in iter_jsonl(path)]


def read_records(path: str) -> list[dict]:
    """All records of a JSONL(.gz) or Parquet file (each must have ``text``)."""
    if file_format(path) == "parquet":
        table = read_parquet_table(path)
        if "text" not in table.schema.names:
            raise InputFileError(path, f"no 'text' column (columns: {', '.join(table.schema.names)})")
        return table.to_pylist()
    out = []
    for n, rec in iter_jsonl(path):
        _check_text(path, n, rec)
        out.append(rec)
    return out


# ---------------------------------------------------------------- markup rendering
def render_markup(text: str, fmt: str) -> str:
    """Plain text with the maths kept as TeX, from ``latex``, ``markdown``,
    ``cnxml`` (MathML converted to TeX), ``html`` or ``text`` source."""
    fmt = (fmt or "text").lower()
    if fmt == "latex":
        out = _render_latex(text)
    elif fmt == "markdown":
        out = _render_markdown(text)
    elif fmt == "cnxml":
        out = _render_xml(text, cnxml=True)
    elif fmt == "html":
        out = _render_xml(text, cnxml=False)
    else:
        out = text
    return _tidy(out)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


_LATEX_DROP_ARG = ("label", "cite", "index", "begin{reference}", "input", "include", "hypertarget")
_MATH_ENVS = r"(?:equation|align|gather|multline|eqnarray|displaymath|xymatrix|array|matrix|split)\*?"


def _render_latex(t: str) -> str:
    t = re.sub(r"(?<!\\)%.*", "", t)                                   # comments
    t = re.sub(r"\\(?:label|cite|index|input|include|hypertarget)\s*(?:\[[^\]]*\])?\{[^{}]*\}", "", t)
    t = re.sub(r"\\(?:sub)*section\*?\{([^{}]*)\}", r"\n\1\n", t)
    t = re.sub(r"\\(?:emph|textit|textbf|text|underline)\{([^{}]*)\}", r"\1", t)
    t = re.sub(r"\\(?:medskip|bigskip|smallskip|noindent|newpage|par)\b", " ", t)
    t = re.sub(r"\\ref\{[^{}]*\}", "[ref]", t)
    # theorem-like environments become a word; maths environments stay as TeX
    def env(m):
        name = m.group(2)
        if re.fullmatch(_MATH_ENVS, name):
            return m.group(0)
        if m.group(1) == "begin":
            return "\n" + name.rstrip("*").capitalize() + ". "
        return "\n"
    t = re.sub(r"\\(begin|end)\{([A-Za-z*]+)\}(?:\[[^\]]*\])?", env, t)
    t = re.sub(r"\\item\b", "\n- ", t)
    return t


_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)


def _render_markdown(t: str) -> str:
    t = re.sub(r"\A---\n.*?\n---\n", "", t, flags=re.S)                  # YAML front matter
    t = re.sub(r"\Aauthor:[^\n]*\n", "", t)                               # oi-wiki header line
    t = _FENCE.sub("", t)                                                 # code blocks
    t = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", t)                            # images
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)                        # links -> their text
    t = re.sub(r"\[\^[^\]]*\](?::[^\n]*)?", "", t)                        # footnotes
    t = re.sub(r"^\s*(?:\?\?\?\+?|!!!)\s*\w+(?:\s+\"([^\"]*)\")?", r"\1", t, flags=re.M)  # admonitions
    t = re.sub(r"^#{1,6}\s*", "", t, flags=re.M)                          # headings
    t = re.sub(r"(\*\*|__)(.+?)\1", r"\2", t)                             # bold
    t = re.sub(r"<[^>\n]+>", "", t)                                       # inline HTML tags
    t = re.sub(r"`([^`\n]*)`", r"\1", t)                                  # inline code
    t = re.sub(r"^ {4}", "", t, flags=re.M)                               # admonition indentation
    return htmlmod.unescape(t)


_MO_TEX = {"×": r"\times", "·": r"\cdot", "⋅": r"\cdot", "≤": r"\le", "≥": r"\ge", "≠": r"\ne",
           "∞": r"\infty", "→": r"\to", "∑": r"\sum", "∫": r"\int", "∏": r"\prod", "±": r"\pm",
           "−": "-", "√": r"\sqrt", "π": r"\pi", "θ": r"\theta", "α": r"\alpha", "β": r"\beta",
           "Δ": r"\Delta", "δ": r"\delta", "ε": r"\varepsilon", "λ": r"\lambda", "μ": r"\mu",
           "σ": r"\sigma", "∈": r"\in", "⊂": r"\subset", "∪": r"\cup", "∩": r"\cap", "≈": r"\approx",
           "∂": r"\partial", "∘": r"\circ", "÷": r"\div", "′": "'", "\u2061": "", "\u2062": ""}


_FUNCS = {"sin", "cos", "tan", "log", "ln", "lim", "exp", "sec", "csc", "cot", "arcsin", "arccos",
          "arctan", "sinh", "cosh", "tanh", "max", "min", "det"}


def _mathml_to_tex(el) -> str:
    """A small MathML -> TeX conversion (presentation MathML as in OpenStax CNXML)."""
    tag = el.tag.split("}")[-1] if isinstance(el.tag, str) else ""
    kids = [c for c in el if isinstance(c.tag, str)]
    sub = [_mathml_to_tex(c) for c in kids]
    if tag in ("mi", "mn", "mtext", "ms"):
        s = (el.text or "").strip()
        s = "".join(_MO_TEX.get(ch, ch) for ch in s)
        if s in _FUNCS:
            return "\\" + s
        if tag == "mtext" and len(s) > 1:
            return r"\text{" + s + "}"
        return s
    if tag == "mo":
        s = (el.text or "").strip()
        return "".join(_MO_TEX.get(ch, ch) for ch in s)
    if tag == "mfrac" and len(sub) == 2:
        return r"\frac{" + sub[0] + "}{" + sub[1] + "}"
    if tag == "msup" and len(sub) == 2:
        return "{" + sub[0] + "}^{" + sub[1] + "}"
    if tag == "msub" and len(sub) == 2:
        return "{" + sub[0] + "}_{" + sub[1] + "}"
    if tag == "msubsup" and len(sub) == 3:
        return "{" + sub[0] + "}_{" + sub[1] + "}^{" + sub[2] + "}"
    if tag in ("munder",) and len(sub) == 2:
        return sub[0] + "_{" + sub[1] + "}"
    if tag in ("mover",) and len(sub) == 2:
        return sub[0] + "^{" + sub[1] + "}"
    if tag == "munderover" and len(sub) == 3:
        return sub[0] + "_{" + sub[1] + "}^{" + sub[2] + "}"
    if tag == "msqrt":
        return r"\sqrt{" + " ".join(sub) + "}"
    if tag == "mroot" and len(sub) == 2:
        return r"\sqrt[" + sub[1] + "]{" + sub[0] + "}"
    if tag == "mtable":
        return r"\begin{array}" + r" \\ ".join(sub) + r"\end{array}"
    if tag == "mtr":
        return " & ".join(sub)
    if tag == "mfenced":
        return (el.get("open", "(") + ",".join(sub) + el.get("close", ")"))
    if tag in ("annotation", "annotation-xml"):
        return ""
    return " ".join(s for s in sub if s)


_PRETEXT_MATH = {"m": False, "me": True, "men": True, "md": True, "mdn": True}


def _render_xml(t: str, cnxml: bool) -> str:
    from lxml import etree
    from lxml import html as lhtml

    blocks = {"para", "p", "title", "item", "li", "div", "section", "h1", "h2", "h3", "h4", "tr",
              "caption", "problem", "solution", "statement", "note", "equation", "example", "exercise",
              "table", "td", "th", "br", "figure", "list", "ul", "ol",
              "subsection", "theorem", "proof", "definition", "hint", "answer", "investigation", "activity"}
    try:
        if cnxml:
            root = etree.fromstring(t.encode("utf-8"), etree.XMLParser(recover=True, huge_tree=True))
        else:
            # lxml refuses a str that declares its encoding (PreTeXt files start with one)
            root = lhtml.fromstring(re.sub(r"^\s*<\?xml[^>]*\?>", "", t))
    except (etree.XMLSyntaxError, ValueError):
        return re.sub(r"<[^>]+>", " ", t)
    if root is None:
        return ""
    parts: list[str] = []

    def walk(el):
        tag = el.tag.split("}")[-1] if isinstance(el.tag, str) else ""
        if tag in ("metadata", "script", "style", "head", "media", "image", "link", "cite"):
            if el.tail:
                parts.append(el.tail)
            return
        if tag in _PRETEXT_MATH:                       # PreTeXt: <m> inline, <me>/<men>/<md> display TeX
            tex = " ".join("".join(el.itertext()).split())
            parts.append((" $$" + tex + "$$ ") if _PRETEXT_MATH[tag] else (" $" + tex + "$ "))
        elif tag == "math":
            tex = _mathml_to_tex(el).strip()
            display = el.getparent() is not None and el.getparent().tag.split("}")[-1] == "equation"
            parts.append((" $$" + tex + "$$ ") if display else (" $" + tex + "$ "))
        else:
            if tag in blocks:
                parts.append("\n" if tag not in ("td", "th") else " | ")
            if el.text:
                parts.append(el.text)
            for c in el:
                walk(c)
            if tag in blocks and tag not in ("td", "th"):
                parts.append("\n")
        if el.tail:
            parts.append(el.tail)

    walk(root)
    out = "".join(parts)
    out = re.sub(r"[ \t]*\n[ \t]*", "\n", out)
    return htmlmod.unescape(out)
