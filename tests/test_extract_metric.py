"""The WebMainBench metric re-implemented in corpus_pipeline.extract_metric, on hand-made Markdown."""
from __future__ import annotations

import pytest

from corpus_pipeline.extract_metric import (aggregate, code_blocks, edit_similarity, formulas, normalised_html,
                                            normalised_table, score_page, tables, teds)


def test_edit_similarity_and_unscored_empty_pair():
    assert edit_similarity("abcd", "abcd") == 1.0
    assert edit_similarity("abcd", "abce") == pytest.approx(0.75)
    assert edit_similarity("", "abcd") == 0.0
    assert edit_similarity("", "") is None


def test_formulas_all_four_delimiters_outside_code_in_pattern_order():
    md = ("Inline $a+b$ and \\(c\\), display $$x^2$$ and \\[y\\].\n"
          "```\n$not_a_formula$\n```\nand `$code$` and an escaped \\$5.")
    assert formulas(md) == ["x^2", "y", "a+b", "c"]


def test_code_fenced_and_indented_blocks():
    md = "Text\n\n```python\nprint(1)\nprint(2)\n```\n\nMore\n\n    a = 1\n    b = 2\n\nEnd"
    assert code_blocks(md) == ["print(1)\nprint(2)", "a = 1\nb = 2"]
    # an indented list or money is not code
    assert code_blocks("Text\n\n    - one\n    - two\n\nEnd") == []


def test_tables_html_and_pipe():
    md = "x\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\ny <table><tr><td>q</td></tr></table>"
    found = tables(md)
    assert found[0].startswith("<table>") and found[1].startswith("| a |")
    # pipe lines without a separator second line are no table
    assert tables("a | b\nc | d") == []
    assert normalised_html("| a | b |\n|---|---|\n| 1 | 2 |") == "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"


def test_indented_code_as_the_benchmark_pattern_finds_it():
    # nothing needed after the block: a text line right below still ends it
    assert code_blocks("Text\n\n    a = 1\n    b = 2\nnext line") == ["a = 1\nb = 2"]
    # whitespace-only lines before the block are part of the blank stretch
    assert code_blocks("Text\n\n        \n    a = 1\n    b = 2") == ["a = 1\nb = 2"]
    # a second block one empty line below the first is not found; two empty lines and it is
    assert code_blocks("T\n\n    a\n    b\n\n    c\n    d") == ["a\nb"]
    assert code_blocks("T\n\n    a\n    b\n\n\n    c\n    d") == ["a\nb", "c\nd"]
    # one indented line, or a block at the very start, is no code
    assert code_blocks("T\n\n    a\nb") == [] and code_blocks("    a\n    b") == []


def test_table_edit_compares_the_serialised_html():
    # HTML tables inside code are no tables; outermost ones only; re-serialised (<br/>, attribute
    # quotes, class whitespace, whitespace-only strings collapsed, entities decoded then escaped)
    md = ("`<table><tr><td>x</td></tr></table>`\n<TABLE class='a   b'><tr>\n   <td>1<br>2 &amp; &lt;3&gt;</td>"
          "<td><table><tr><td>in</td></tr></table></td></tr></table>")
    assert tables(md) == ['<table class="a b"><tr>\n<td>1<br/>2 &amp; &lt;3&gt;</td>'
                          '<td><table><tr><td>in</td></tr></table></td></tr></table>']
    # an unclosed cell is closed at the end, an unmatched end tag ignored
    assert tables("<table><tr><td>a</b></table>") == ["<table><tr><td>a</td></tr></table>"]
    # a pipe table beside an HTML one stays Markdown in the compared string (the benchmark's way)
    both = "<table><tr><td>q</td></tr></table>\n\n| a |\n|---|\n| 1 |"
    assert normalised_html("\n".join(tables(both))) == "<table><tr><td>q</td></tr></table>\n| a |\n|---|\n| 1 |"
    # pipe cells go into the HTML as they stand (not escaped)
    assert normalised_html("| a<b |\n|---|") == "<table><tr><th>a<b</th></tr></table>"
    # the score is the similarity of the two strings, markup included
    s = score_page("| a | b |\n|---|---|\n| 1 | 2 |", "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>")
    assert s["table_edit"] == 1.0
    s = score_page("| a |\n|---|", "<table><tr><td>a</td></tr></table>")
    assert s["table_edit"] == pytest.approx(1 - 2 / len("<table><tr><td>a</td></tr></table>"))


def test_teds_same_table_is_one_and_missing_cell_costs():
    a = normalised_table("<table><tr><td>1</td><td>2</td></tr></table>")
    b = normalised_table("<table><tr><td>1</td></tr></table>")
    assert teds(a, a) == 1.0
    assert 0.0 < teds(a, b) < 1.0
    assert teds(None, None) == 1.0 and teds(a, None) == 0.0


def test_score_page_and_aggregate_skip_unscored_types():
    truth = "Let $x^2$ hold.\n\n```\ncode()\n```\n"
    s = score_page(truth, truth)
    assert s["text_edit"] == s["formula_edit"] == s["code_edit"] == 1.0
    assert s["table_edit"] is None and s["table_teds"] is None
    dup = score_page("Let $x^2$ $x^2$ hold.", truth)
    assert dup["formula_edit"] < 1.0 and dup["n_formulas"] == 2 and dup["n_formulas_truth"] == 1
    agg = aggregate([s, dup])
    assert agg["code_edit_pages"] == 2 and agg["table_edit_pages"] == 0
    assert agg["code_edit"] == pytest.approx(0.5)
