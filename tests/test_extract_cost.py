"""The resiliparse path's cheaper plumbing gives the same output as before (issue 35).

``rewrite_hint`` decides which pages are parsed with lxml at once; a page only ``math_hint``
flags gets its lxml tree when the text needs the engine test (or the page is too deep).  These
tests hold the hint to what ``mathhtml._candidates`` finds on every real page of the shared data,
its byte scanner to the regular expressions it replaces, and the extraction to the eager path.
"""
from __future__ import annotations

import gzip
import random
import re

import pytest

from corpus_pipeline.extractors import resiliparse as rp


def _real_pages(shared_data):
    from corpus_pipeline import warc
    from corpus_pipeline.config import IngestConfig
    from corpus_pipeline.counters import Counts
    from devtools.extract_quality import webkit_pages
    from corpus_pipeline.warc import decode_html

    for p in sorted((shared_data / "html").rglob("*.html*")):
        raw = p.read_bytes()
        html = decode_html(gzip.decompress(raw) if p.suffix == ".gz" else raw, "text/html")[0]
        if html:
            yield p.name, html
    for page in webkit_pages(shared_data):
        yield page[0], page[2]
    ic = IngestConfig()
    for f in sorted((shared_data / "warc").rglob("*.warc.gz")):
        for page in warc.read_file(lambda f=f: open(f, "rb"), str(f), ic, Counts()):
            yield f"{f.name}@{page.warc_offset}", page.html


@pytest.mark.slow
def test_rewrite_hint_never_misses_a_page_with_a_maths_candidate(shared_data):
    from trafilatura.utils import load_html

    from corpus_pipeline.mathhtml import _candidates, engine_loaded

    checked = with_candidates = hinted = old_hinted = 0
    for name, html in _real_pages(shared_data):
        tree = load_html(html)
        if tree is None:
            continue
        checked += 1
        hint = rp.rewrite_hint(html)
        hinted += hint
        old_hinted += rp.math_hint(html)
        assert not hint or rp.math_hint(html), name
        if _candidates(tree, html) or ("\\begin{" in html and engine_loaded(tree)):
            with_candidates += 1
            assert hint, name
    assert checked > 1400 and with_candidates >= 60, (checked, with_candidates)
    # the point of it: fewer pages parsed twice than math_hint's
    assert hinted < 0.8 * old_hinted, (hinted, old_hinted)


# the regular expressions rewrite_hint's scanner stands for
_CLASS_RE = re.compile(rb"(?i:class)\s*=\s*(?:\"[^\"]*?|'[^']*?|[^\s>\"']*?)(?:katex|MathJax|MJX|mwe-math-element)")
_TYPE_RE = re.compile(rb"type\s*=\s*[\"']?math/")


def _oracle(html: str) -> bool:
    raw = html.encode("utf-8", "surrogatepass")
    low = raw.lower()
    return bool((b"\\begin{" in raw and (b"mathjax" in low or b"katex" in low))
                or (b'class="math' in raw and rp._CLASS_MATH.search(low)) or _CLASS_RE.search(raw) or _TYPE_RE.search(low)
                or any(w in low for w in (b"<math", b":math", b"asciimath", b"<mjx-container"))
                or (b"am_" in low and (b"=am_" in low or b",am_" in low or b"/am_" in low))
                or (b"<img" in low and rp._IMG_HINT.search(low)))


_PIECES = ["class", "CLASS", "Class", "type", "TYPE", "=", " ", "\t", "\n", '"', "'", ">", "<", "x", "-",
           "MathJax", "mathjax", "katex", "KaTeX", "MJX", "mjx", "mwe-", "math", "MATH", "/", ":", "ascii",
           "-element", "am_", "<img ", "src", "tex", "é", "data-", "\\begin{"]


def test_rewrite_hint_scanner_matches_the_regular_expressions():
    rng = random.Random(35)
    agree = flagged = 0
    for _ in range(100000):
        s = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 14)))
        want = _oracle(s)
        assert rp.rewrite_hint(s) == want, s
        assert not want or rp.math_hint(s), s          # the lazy tree relies on it
        agree += 1
        flagged += want
    assert 0.05 * agree < flagged < 0.95 * agree, flagged
    for s, want in [('<div class="x MathJax_Display">', True), ("<div class = 'katex'>", True),
                    ("<span CLASS=MJX-TeXAtom>", True), ('<div class="a" title="MathJax">', False),
                    ("MathJax.Hub.Config({})", False), ('<script type="math/tex">x</script>', True),
                    ('<a href="/math/tex">', False), ('<span class="mwe-math-element">', True),
                    ('<img src="x.png" alt="MathJax">', False)]:
        assert rp.rewrite_hint(s) is want, s


def _deep_page(inner: str) -> str:
    return "<html><body>" + inner + "<div>" * 300 + "deep" + "</div>" * 300 + "</body></html>"


@pytest.mark.slow
def test_lazy_lxml_tree_gives_the_eager_output(shared_data, monkeypatch):
    # rewrite_hint always true: every page math_hint flags is parsed and rewritten at once, as
    # before the hint existed; the output must not depend on it
    from corpus_pipeline.extract import extract_html

    pages = [(n, h) for n, h in _real_pages(shared_data) if rp.math_hint(h)]
    pages += [("deep, engine", _deep_page('<script src="mathjax.js"></script><p>Let $x^2$ be a square, '
                                          'as the text says at length here.</p>')),
              ("deep, formula", _deep_page('<p>A formula <script type="math/tex">x^2</script> in a '
                                           'paragraph long enough to be main content.</p>'))]

    def run():
        return [vars(extract_html(h, "https://example.org/", extractor="resiliparse")) for _, h in pages]

    lazy = run()
    monkeypatch.setattr(rp, "rewrite_hint", lambda html: True)
    eager = run()
    assert len(pages) > 200
    differ = [n for (n, _), a, b in zip(pages, lazy, eager) if a != b]
    assert not differ, differ
    assert any("mathjax" in (r.get("math_kinds") or []) for r in lazy[-2:]), lazy[-2:]


def test_text_normalisation_shortcuts_are_exact():
    # normalize_text and clean_for_lang skip normalizing text that already is, and collapse
    # whitespace with str.split(): the same strings as unicodedata.normalize and the \s+ regex
    import unicodedata

    from corpus_pipeline.dedup.exact import _WS, _ZERO_WIDTH, normalize_text
    from corpus_pipeline.lang import _MATH, _NOISE, clean_for_lang

    def reference(text):
        t = unicodedata.normalize("NFKC", text or "")
        return _WS.sub(" ", _ZERO_WIDTH.sub("", t).casefold()).strip()

    assert all(ch.isspace() == bool(_WS.fullmatch(ch)) for ch in map(chr, range(0x110000)))
    rng = random.Random(7)
    alphabet = ("a", "B", " ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\x1c", "\x85", "\u200b", "\ufeff",
                "e\u0301", "\u00e9", "\ufb01", "\u2460", "\uff21", "\u212b", "A\u030a", "\u1e9e", "ß", "x²", "$")
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert normalize_text(s) == reference(s), repr(s)
        ref_lang = " ".join(_NOISE.sub(" ", _MATH.sub(" ", unicodedata.normalize("NFC", s))).split())[:3000]
        assert clean_for_lang(s) == ref_lang, repr(s)
