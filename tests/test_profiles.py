"""Domain profiles (maths, code) and benchmark formats as plugins (pure: no Spark)."""
from __future__ import annotations

import json
import re

import pytest

from corpus_pipeline import benchmark_formats as bfmt
from corpus_pipeline import decontam, profiles, schemas
from corpus_pipeline.config import ConfigError, config_from_dict
from corpus_pipeline.counters import Counts
from corpus_pipeline.ingest import process_source
from corpus_pipeline.seeds import default_seed_path, load_seed_texts
import reference
from test_ingest import article, make_warc

CODE_PAGE = ("<html><head><title>Reading files in Python</title></head><body><article><h1>Reading files</h1>"
             + "<p>Open the file with a context manager so that it is closed even when an error is raised. "
               "The loop below reads it line by line and strips the newline of each line.</p>" * 3
             + "<pre><code>with open(path) as f:\n    for line in f:\n        print(line.rstrip())\n</code></pre>"
             + "</article></body></html>")
MATH_PAGE = ("<html><head><title>Sums</title></head><body><article><h1>Sums</h1>"
             + "<p>The sum of the first n odd numbers is a square, as the picture of nested squares shows "
               "for every n and as induction proves in two lines.</p>" * 3
             + "<p>Indeed $\\sum_{k=1}^{n} (2k-1) = n^2$ for every $n$.</p></article></body></html>")


def test_registry_and_defaults():
    assert {"math", "code"} <= set(profiles.names())
    m, c = profiles.get("math"), profiles.get("code")
    assert (m.positive, m.negative, m.markup_column) == ("math", "non-math", "has_math_markup")
    assert (c.positive, c.negative, c.markup_column) == ("code", "non-code", "has_code_blocks")
    assert profiles.for_config(config_from_dict({})).name == "math"
    assert schemas.pages() == schemas.PAGES == m.pages_schema
    assert "has_code_blocks BOOLEAN" in c.pages_schema and "has_math_markup" not in c.pages_schema
    assert "has_math_markup" not in schemas.PAGES_COMMON
    with pytest.raises(ValueError, match="unknown profile 'chemistry'.*code.*math"):
        profiles.get("chemistry")


def test_unknown_profile_is_a_config_error():
    with pytest.raises(ConfigError, match="profile.name"):
        config_from_dict({"profile": {"name": "chemistry"}})


@pytest.mark.parametrize("html, expected", [
    ("<pre>x = 1</pre>", True),
    ("<PRE class='src'>x</PRE>", True),
    ("<code>a\nb</code>", True),
    ("<code>first<br>second</code>", True),
    ("<p>call <code>len(x)</code> to count</p>", False),       # inline code in prose
    ("<p>preface and premise</p>", False),                       # "<pre" needs a tag end
    ("<div class='code-block'>x</div>", False),
])
def test_code_block_markup(html, expected):
    from corpus_pipeline.profiles.code import has_code_block

    assert has_code_block(html) is expected
    assert has_code_block(html.encode()) is expected


def test_each_profile_writes_its_own_markup_column(tmp_path):
    ref = make_warc(tmp_path / "a.warc.gz", [("http://d.example/code", CODE_PAGE, "2024-01-01T00:00:00Z"),
                                              ("http://d.example/sums", MATH_PAGE, "2024-01-01T00:00:00Z"),
                                              ("http://d.example/prose", article(3), "2024-01-01T00:00:00Z")])
    for name, column, marked in (("math", "has_math_markup", {"http://d.example/sums"}),
                                 ("code", "has_code_blocks", {"http://d.example/code"})):
        cfg = config_from_dict({"profile": {"name": name}})
        rows = list(process_source(ref, cfg, Counts()))
        assert len(rows) == 3
        other = "has_code_blocks" if column == "has_math_markup" else "has_math_markup"
        assert all(column in r and other not in r for r in rows)
        assert {r["url"] for r in rows if r[column]} == marked
        assert schemas.row(schemas.extracted(column), rows[0])         # the row fits the profile's schema


def test_each_profile_has_its_starter_seed():
    maths, code = default_seed_path(profiles.get("math").starter_seed), default_seed_path(profiles.get("code").starter_seed)
    assert maths == default_seed_path() and maths != code
    assert code.endswith("code/starter_seed.jsonl.gz")
    texts = load_seed_texts(code)
    assert len(texts) > 100
    assert sum(bool(re.search(r"\bdef \w+\(|\bfn \w+\(|function \w+\(", t)) for t in texts) > len(texts) // 4


def test_metrics_count_the_profile_labels():
    labels = ["code", "code", "non-code", "math", "ambiguous"]
    assert reference.precision_recall(labels, 4, positive="code") == (2 / 3, 0.5)
    assert reference.precision_recall(labels, 2) == (1.0, 0.5)                     # maths: only the "math" label counts


def test_a_benchmark_format_registered_from_outside(tmp_path):
    """A plugin's benchmark (its own fields, path and download) is found, read and selected by name."""
    fmt = bfmt.BenchmarkFormat(
        "humaneval_test", bfmt.Format(question=("prompt",), solutions=("canonical_solution",), ids=("task_id",)),
        ((r"humaneval/HumanEval\.jsonl", "humaneval"),),
        (("humaneval", "https://example.org/HumanEval.jsonl", "humaneval/HumanEval.jsonl"),))
    bfmt.REGISTRY.register(fmt.name, fmt)
    try:
        (tmp_path / "humaneval").mkdir()
        (tmp_path / "humaneval" / "HumanEval.jsonl").write_text(json.dumps(
            {"task_id": "HumanEval/0", "prompt": "def has_close_elements(numbers, threshold):\n    pass",
             "canonical_solution": "    return any(abs(a - b) < threshold for a in numbers for b in numbers)"}) + "\n")
        (tmp_path / "gsm8k").mkdir()
        (tmp_path / "gsm8k" / "test.jsonl").write_text(json.dumps({"question": "How many apples are there?",
                                                                   "answer": "3"}) + "\n")
        assert decontam.identify("humaneval/HumanEval.jsonl") == ("humaneval", "humaneval_test")
        b = decontam.load_benchmarks(tmp_path, config_from_dict({"decontam": {"benchmarks": ["humaneval"]}}).decontam)
        assert b.names() == ["humaneval"] and b.items[0].item_id == "HumanEval/0"
        assert any("abs(a - b)" in t for t in b.items[0].texts)
        assert decontam.load_benchmarks(tmp_path).names() == ["gsm8k", "humaneval"]
        assert ("humaneval", "https://example.org/HumanEval.jsonl", "humaneval/HumanEval.jsonl") in bfmt.downloads()
    finally:
        bfmt.REGISTRY._entries.pop(fmt.name)
        bfmt.REGISTRY._instances.pop(fmt.name, None)
    assert decontam.identify("humaneval/HumanEval.jsonl") is None
