"""Every formula once, code kept as code, no script text: the real defect pages of issue 37.

Pages of ``html/llm_webkit_bench``: the CSDN KaTeX page whose MathML tags were stripped
(``extras/math_csdn_none_formula``), the physicsforums thread rendered by MathJax v3 whose
``[math]`` BBCode examples are shown in inline code (``pages/math_physicsforums_2``), the page
with a broken ``<math>`` label that swallowed the page's scripts (``extras/math_broken_label``),
and Stack Exchange pages rendered by MathJax v2.  Formulas are found as the peer benchmark finds
them (:func:`corpus_pipeline.extract_metric.formulas`).
"""
from __future__ import annotations

import html as htmllib
import re
from collections import Counter

import pytest

from corpus_pipeline import extractors
from corpus_pipeline.extract import Extracted, extract_html
from corpus_pipeline.extract_metric import code_blocks, formulas


@pytest.fixture(params=extractors.names())
def extractor(request):
    return request.param


def _page(shared_data, rel):
    d = shared_data / "html" / "llm_webkit_bench"
    return (d / rel).read_bytes().decode("utf-8", errors="replace")


def _extract(html, extractor):
    r = extract_html(html, "https://example.org/page", timeout_s=60.0, extractor=extractor)
    assert isinstance(r, Extracted), r
    return r


def test_katex_with_stripped_mathml_gives_each_formula_once_as_tex(shared_data, extractor):
    html = _page(shared_data, "extras/math_csdn_none_formula.html")
    r = _extract(html, extractor)
    assert "katex" in r.math_kinds and r.has_math_markup
    found = Counter(formulas(r.text))
    # the TeX sources on the page: the last block of text of each katex-mathml element
    sources = Counter()
    for m in re.finditer(r'class="katex-mathml">(.*?)</span>', html, re.S):
        blocks = [b.strip() for b in re.split(r"\n[ \t]*\n", htmllib.unescape(m.group(1))) if b.strip()]
        sources[" ".join(blocks[-1].split())] += 1
    assert len(sources) >= 30
    kept = sum(min(found[t], n) for t, n in sources.items())
    assert kept >= 0.9 * sum(sources.values())
    # none more often than the page writes it (its text also has a few formulas between $..$)
    source = htmllib.unescape(html)
    assert not [t for t, n in found.items() if n > max(1, source.count(t))]
    # neither the MathML's text nor the HTML rendering is left beside the TeX
    assert "lim ⁡" not in r.text and "x→1limx−1x2−1" not in r.text


@pytest.mark.parametrize("name", ["math_physicsforums_2", "math_mathjax_latex_4", "math_mathjax_latex_5"])
def test_rendered_mathjax_pages_emit_no_formula_more_often_than_the_ground_truth(shared_data, extractor, name):
    r = _extract(_page(shared_data, f"pages/{name}.html"), extractor)
    truth = Counter(formulas(_page(shared_data, f"pages/{name}.groundtruth.txt")))
    found = Counter(formulas(r.text))
    if extractor == "resiliparse":   # trafilatura keeps only the first post of the forum thread
        assert sum(found.values()) >= 0.5 * sum(truth.values())
    assert not {t: n for t, n in found.items() if n > max(1, truth.get(t, 0))}
    assert "\\begingroup" not in found


def test_bbcode_shown_as_code_stays_code(shared_data, extractor):
    r = _extract(_page(shared_data, "pages/math_physicsforums_2.html"), extractor)
    assert "$$[math]" not in r.text and "$$[MATH]" not in r.text
    if extractor == "resiliparse":   # trafilatura keeps only the first post of the thread
        assert "`[math]\\vec{F} = m\\vec{a}[/math]`" in r.text
        assert r.text.count("\\vec{F} = m\\vec{a}") == 2       # once as code, once as the formula
        assert any("[MATH]" in block for block in code_blocks(r.text))


def test_broken_math_label_leaks_no_script_text(shared_data, extractor):
    r = _extract(_page(shared_data, "extras/math_broken_label.html"), extractor)
    for js in ("$j(", "delegate(", "function ()", "document.write", "var "):
        assert js not in r.text
    assert "mathml" in r.math_kinds
    assert "self-adjoint" in r.text
