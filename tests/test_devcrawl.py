"""The development crawl of real content: what it holds, that it is deterministic and shares no page
with the starter seed (no Spark), and the loop on it with the defaults (slow, Spark)."""
from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

import pytest

from devtools import devcrawl

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def crawl(shared_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("devcrawl")
    manifest = devcrawl.build(str(shared_data), str(out))
    return out, manifest


def _labels(out: Path) -> list[dict]:
    return [json.loads(line) for line in open(out / "labels.jsonl", encoding="utf-8")]


def test_devcrawl_holds_real_sites_with_labels(crawl):
    out, m = crawl
    labels = _labels(out)
    assert m["pages"] == len(labels) >= 2000
    assert m["labels"]["math"] >= 800 and m["labels"]["non-math"] >= 1300
    sites = m["sites"]
    # the shapes the loop missed on real crawls: a whole-maths site of numbered pages, a maths blog
    # filed by date with a minority of non-maths posts, a Chinese site mixing maths and code, Chinese
    # non-maths sites; made-up URLs say so
    assert sites["problems.example.org"] == {"math": sites["problems.example.org"]["math"]} and \
        sites["problems.example.org"]["math"] >= 300
    assert sites["dmoi.example.org"]["math"] >= 100 and set(sites["dmoi.example.org"]) == {"math"}
    assert all(re.fullmatch(r"https://(problems|dmoi)\.example\.org/\d{3,4}/", r["url"])
               for r in labels if r["site"] in ("problems.example.org", "dmoi.example.org"))
    blog = sites["www.offconvex.org"]
    assert blog["math"] == 49 and 0 < blog["non-math"] < 0.25 * (blog["math"] + blog["non-math"])
    assert sites["docs.pingcap.com"]["non-math"] >= 300
    synthetic = [r for r in labels if r.get("synthetic_url")]
    assert m["synthetic_urls"] == len(synthetic) > 0
    assert {r["site"] for r in synthetic} == {"problems.example.org", "dmoi.example.org", "www.offconvex.org",
                                              "football.example.org"}
    assert not any(r.get("synthetic_url") for r in labels if r["site"] in ("docs.pingcap.com", "cp-algorithms.com"))
    # whole maths sites, a mixed site, a maths blog filed by date, number-heavy non-maths
    assert sites["openstax.org"] == {"math": 38}
    assert sites["oi-wiki.org"]["math"] == 33 and sites["oi-wiki.org"]["non-math"] == 40
    assert all(re.match(r"https://www\.offconvex\.org/20\d\d/\d\d/", r["url"])
               for r in labels if r["site"] == "www.offconvex.org")
    for s in ("en.wikipedia.org", "based.cooking", "peps.python.org"):
        assert sites[s].get("non-math", 0) >= 20
    assert all(r["url"].startswith(("http://", "https://")) for r in labels)
    assert len({r["url"] for r in labels}) == len(labels)


def test_devcrawl_shares_no_page_with_the_starter_seed(crawl):
    from corpus_pipeline.seeds import default_seed_path

    out, _ = crawl
    seed = [json.loads(line) for line in gzip.open(default_seed_path(), "rt", encoding="utf-8")]
    seed_urls = {r["url"] for r in seed}
    assert not seed_urls & {r["url"] for r in _labels(out)}
    # and no text: no 200-character window of a seed document's start is in a crawl page
    from corpus_pipeline.config import IngestConfig
    from corpus_pipeline.counters import Counts
    from corpus_pipeline.warc import iter_records

    norm = lambda t: re.sub(r"\s+", " ", t)   # noqa: E731
    starts = {norm(r["text"])[:200] for r in seed}
    pages = 0
    for f in sorted((out / "warc").glob("*.warc.gz")):
        with open(f, "rb") as fh:
            for p in iter_records(fh, str(f), IngestConfig(), Counts()):
                pages += 1
                html = norm(p.html)
                assert not any(s in html for s in starts if len(s) == 200), p.url
    assert pages == len(_labels(out))


def test_devcrawl_is_deterministic(crawl, shared_data, tmp_path):
    out, _ = crawl
    again = tmp_path / "again"
    devcrawl.build(str(shared_data), str(again))
    assert devcrawl.digest(str(again)) == devcrawl.digest(str(out))


def test_maths_sources_are_served_with_mathjax(crawl):
    html = devcrawl.render_source({"domain": "openstax.org", "format": "markdown", "label": "math",
                                   "title": "Vectors", "text": "Let $v = (1, 2)$ and\n\n$$|v| = \\sqrt{5}.$$"})
    assert "mathjax" in html and "\\(v = (1, 2)\\)" in html and "\\[|v| = \\sqrt{5}.\\]" in html
    html = devcrawl.render_source({"domain": "oi-wiki.org", "format": "markdown", "label": "math",
                                   "title": "x", "text": "设 $a$ 为整数。"})
    assert "$a$" in html


def test_cli_errors_name_the_missing_data(tmp_path, capsys):
    assert devcrawl.main(["--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "math_docs.jsonl" in capsys.readouterr().err



def test_code_labelling_leaves_the_crawl_byte_identical(crawl, shared_data, tmp_path):
    """--label-domain code adds labels_code.jsonl (code / non-code / ambiguous by documented rules per
    source, in the order of labels.jsonl) and a manifest entry; the WARCs, labels.jsonl and the rest of
    the manifest are the same bytes, and a rebuild without the option removes the file again."""
    out, manifest = crawl
    code = tmp_path / "code"
    assert devcrawl.main(["--data", str(shared_data), "--out", str(code), "--label-domain", "code"]) == 0
    for name in manifest["files"] + ["labels.jsonl"]:
        sub = "warc" if name.endswith(".warc.gz") else ""
        assert (code / sub / name).read_bytes() == (out / sub / name).read_bytes(), name
    m = json.loads((code / "manifest.json").read_text(encoding="utf-8"))
    dm = m.pop("label_domains")["code"]
    assert m == json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in open(code / "labels_code.jsonl", encoding="utf-8")]
    assert [r["url"] for r in rows] == [r["url"] for r in _labels(out)]
    assert {r["label"] for r in rows} == {"code", "non-code", "ambiguous"}
    assert dm["file"] == "labels_code.jsonl" and sum(dm["labels"].values()) == len(rows)
    assert dm["labels"]["code"] >= 150 and dm["labels"]["non-code"] >= 1500
    lab = {r["url"]: (r["label"], r["rule"]) for r in rows}
    expect = {
        "https://stackoverflow.com/questions/18327314/how-to-allow-http-content-within-an-iframe-on-a-https-site":
            ("code", "llm_webkit_code"),
        "https://oi-wiki.org/lang/class/": ("code", "oi_wiki_lang"),
        "https://oi-wiki.org/tools/editor/emacs/": ("ambiguous", "oi_wiki_tools"),
        "https://oi-wiki.org/math/number-theory/gcd/": ("non-code", "maths"),
        "https://peps.python.org/pep-0202/": ("code", "pep"),
        "https://peps.python.org/pep-0494/": ("non-code", "pep_release_schedule"),
        "https://peps.python.org/pep-2026/": ("ambiguous", "pep_process"),
        "https://docs.pingcap.com/zh/tidb/stable/sql-statement-select": ("code", "tidb_sql"),
        "https://docs.pingcap.com/zh/tidb/stable/release-6.5.9": ("non-code", "tidb_release_notes"),
        "https://docs.pingcap.com/zh/tidb/stable/tiup-cluster": ("ambiguous", "tidb_ops"),
        "https://nodejs.org/en/blog/release/v12.13.1": ("non-code", "nodejs_news"),
        "https://www.offconvex.org/2021/10/27/node-js-v7-has-updated-v8-to-5-4/": ("ambiguous", "nodejs_features"),
        "https://cp-algorithms.com/algebra/binary-exp.html": ("ambiguous", "cp_algorithms"),
    }
    assert {u: lab.get(u) for u in expect} == expect
    for u, want in devcrawl.REAL_CODE_LABELS.items():
        assert lab.get(u, (want, ""))[0] == want, u
    maths = {r["url"] for r in _labels(out) if r["label"] == "math"}
    assert all(lab[u][0] == "non-code" or lab[u][1] == "cp_algorithms" for u in maths)
    assert all(lab[r["url"]][0] == "non-code" for r in _labels(out)
               if r["site"] in ("en.wikipedia.org", "based.cooking", "football.example.org"))
    devcrawl.build(str(shared_data), str(code))
    assert not (code / "labels_code.jsonl").exists()
    assert (code / "manifest.json").read_bytes() == (out / "manifest.json").read_bytes()
    with pytest.raises(SystemExit):
        devcrawl.main(["--data", str(shared_data), "--out", str(code), "--label-domain", "maths"])

# ---------------------------------------------------------------- the loop on it (the targets)
@pytest.fixture(scope="module")
def devloop(spark, shared_data, tmp_path_factory):
    """(work folder, iteration table, loop.json) of the loop on the development crawl with the
    defaults (``bench_devloop.run_devloop``), run once for the tests below."""
    sys.path.insert(0, str(ROOT))
    from bench.bench_devloop import run_devloop

    tmp_path = tmp_path_factory.mktemp("devloop")
    rows, loop, _ = run_devloop(tmp_path, in_process=True)
    return tmp_path, rows, loop


@pytest.mark.slow
@pytest.mark.spark
def test_loop_on_real_content_meets_the_targets(devloop):
    """Starter seed, defaults, --annotate auto: final precision and recall >= 0.95, precision never
    down by more than 0.02, seed additions >= 90% maths, saturated within 4; without the path step
    recall at least 0.10 lower; the path step recovers at least half of the maths pages under flagged
    hosts that iteration 1 missed; the shipped background set only fills the languages the crawl lacks."""
    from bench.bench_devloop import NO_PATH_STEP, path_recovery, run_devloop, targets

    tmp_path, rows, loop = devloop
    no_path, _, _ = run_devloop(tmp_path, [NO_PATH_STEP], in_process=True, crawl=tmp_path / "crawl",
                                pages_from=tmp_path / "run", name="no_path")
    rec = path_recovery(tmp_path / "run", tmp_path / "crawl" / "labels.jsonl")
    print("\n" + devcrawl.format_table(rows) + "\nwithout the path step:\n" + devcrawl.format_table(no_path))
    got = targets(rows, loop, no_path, rec)
    assert all(ok for _, ok in got.values()), got
    assert len(no_path) <= 2 and no_path[0]["true_recall"] == rows[0]["true_recall"]   # same first classifier
    # no archive folder was ever marked; the whole-maths hosts were
    assert not any(re.search(r"/(19|20)\d\d/", m) for r in rows for m in r["marks"])
    assert {"problems.example.org/", "dmoi.example.org/"} <= set(rows[0]["marks"])
    # the crawl's own pages come first: the shipped background only fills what the crawl lacks of a
    # language (measured: the crawl's pages without maths markup fall a few dozen short in English)
    model = json.loads((tmp_path / "run" / "iter=001" / "model" / "_COMMIT.json").read_text())["counts"]
    by, avail = model["negatives_by_language"], model["available_by_language"]
    assert by.get("zh", 0) > 0 and by.get("en", 0) > 0 and not model["repeated_negatives"]
    assert model["background_negatives"] == sum(max(0, by[k] - avail.get(k, 0)) for k in by if k != "*")


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.parametrize("iteration", [1, "last"])
def test_judging_intervals_cover_the_truth_on_the_development_crawl(devloop, iteration):
    """The labels playing the person on 200 judging samples of the loop's iteration 1 (which misses
    maths pages under flagged hosts) and its last iteration, drawn by the product's sampler: the 95%
    intervals cover the true precision and recall in >= 93%, the precision half-width is within the
    margin asked, and the flagged hosts' estimated share of the missed maths pages is the labels'."""
    from judgecov import coverage, driver_frame

    work, rows, _ = devloop
    i = rows[-1]["iteration"] if iteration == "last" else iteration
    frame, truth = driver_frame(work / "run", i, work / "crawl" / "labels.jsonl")
    c = coverage(frame, truth, 0.05, 200)
    print(i, c)
    assert c["precision_coverage"] >= 0.93 and c["recall_coverage"] >= 0.93, c
    assert c["max_half_width"] <= 0.05, c
    if c["share"] is not None:
        assert abs(c["share_mean"] - c["share"]) < 0.15 and c["share_coverage"] >= 0.9, c
