"""Results a person can inspect, on one finished run of a small mini-crawl with its planted
benchmark: the final corpus with provenance (Parquet, then JSONL.gz), decontamination of the
planted items, the report's sections, the run log, and `corpus-pipeline inspect`."""
from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from runs import SETTINGS, ok, run_args, run_ok
from runs import cli as run_cli

from corpus_pipeline import canaries, schemas
from corpus_pipeline.runfolder import committed_data

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def cli(*args, check=True):
    p = run_cli(list(args))
    return ok(p) if check else p


@pytest.fixture(scope="module")
def finished(crawl, decontaminated_run):
    """The shared uninterrupted run, rerun with the mini-crawl's planted benchmark (conftest.py)."""
    return crawl, decontaminated_run


def test_final_corpus_has_provenance_and_planted_items_are_removed(finished):
    crawl, run = finished
    t = pq.read_table(committed_data(str(run / "final" / "corpus")))
    assert t.column_names == schemas.columns(schemas.FINAL_CORPUS)
    rows = t.to_pylist()
    assert rows
    for r in rows:
        assert r["url"].startswith("https://") and r["host"] and r["first_iteration"] >= 1
        assert r["warc_file"].endswith(".warc.gz") and r["warc_offset"] >= 0 and r["fetched_at"]
        assert 0.5 <= r["score"] <= 1 and r["n_tokens"] > 0
    assert sum(1 for r in rows if r["title"]) >= 0.9 * len(rows)
    manifest = json.loads((crawl / "manifest.json").read_text())
    items = {json.loads(x)["id"]: json.loads(x)["question"]
             for x in (crawl / "benchmarks" / "gsm8k" / "test.jsonl").read_text().splitlines()}
    contam = pq.read_table(committed_data(str(run / "final" / "contamination"))).to_pylist()
    matched = {r["item_id"] for r in contam if r["benchmark"] == "gsm8k"}
    planted = {p["item_id"] for p in manifest["benchmarks"]["planted"]}
    assert matched and matched <= planted                  # only planted items are ever found
    text = "\n".join(r["text"] for r in rows)
    assert not any(items[k] in text for k in planted)      # and none survives in the corpus
    s = json.loads((run / "report" / "summary.json").read_text())
    assert s["final"]["pages_removed_by_decontamination"] is not None
    assert s["final"]["segments_removed"] + s["final"]["pages_removed_by_decontamination"] >= 1
    # the canaries: copies of corpus pages with a planted benchmark item, the kinds its benchmark has
    # (the mini-crawl's GSM8K questions: whole and short problems), committed apart; the corpus above
    # holds no planted copy
    can = s["decontamination_canaries"]
    assert "not recall" in can["measures"] and can["per_kind"] == 100
    assert {"problem", "problem_tex"} <= set(can["kinds"]) <= set(canaries.KINDS), can["kinds"]
    for kind, v in can["kinds"].items():
        assert v["n"] == 100 and v["low95"] <= v["share"] <= v["high95"], (kind, v)
    assert can["kinds"]["problem"]["share"] >= 0.9 and can["kinds"]["problem_tex"]["share"] >= 0.9, can["kinds"]
    canary_rows = pq.read_table(committed_data(str(run / "final" / "canaries"))).to_pylist()
    assert len(canary_rows) == can["rows"] and {r["page_id"] for r in canary_rows} <= {r["page_id"] for r in rows}
    assert isinstance(s["decontamination"]["short_items"], dict)    # per benchmark: used / left out as generic


def test_report_html_shows_every_section_readably(finished):
    _, run = finished
    page = (run / "report" / "index.html").read_text()
    for sid in ("iterations", "charts", "final", "contamination", "samples", "duplicates", "languages",
                "flagged", "marks", "drops"):
        assert f'id="{sid}"' in page, sid
    assert "<script" not in page and 'src="http' not in page
    assert not re.search(r"\{&quot;|\{\"", page), "raw JSON in the report"
    assert "True precision and recall" in page and "pages with lines removed" in page
    assert "minicrawl-7-" in page                          # a planted benchmark item named in the removals
    s = json.loads((run / "report" / "summary.json").read_text())
    it1 = s["iterations"][0]
    assert it1["marks"] and {m["decided_by"] for m in it1["marks"]} == {"proposer"}
    growth = s["details"]["iterations"]["1"]["mark_growth"]
    assert sum(growth.values()) == it1["seed_added"]       # per-mark seed growth adds up to the counted one
    assert s["details"]["languages"]["pages"]
    assert s["details"]["near_duplicates"]["total"] == s["ingest"]["near_duplicates"]


