import json

import pytest

from corpus_pipeline.errors import InputFileError
from corpus_pipeline.labels import load_labels
from corpus_pipeline.loop import MAX_ITERATIONS, SATURATED, stop_reason
from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.report import build_summary, write_report
from corpus_pipeline.runfolder import RunFolder
import reference


def test_stop_rule():
    assert stop_reason(1, None, 0.98, 6) is None                 # iteration 1 never saturates
    assert stop_reason(2, 0.97, 0.98, 6) is None
    assert stop_reason(2, 0.98, 0.98, 6) == SATURATED            # reaching the threshold stops
    assert stop_reason(6, 0.5, 0.98, 6) == MAX_ITERATIONS
    assert stop_reason(3, 0.99, 0.98, 3) == SATURATED            # saturation wins over the maximum


def test_labels_validation(tmp_path):
    good = tmp_path / "l.jsonl"
    good.write_text('{"url": "<http://a/x>", "label": "math"}\n\n{"url": "http://b/", "label": "ambiguous"}\n')
    assert load_labels(str(good)) == [("http://a/x", "math"), ("http://b/", "ambiguous")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"url": "http://a/", "label": "math"}\n{"url": 3}\n')
    with pytest.raises(InputFileError) as e:
        load_labels(str(bad))
    assert "bad.jsonl:2" in str(e.value)
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"url": "http://a/", "label": "math"}\n{"url": "http://a/", "label": "non-math"}\n')
    with pytest.raises(InputFileError, match="dup.jsonl:2"):
        load_labels(str(dup))


def test_precision_recall_ignores_other_labels():
    p, r = reference.precision_recall(["math", "math", "non-math", "ambiguous"], math_total=4)
    assert p == pytest.approx(2 / 3) and r == pytest.approx(0.5)
    assert reference.precision_recall([], 0) == (None, None)


def _commit(run, path, counts):
    run.stage(path, lambda s: counts, log=lambda m: None)


def test_summary_from_markers(tmp_path):
    run = RunFolder(tmp_path / "run")
    view = RunView(run)
    _commit(run, view.location("pages"), {"pages": 10, "skips": {"not_html": 2, "extract_timeout": 1},
                                          "url_duplicates": 3, "exact_duplicates": 0, "near_duplicates": 4})
    for i, (n, ov) in enumerate([(4, None), (5, 0.8), (5, 1.0)], 1):
        _commit(run, view.location("seed", i), {"seed_positives": 3 + i, "seed_added": 0 if i == 1 else 1})
        _commit(run, view.location("model", i), {"precision": 0.9, "recall": 0.8, "f1": 0.85})
        _commit(run, view.location("collected", i), {"collected_pages": n, "collected_tokens": 100 * n,
                                                     "overlap_with_previous": ov, "new_pages": 1})
        _commit(run, view.location("domains", i), {"domains": 5, "flagged_domains": i})
    _commit(run, view.location("eval", 2), {"true_precision": 1.0, "true_recall": 0.5})
    _commit(run, view.location("corpus"), {"pages": 5, "tokens": 500, "pages_removed_by_decontamination": None,
                                           "segments_removed": None})
    run.write_json(run.path("loop.json"), {"stopped_because": "saturated"})
    s = build_summary(run)
    assert [it["iteration"] for it in s["iterations"]] == [1, 2, 3]
    it1, it2, it3 = s["iterations"]
    assert it1["overlap_with_previous"] is None and it3["overlap_with_previous"] == 1.0
    assert it1["seed_positives"] == 4 and it1["seed_added"] == 1      # added = next iteration's seed growth
    assert it3["seed_added"] == 0
    assert it1["true_recall"] is None and it2["true_recall"] == 0.5
    assert s["stopped_because"] == "saturated" and s["final"]["pages"] == 5
    assert set(it1) >= {"iteration", "collected_pages", "collected_tokens", "overlap_with_previous", "new_pages",
                        "flagged_domains", "seed_positives", "seed_added", "classifier", "true_precision",
                        "true_recall"}
    write_report(run)
    assert json.loads((tmp_path / "run" / "report" / "summary.json").read_text()) == json.loads(json.dumps(s))
    page = (tmp_path / "run" / "report" / "index.html").read_text()
    assert page.count("<svg") >= 5 and "saturated" in page
    assert "<script" not in page and 'src="http' not in page      # self-contained
    from corpus_pipeline.report.html import drop_rows

    assert drop_rows(s) == [["ingest", "extract_timeout", 1], ["ingest", "not_html", 2],
                            ["dedup", "url_duplicates", 3], ["dedup", "exact_duplicates", 0],
                            ["dedup", "near_duplicates", 4]]
    assert "ingest: not html" in page


