"""The ingest stage: pure per-source pipeline, exact-dedup key, and the Spark job on real WARCs."""
from __future__ import annotations

import io
import json
import random
from collections import Counter

import pytest
from test_extract import huge_page

from corpus_pipeline import schemas
from corpus_pipeline.config import Config as _Config
from corpus_pipeline.counters import Counts
from corpus_pipeline.dedup import exact
from corpus_pipeline.dedup.url import host_and_path, normalize_url, page_id
from corpus_pipeline.errors import NoInputError, UsageError
from corpus_pipeline.ingest import LANG_PREFIX, is_stat, process_source, split_totals
from corpus_pipeline.lang import detect_lang
from corpus_pipeline.text import count_tokens

# Every test runs with each extractor (ingest.extractor), each paired with one WARC reader
# (ingest.warc_reader): resiliparse + fastwarc (the defaults) and trafilatura + warcio.
COMBOS = [("resiliparse", "fastwarc"), ("trafilatura", "warcio")]
COMBO = {"value": COMBOS[0]}


def Config():  # noqa: N802 - the config class with the extractor and reader under test
    cfg = _Config()
    cfg.ingest.extractor, cfg.ingest.warc_reader = COMBO["value"]
    return cfg


@pytest.fixture(autouse=True, params=COMBOS, ids=["-".join(c) for c in COMBOS])
def extractor_and_reader(request):
    COMBO["value"] = request.param
    yield request.param

WORDS = ("theorem proof integral matrix vector group ring field prime number limit series function "
         "graph river market garden music history travel weather kitchen window morning evening").split()


def article(seed: int, n_par: int = 6, title: str = "A page") -> str:
    rng = random.Random(seed)
    pars = []
    for _ in range(n_par):
        words = [rng.choice(WORDS) for _ in range(60)]
        pars.append("<p>" + " ".join(words).capitalize() + ".</p>")
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            + "".join(pars) + "</article></body></html>")