def test_run_log_has_timestamps_and_levels(finished):
    _, run = finished
    lines = (run / "logs" / "run.log").read_text().splitlines()
    pat = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO|WARNING|ERROR) +corpus_pipeline\.\w+: ")
    assert lines and all(pat.match(ln) for ln in lines), lines[:3]
    assert any("final corpus:" in ln for ln in lines) and any("iteration 1: collected" in ln for ln in lines)


def test_inspect_text_json_host_and_missing_run(finished, tmp_path):
    _, run = finished
    p = cli("inspect", str(run), *SETTINGS)
    for needle in ("nearest the threshold", "far above the threshold", "near duplicates removed:",
                   "decontamination removals:", "matched gsm8k item minicrawl-7-"):
        assert needle in p.stdout, needle
    p = cli("inspect", str(run), "--json", "--host", "askmaths.net", "--prefix", "/questions/", "-n", "3", *SETTINGS)
    d = json.loads(p.stdout)
    assert set(d) >= {"collected", "pages", "duplicates", "contamination"}
    near, far = d["collected"]["near_threshold"], d["collected"]["far_above"]
    assert near and far and max(r["score"] for r in near) <= min(r["score"] for r in far)
    shown = d["pages"]["collected"] + d["pages"]["missed"]
    assert d["pages"]["pages"] > 3 and 3 <= len(shown) <= 6 and len(d["pages"]["collected"]) <= 3
    assert all(r["url"].startswith("https://askmaths.net/questions/") for r in shown)
    for part in ("collected", "missed"):           # each by score, highest first
        scores = [r["score"] for r in d["pages"][part]]
        assert scores == sorted(scores, reverse=True) and all(r["collected"] == (part == "collected")
                                                                for r in d["pages"][part])
    assert all(r["item_text"] for r in d["contamination"]["rows"])        # the benchmark item's own text
    p = cli("inspect", str(tmp_path / "nope"), check=False)
    assert p.returncode == 2 and "no such run folder" in p.stderr


def test_jsonl_gz_final_corpus_option(finished, tmp_path):
    crawl, run = finished
    other = tmp_path / "run"
    shutil.copytree(run, other)
    before = json.loads((other / "report" / "summary.json").read_text())
    run_ok(run_args(crawl, other, "--benchmarks", str(crawl / "benchmarks"), "--set", 'final.format="jsonl.gz"'))
    data = Path(committed_data(str(other / "final" / "corpus")))      # the committed attempt folder
    parts = sorted(data.glob("part-*.json.gz"))
    assert parts and not list(data.glob("*.parquet"))
    rows = [json.loads(x) for p in parts for x in gzip.decompress(p.read_bytes()).decode().splitlines()]
    assert len(rows) == before["final"]["pages"]
    assert all(list(r) == schemas.columns(schemas.FINAL_CORPUS) for r in rows)
    ref = {r["page_id"]: r for r in pq.read_table(committed_data(str(run / "final" / "corpus"))).to_pylist()}
    assert {r["page_id"]: r for r in rows} == ref


def test_report_renders_in_a_browser(finished, browser, screenshot):
    from selenium.webdriver.common.by import By

    _, run = finished
    browser.get((run / "report" / "index.html").as_uri())
    heads = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    for h in ("Iterations", "Charts", "Final corpus", "Decontamination: what was removed",
              "Sample collected pages per iteration", "Near-duplicate examples", "Pages per language",
              "Marked path prefixes"):
        assert h in heads, (h, heads)
    charts = browser.find_elements(By.TAG_NAME, "svg")
    assert len(charts) >= 6 and all(c.size["width"] > 100 for c in charts)
    # the README's picture: the labelled precision/recall chart, the final corpus and what decontamination removed
    browser.execute_script("document.getElementById('final').scrollIntoView(); window.scrollBy(0, -330)")
    screenshot(browser, "report.png")