def test_report_command_rebuilds_from_the_run_folder(tmp_path, capsys):
    from corpus_pipeline.cli import main

    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    run = RunFolder(tmp_path / "run")
    view = RunView(run)
    _commit(run, view.location("seed", 1), {"seed_positives": 7, "seed_added": 0})
    _commit(run, view.location("collected", 1), {"collected_pages": 2, "collected_tokens": 20,
                                                 "overlap_with_previous": None, "new_pages": 2})
    assert main(["report", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "| 1 | 2 | 20 |" in out                      # the Markdown summary is printed
    s = json.loads((tmp_path / "run" / "report" / "summary.json").read_text())
    assert s["stopped_because"] is None and s["iterations"][0]["seed_positives"] == 7
    assert (tmp_path / "run" / "report" / "index.html").exists()


def test_html_sections_are_readable_tables():
    from corpus_pipeline.report.html import decon_table, render_html

    head, rows = decon_table({"gsm8k": {"segment_removed": 2, "page_removed": 1}, "math": {"page_removed": 3}},
                             {"gsm8k": {"ngram": 2, "short_exact": 1}, "math": {"short_exact": 3}})
    assert head == ["benchmark", "pages removed", "pages with lines removed", "rule: ngram", "rule: short exact"]
    assert rows == [["gsm8k", 1, 2, 2, 1], ["math", 3, 0, 0, 3]]
    it = {"iteration": 1, "collected_pages": 10, "collected_tokens": 900, "overlap_with_previous": None,
          "new_pages": 10, "flagged_domains": 1, "seed_positives": 5, "seed_added": 7, "true_precision": 0.9,
          "true_recall": 0.6, "classifier": {"precision": 1, "recall": 1, "f1": 1},
          "top_flagged_domains": [{"host": "askmaths.net", "pages": 20, "collected": 10, "fraction": 0.5}],
          "marks": [{"path": "askmaths.net/questions/", "decided_by": "person", "first_decided_by": "person",
                     "since": 1}], "rejected_prefixes": ["askmaths.net/users/"], "score_histogram": [1, 2]}
    page = {"pages": 9, "url": "https://askmaths.net/questions/1/x", "title": "Why $x^2$?", "score": 0.51,
            "excerpt": "Let $x^2 = 4$ <b>then</b>"}
    s = {"run": "/r", "stopped_because": "saturated", "iterations": [it],
         "final": {"pages": 9, "tokens": 800, "pages_removed_by_decontamination": 1, "segments_removed": 2},
         "decontamination": {"by_benchmark": {"gsm8k": {"segment_removed": 2, "page_removed": 1}},
                             "by_rule": {"ngram": 2}},
         "ingest": {"skips": {"not_html": 2}},
         "details": {"iterations": {"1": {"near_threshold": [page], "far_above": [], "threshold": 0.5,
                                          "mark_growth": {"askmaths.net/questions/": 7}}},
                     "near_duplicates": {"total": 1, "pairs": [{"page_id": "p9", "kind": "near", "similarity": 0.81,
                                                                "kept_url": "https://a/b", "kept_excerpt": "t"}]},
                     "contamination": {"decontaminated": True, "total": 1, "rows": [
                         {"action": "segment_removed", "reason": "ngram", "url": "https://a/c", "benchmark": "gsm8k",
                          "item_id": "g-1", "item_text": "How many apples?"}]},
                     "languages": {"pages": {"en": 8, "zh": 1}, "final": {"en": 7, "zh": 1}}}}
    html = render_html(s)
    for sid in ("iterations", "charts", "final", "contamination", "samples", "duplicates", "languages",
                "flagged", "marks", "drops"):
        assert f'id="{sid}"' in html, sid
    assert "{&quot;" not in html and '{"' not in html                 # no raw JSON anywhere
    assert "<td>person</td>" in html and "<td>7</td>" in html          # who decided, seed growth of the mark
    assert "askmaths.net/users/" in html                               # rejected prefixes listed
    assert '<span class="tex">$x^2 = 4$</span>' in html                # maths shown as TeX, text escaped
    assert "&lt;b&gt;then&lt;/b&gt;" in html and "<b>then</b>" not in html
    assert "How many apples?" in html and "0.810" in html
    assert ">60.0%<" in html and ">90.0%<" in html                     # point labels formatted like the table
    assert "Pages per language" in html and "<script" not in html
    assert "English (en)" in html and "Chinese (zh)" in html   # names, not codes
    assert "<th>classifier P</th><th>classifier R</th><th>classifier F1</th>" in html      # held-out P/R/F1
    assert "<td>100.0%</td><td>100.0%</td><td>100.0%</td>" in html
    assert "threshold 0.5" in html                                     # the selection threshold on the histogram
    assert "800 tokens of the final text" in html and "900 tokens" in html   # both token measures, labelled
    assert "<code>final/corpus/</code>" in html and "/r/final" not in html   # the corpus path, relative


def test_chart_axes_are_round_and_labels_do_not_overlap():
    from corpus_pipeline.report.html import _label_positions, line_chart, log_ticks, nice_ticks

    assert nice_ticks(753) == [0, 200, 400, 600, 800]
    assert nice_ticks(1.0) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(3008) == [0, 1000, 2000, 3000, 4000]
    assert log_ticks(3008) == [0, 1, 10, 100, 1000, 10000]
    # precision and recall at the same point: one label above, the other below, 11 px apart at least
    ys = [y for _, _, y, _ in _label_positions([(0, 50, 40.0, "99.6%"), (1, 50, 40.0, "100.0%")])]
    assert ys[0] < 40 < ys[1] and ys[1] - ys[0] >= 11
    chart = line_chart("overlap", [1, 2, 3], {"overlap": [None, 0.657, 0.996]}, ymax=1.0, labels=True,
                       fmt=lambda v: f"{v:.1%}", hlines=((0.98, "saturation 98%"),))
    assert ">99.6%<" in chart and ">1.00<" not in chart and 'class="threshold"' in chart
    assert "saturation 98%" in chart


def test_the_corpus_folder_comes_from_the_runs_recipe(tmp_path):
    """A recipe whose final stage commits elsewhere: the summary, the HTML and the Markdown say where."""
    from corpus_pipeline.pipeline.recipe import default_recipe
    from corpus_pipeline.pipeline.runview import STAGES, stage_entries
    from corpus_pipeline.report.html import render_html
    from corpus_pipeline.report.markdown import render_markdown
    from corpus_pipeline.report.summary import build_summary
    from corpus_pipeline.runfolder import RunFolder

    run = RunFolder(str(tmp_path / "r"))
    entries = [dict(e, path="out/mathcorpus") if e["name"] == "corpus" else e
               for e in stage_entries(default_recipe())]
    run.write_json(run.path("run.json"), {STAGES: entries})
    s = build_summary(run)
    assert s["final"]["folder"] == "out/mathcorpus"
    s["final"].update(pages=3, tokens=40)
    assert "<code>out/mathcorpus/</code>" in render_html(s) and "final/corpus" not in render_html(s)
    assert "final corpus (out/mathcorpus/): 3 pages" in render_markdown(s)
    assert build_summary(RunFolder(str(tmp_path / "d")))["final"]["folder"] == "final/corpus"   # no list recorded