def make_warc(path, records, gz=True):
    """records: (url, html str, date) -> a WARC written by warcio (HTTP 200, text/html; utf-8)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=gz)
        for url, html, date in records:
            body = html.encode("utf-8")
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                               ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                                warc_headers_dict={"WARC-Date": date}))
    return str(path)


# ---------------------------------------------------------------- pure helpers
def test_exact_normalization():
    a = "Let  x = 2.\n\nThen\u00a0X² = 4 "
    assert exact.normalize_text(a) == "let x = 2. then x2 = 4"
    assert exact.text_hash(a) == exact.text_hash("let x = 2. THEN x2 = 4")
    assert exact.text_hash("x^2 + 1") != exact.text_hash("x^3 + 1")    # digits matter in maths
    assert exact.text_hash("a\u200bb") == exact.text_hash("ab")
    assert len(exact.text_hash("")) == 32


def test_detect_lang():
    assert detect_lang("设函数 f(x) 在区间上连续，证明存在一点使得导数为零。" * 3) == "zh"
    assert detect_lang("The derivative of a function is the limit of the difference quotient.") == "en"
    assert detect_lang("Die Ableitung einer Funktion ist der Grenzwert des Differenzenquotienten und nicht mehr.") == "de"
    assert detect_lang("12345 + 678") == "und"
    # TeX and numbers do not drown the language of a maths text
    assert detect_lang("设 $f(x)=\\frac{1}{x^2+1}$，求 $\\int_0^1 f(x)\\,dx$ 的值。函数在区间上连续，所以积分存在。") == "zh"


def test_split_totals_keeps_languages_out_of_skips():
    stats, skips, langs = split_totals({"records": 5, "pages_extracted": 3, "not_html": 2,
                                        LANG_PREFIX + "en": 2, LANG_PREFIX + "zh": 1})
    assert stats["records"] == 5 and skips == {"not_html": 2} and langs == {"en": 2, "zh": 1}


# ---------------------------------------------------------------- process_source
def test_process_source_common_crawl_row(shared_data):
    ref = str(shared_data / "warc/whirlwind/whirlwind.warc.gz")
    counts = Counts("ingest", ref)
    rows = list(process_source(ref, Config(), counts))
    assert len(rows) == 1
    r = rows[0]
    assert list(r) == schemas.columns(schemas.EXTRACTED)
    assert r["url"] == "https://an.wikipedia.org/wiki/Escopete"
    assert r["page_id"] == page_id(r["url"]) and r["norm_url"] == normalize_url(r["url"])
    assert (r["host"], r["path"]) == host_and_path(r["url"]) == ("an.wikipedia.org", "/wiki/Escopete")
    assert r["n_tokens"] == count_tokens(r["text"]) > 50
    assert r["text_hash"] == exact.text_hash(r["text"])
    assert r["title"] and "Escopete" in r["title"]
    assert r["warc_file"] == ref and r["warc_offset"] > 0 and r["fetched_at"].startswith("2024-")
    assert counts["pages_extracted"] == 1 and counts["records"] == 4


def test_short_text_and_extractor_skips_are_counted(tmp_path, monkeypatch):
    d = "2024-01-01T00:00:00Z"
    ref = make_warc(tmp_path / "a.warc.gz", [
        ("http://x.example/long", article(1), d),
        ("http://x.example/short", "<html><body><p>Too short.</p></body></html>", d),
        ("http://x.example/skip-me", article(2), d),
    ])
    import corpus_pipeline.extract as ex

    real = ex.extract_html

    def fake(html, url, **kw):
        return ex.Skip("extract_timeout") if url.endswith("skip-me") else real(html, url, **kw)

    monkeypatch.setattr("corpus_pipeline.ingest.extract_html", fake)   # where process_source looks it up
    counts = Counts()
    rows = list(process_source(ref, Config(), counts))
    assert [r["url"] for r in rows] == ["http://x.example/long"]
    assert counts["text_too_short"] + counts["extract_empty"] == 1
    assert counts["extract_timeout"] == 1
    # min_text_chars is honoured
    cfg = Config()
    cfg.ingest.min_text_chars = 10_000
    counts = Counts()
    assert list(process_source(ref, cfg, counts)) == []
    assert counts["text_too_short"] >= 2


def test_pathological_page_hits_time_limit_and_run_goes_on(tmp_path):
    d = "2024-01-01T00:00:00Z"
    huge = huge_page()   # several times the limit even for the fastest extractor on fast cores
    ref = make_warc(tmp_path / "p.warc.gz", [
        ("http://x.example/huge", huge, d),
        ("http://x.example/after", article(3), d),
    ])
    cfg = Config()
    cfg.ingest.max_page_bytes = 20_000_000
    cfg.ingest.extract_timeout_s = 0.1
    counts = Counts()
    rows = list(process_source(ref, cfg, counts))
    assert counts["extract_timeout"] == 1
    assert [r["url"] for r in rows] == ["http://x.example/after"]


@pytest.mark.slow
def test_derived_minicrawl_every_page_accounted(shared_data):
    folder = shared_data / "warc/derived_minicrawl"
    recs = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]
    urls = {r["url"] for r in recs}
    total = Counts()
    rows = []
    for f in sorted(folder.glob("*.warc.gz")):
        rows += list(process_source(str(f), Config(), total))
    c = total.as_dict()
    # every record has exactly one outcome: a row or one named reason
    assert c["records"] == len(rows) + sum(v for k, v in c.items() if not is_stat(k))
    # every extracted page counted under its language, the same language as its row
    _, _, langs = split_totals(c)
    assert sum(langs.values()) == c["pages_extracted"] == len(rows)
    assert langs == dict(Counter(r["lang"] for r in rows)) and langs.get("en", 0) > 0.8 * len(rows)
    assert {r["url"] for r in rows} <= urls
    assert len(rows) >= 0.9 * len(recs)
    maths = {r["url"] for r in recs if r["label"] == "math"}
    got_maths = [r for r in rows if r["url"] in maths]
    assert got_maths and sum(r["has_math_markup"] for r in got_maths) >= len(got_maths) // 2


# ---------------------------------------------------------------- the Spark job
@pytest.fixture(scope="module")
def synthetic_warcs(tmp_path_factory):
    """Exact and near duplicates under different URLs, and one URL fetched twice across files."""
    d = tmp_path_factory.mktemp("synthetic")
    base = article(10, n_par=8, title="Near")
    near = base.replace("<p>", "<p>Changed opening words here. ", 1)
    a = make_warc(d / "syn-a.warc.gz", [
        ("http://dup.example/one", article(11), "2024-02-01T00:00:00Z"),
        ("http://dup.example/two", article(11), "2024-02-01T00:00:00Z"),       # exact duplicate of /one
        ("http://near.example/a", base, "2024-02-01T00:00:00Z"),
        ("<http://Twice.Example:80/page#frag>", article(12), "2024-03-01T00:00:00Z"),
    ])
    b = make_warc(d / "syn-b.warc", [
        ("http://near.example/b", near, "2024-02-01T00:00:00Z"),              # near duplicate of /a
        ("http://twice.example/page", article(13), "2024-01-01T00:00:00Z"),   # same URL, older fetch
    ], gz=False)
    return [a, b]


@pytest.mark.spark
def test_run_ingest_on_real_and_synthetic_warcs(spark, shared_data, synthetic_warcs, tmp_path):
    from pyspark.sql import functions as F

    from corpus_pipeline.loop import run_ingest
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.io import read_table

    broken = shared_data / "warc/warcio_testdata"
    inputs = [str(shared_data / "warc/dolma/sample-*.warc.gz"), str(shared_data / "warc/whirlwind"),
              str(broken / "example-bad.warc.gz.bad"), str(broken / "example-wrong-chunks.warc.gz"),
              str(broken / "example-space-in-url.arc")] + synthetic_warcs
    cfg = Config()
    cfg.ingest.files_per_task = 3
    run = RunFolder(str(tmp_path / "run"))
    view = RunView(run)
    res = run_ingest(spark, inputs, run, cfg, log=lambda s: None)
    c = res.counts
    assert not res.skipped and run.is_committed(view.location("pages"))
    assert run.is_committed(view.location("pages_skips")) and run.is_committed(view.location("pages_duplicates"))

    pages = read_table(spark, view.location("pages"), schemas.PAGES)
    rows = {r["url"]: r.asDict() for r in pages.collect()}     # tiny test data
    assert len(rows) == c["pages"] == pages.select("page_id").distinct().count()
    assert c["pages"] == c["pages_extracted"] - c["url_duplicates"] - c["exact_duplicates"] - c["near_duplicates"]

    # the page fetched three times by wget: one row, the latest fetch
    from corpus_pipeline import warc as warcmod
    from corpus_pipeline.config import IngestConfig

    fetches = [p.fetched_at for f in sorted((shared_data / "warc/dolma").glob("sample-*.warc.gz"))
               for p in warcmod.read_file(lambda f=f: open(f, "rb"), str(f), IngestConfig(), Counts())
               if p.url == "https://allenai.org/"]
    assert len(fetches) == 3
    assert rows["https://allenai.org/"]["fetched_at"] == max(fetches)
    # the synthetic URL fetched twice (<...>, case, port and fragment differ): the later one survives
    twice = [r for r in rows.values() if r["host"] == "twice.example"]
    assert len(twice) == 1 and twice[0]["fetched_at"] == "2024-03-01T00:00:00Z"
    assert twice[0]["url"] == "http://Twice.Example:80/page#frag"

    dups = read_table(spark, view.location("pages_duplicates"), schemas.DUPLICATES).collect()
    by_kind = {}
    for d in dups:
        by_kind.setdefault(d["kind"], []).append(d)
    assert len(by_kind["url"]) == c["url_duplicates"] >= 3            # allenai x2, twice.example x1
    # exact: the smaller page_id of the two identical pages survives
    one, two = page_id("http://dup.example/one"), page_id("http://dup.example/two")
    survivor, removed = min(one, two), max(one, two)
    assert {"exact": (removed, survivor)}["exact"] in {(d["page_id"], d["kept_page_id"]) for d in by_kind["exact"]}
    assert sum(1 for r in rows.values() if r["host"] == "dup.example") == 1
    # near: one of the two near pages is gone
    assert sum(1 for r in rows.values() if r["host"] == "near.example") == 1
    assert c["near_duplicates"] >= 1 and any(d["kind"] == "near" for d in dups)

    # skips: data rows per source file, summing to the marker's counts; broken files are counted
    skips = read_table(spark, view.location("pages_skips"), schemas.SKIPS)
    per_reason = {r["reason"]: r["n"] for r in skips.groupBy("reason").agg(F.sum("count").alias("n")).collect()}
    assert per_reason == c["skips"]
    assert per_reason.get("non_response", 0) > 0
    assert sum(per_reason.get(k, 0) for k in ("corrupt_record", "truncated_record", "non_chunked_gzip_file")) >= 2
    srcs = {r["source"] for r in skips.where(F.col("reason") == "non_chunked_gzip_file").collect()}
    assert any(s.endswith("example-bad.warc.gz.bad") for s in srcs)
    # example-wrong-chunks.warc.gz: its only record is cut short, so it gave nothing readable
    assert c["files"] == c["inputs"] == 8 and c["files_read"] == 7

    # a rerun finds the stage committed and does nothing
    again = run_ingest(spark, inputs, run, cfg, log=lambda s: None)
    assert again.skipped and again.counts == c


@pytest.mark.spark
def test_run_ingest_exit_semantics(spark, tmp_path):
    from corpus_pipeline.loop import run_ingest
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder

    junk = tmp_path / "junk.warc.gz"
    junk.write_bytes(bytes(random.Random(0).randrange(256) for _ in range(5000)))
    html = tmp_path / "page.warc"
    html.write_bytes(b"<!doctype html><html><body>this is not a WARC</body></html>\n" * 10)
    cfg = Config()
    cfg.dedup.near = False
    run = RunFolder(str(tmp_path / "run"))
    view = RunView(run)
    with pytest.raises(NoInputError):
        run_ingest(spark, [str(junk), str(html)], run, cfg, log=lambda s: None)
    assert not run.is_committed(view.location("pages"))
    with pytest.raises(UsageError):
        run_ingest(spark, [str(tmp_path / "missing-*.warc.gz")], run, cfg, log=lambda s: None)


# ---------------------------------------------------------------- the mini-crawl's phenomena
@pytest.fixture(scope="module")
def minicrawl(tmp_path_factory):
    import corpus_pipeline.minicrawl as mc
    out = tmp_path_factory.mktemp("minicrawl")
    manifest = mc.generate(out, pages=120, random_seed=5)
    labels = {json.loads(line)["url"] for line in (out / "labels.jsonl").read_text().splitlines() if line.strip()}
    return out, manifest, labels


@pytest.mark.spark
@pytest.mark.slow
def test_minicrawl_phenomena_land_as_expected(spark, minicrawl, tmp_path):
    from corpus_pipeline import warc as warcmod
    from corpus_pipeline.config import IngestConfig
    from corpus_pipeline.loop import run_ingest
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.io import read_table

    out, manifest, labels = minicrawl
    ph = manifest["phenomena"]
    files = [str(out / f["file"]) for f in manifest["files"]]
    # what the WARC level sees
    fetches: dict = {}
    wc = Counts()
    for f in files:
        for p in warcmod.read_file(lambda f=f: open(f, "rb"), f, IngestConfig(), wc):
            fetches.setdefault(p.url, []).append(p.fetched_at)
    assert wc["http_status_3xx"] == ph.get("redirect", 0) >= 1
    assert wc["not_html"] == ph.get("non_html", 0) >= 1
    assert wc["truncated_record"] >= 1 and manifest["truncated"]["url"] not in fetches
    assert not any(u.startswith("<") for u in fetches)

    cfg = Config()
    res = run_ingest(spark, [str(out / "warc")], RunFolder(str(tmp_path / "run")), cfg, log=lambda s: None)
    c = res.counts
    rows = [r.asDict() for r in read_table(spark, res.path, schemas.PAGES).collect()]
    urls = [r["url"] for r in rows]
    assert len(urls) == len(set(urls)) and set(urls) <= labels
    assert not any("\ufffd" in r["text"] for r in rows)          # GBK / windows-1252 pages decoded
    # recrawls: one row, the latest fetch
    for u, dates in fetches.items():
        if len(dates) > 1 and u in urls:
            assert next(r for r in rows if r["url"] == u)["fetched_at"] == max(dates)
    assert c["url_duplicates"] >= ph.get("recrawl", 0) >= 1
    assert c["exact_duplicates"] >= ph.get("exact_dup", 0) >= 1
    assert c["near_duplicates"] >= 1 and ph.get("near_dup", 0) >= 1
    # maths markup is recorded
    assert any(r["has_math_markup"] for r in rows)
    assert any(r["lang"] == "zh" for r in rows) == (ph.get("zh_math", 0) + ph.get("zh_non_math", 0) > 0)


# ---------------------------------------------------------------- command line
def test_cli_dry_run_and_bad_input(shared_data, tmp_path, capsys):
    from corpus_pipeline.cli import main

    rc = main(["ingest", "--input", str(shared_data / "warc/dolma/*.warc.gz"), "--run", str(tmp_path / "r"),
               "--dry-run"])
    out = capsys.readouterr().out
    assert rc == 0 and "-> 4 WARC file(s)" in out
    assert not (tmp_path / "r").exists()
    rc = main(["ingest", "--input", str(tmp_path / "none-*.warc.gz"), "--run", str(tmp_path / "r")])
    assert rc == 2 and "matches no WARC" in capsys.readouterr().err


def test_token_count_splits_on_every_unicode_space_and_counts_cjk_characters():
    import re

    from corpus_pipeline.text import _TOKEN

    spaced = "a\u00a0b\u3000c\u2028d\u2009e\x1cf  g\th\n"          # no CJK: the str.split() path
    assert count_tokens(spaced) == len(_TOKEN.findall(spaced)) == 8
    mixed = "x\u00a0数学 y\u3000z"                                  # CJK: one token a character
    assert count_tokens(mixed) == len(_TOKEN.findall(mixed)) == 5
    assert count_tokens("") == count_tokens("  \n") == 0
    assert re.fullmatch(r"\s", "\x1c") and "a\x1cb".split() == ["a", "b"]
