"""Spark layer of the domain and path steps, checked against the pure rules of domains.py."""
from __future__ import annotations

import json
import random

import pytest

from corpus_pipeline import annotate as A
from corpus_pipeline import schemas
from corpus_pipeline.annotate import Mark
from corpus_pipeline.config import AnnotateConfig, DomainConfig
from corpus_pipeline.spark.io import rows_to_df
import reference

pytestmark = pytest.mark.spark


def _pages():
    """(page_id, host, path, url, title, collected) of a small crawl."""
    out = []

    def add(pid, host, path, collected):
        out.append(reference.PageRef(pid, host, path, collected, f"https://{host}{path}", f"title {pid}"))

    for i in range(20):
        add(f"mq{i:02d}", "mathoverflow.net", f"/questions/{i}/slug", i < 17)
    for i in range(8):
        add(f"mu{i:02d}", "mathoverflow.net", f"/users/{i}/name", i == 0)
    add("mr", "mathoverflow.net", "/about", False)
    # odd paths: empty segments, no leading slash, a directory page, no path
    add("me1", "mathoverflow.net", "/meta//x/y", True)
    add("me2", "mathoverflow.net", "/meta//x/z", False)
    add("me3", "mathoverflow.net", "meta/p", True)
    add("me4", "mathoverflow.net", "/meta/", False)
    add("me5", "mathoverflow.net", None, False)
    for i in range(10):                               # exactly 10%: not flagged
        add(f"nw{i:02d}", "news.example.com", f"/world/{i}/story", i == 0)
    for i in range(9):                                # 2 of 9 but min_pages 10 in one test
        add(f"bl{i:02d}", "blog.example.org", f"/2024/{i % 2}/post-{i}", i < 2)
    for i in range(6):                                # subdomains of one registered domain
        add(f"se{i:02d}", "math.stackexchange.com", f"/questions/{i}/q", i < 5)
        add(f"ck{i:02d}", "cooking.stackexchange.com", f"/questions/{i}/q", False)
    add("nohost", "", "/x/y", True)
    return out


def _dfs(spark, pages):
    pdf = rows_to_df(spark, [schemas.row(schemas.PAGES, {"page_id": p.page_id, "url": p.url, "host": p.host,
                                                          "path": p.path, "title": p.title,
                                                          "has_math_markup": p.markup})
                             for p in pages], schemas.PAGES)
    cdf = rows_to_df(spark, [(p.page_id, 0.9, 10) for p in pages if p.collected], schemas.COLLECTED)
    return pdf, cdf


@pytest.fixture(scope="module")
def small(spark):
    """The small crawl as cached DataFrames (built once for this module)."""
    pages = _pages()
    pdf, cdf = _dfs(spark, pages)
    pdf, cdf = pdf.cache(), cdf.cache()
    yield pages, pdf, cdf
    pdf.unpersist()
    cdf.unpersist()


def _rows(df):
    return [r.asDict() for r in df.collect()]


@pytest.mark.parametrize("key,min_pages", [("host", 1), ("host", 10), ("registered", 1)])
def test_domain_stats_match_pure_rules(spark, small, key, min_pages):
    pages, pdf, cdf = small
    cfg = DomainConfig(key=key, min_pages=min_pages)
    from corpus_pipeline.spark.domains import domain_stats

    got = sorted(_rows(domain_stats(spark, pdf, cdf, cfg)), key=lambda r: r["host"])
    assert got == reference.aggregate_domains(pages, cfg)
    by = {r["host"]: r for r in got}
    assert by.get("news.example.com", {}).get("flagged") is not True
    if key == "host":
        assert by["mathoverflow.net"]["flagged"] and by["mathoverflow.net"]["collected"] == 20
        assert by["news.example.com"]["fraction"] == pytest.approx(0.1) and not by["news.example.com"]["flagged"]
        assert by["blog.example.org"]["flagged"] is (min_pages <= 9)
    else:
        assert by["stackexchange.com"]["pages"] == 12 and by["stackexchange.com"]["collected"] == 5
        assert by["stackexchange.com"]["flagged"]


def test_prefix_stats_match_pure_rules_and_cover_flagged_only(spark, small):
    from corpus_pipeline.spark.domains import domain_stats, prefix_stats

    pages, pdf, cdf = small
    cfg = DomainConfig(path_depth=2, examples=2)
    doms = domain_stats(spark, pdf, cdf, cfg)
    got = sorted(_rows(prefix_stats(spark, pdf, cdf, doms, cfg)), key=lambda r: (r["host"], r["depth"], r["prefix"]))
    flagged = {r["host"] for r in _rows(doms) if r["flagged"]}
    want = reference.aggregate_prefixes(pages, flagged, cfg)
    for r in got:
        r["examples"] = json.loads(r["examples"])
        r["hist_collected"], r["hist_uncollected"] = json.loads(r["hist_collected"]), json.loads(r["hist_uncollected"])
    assert got == want
    assert {r["host"] for r in got} == {"mathoverflow.net", "blog.example.org", "math.stackexchange.com"}
    q = next(r for r in got if r["host"] == "mathoverflow.net" and r["prefix"] == "/questions/")
    assert (q["pages"], q["collected"], q["depth"]) == (20, 17, 1)
    assert [e["collected"] for e in q["examples"]] == [True, True, False, False]
    assert q["examples"][0] == {"url": "https://mathoverflow.net/questions/0/slug", "title": "title mq00",
                                "collected": True}
    # the blog's date folders are grouped into its root (which holds every page of the host)
    assert not any(r["prefix"].startswith("/2024/") for r in got)
    assert next(r for r in got if r["host"] == "blog.example.org" and r["prefix"] == "/")["pages"] == 9
    meta = {r["prefix"]: r["pages"] for r in got if r["prefix"].startswith("/meta")}
    assert meta == {"/meta/": 4, "/meta//": 2}


def test_prefix_stats_registered_key_keeps_real_hosts(spark, small):
    from corpus_pipeline.spark.domains import domain_stats, prefix_stats

    _, pdf, cdf = small
    cfg = DomainConfig(key="registered", path_depth=1)
    got = _rows(prefix_stats(spark, pdf, cdf, domain_stats(spark, pdf, cdf, cfg), cfg))
    se = {(r["host"], r["prefix"]): r["collected"] for r in got if "stackexchange" in r["host"] and r["prefix"] != "/"}
    assert se == {("cooking.stackexchange.com", "/questions/"): 0, ("math.stackexchange.com", "/questions/"): 5}


def test_pages_under_marks(spark, small):
    from corpus_pipeline.spark.domains import pages_under_marks

    pages, pdf, cdf = small
    marks = [Mark("mathoverflow.net", "/questions/", "proposer"),
             Mark("mathoverflow.net", "/questions/3/", "person"),    # deeper: wins for page 3
             Mark("MathOverflow.net", "/questions/", "carried"),     # duplicate
             Mark("blog.example.org", "/2024/1/", "person")]
    got = {r["page_id"]: r for r in _rows(pages_under_marks(spark, pdf, cdf, marks, 2))}
    expected = {p.page_id for p in pages if not p.collected and (
        (p.host == "mathoverflow.net" and (p.path or "").startswith("/questions/")) or
        (p.host == "blog.example.org" and (p.path or "").startswith("/2024/1/")))}
    assert set(got) == expected and expected          # uncollected only, each page once
    assert got["mq17"] == {"seed_id": "p:mq17", "page_id": "mq17", "source": "path:mathoverflow.net/questions/",
                           "added_in": 3, "text": None}
    assert all(r["added_in"] == 3 and r["text"] is None for r in got.values())
    assert all(r["source"] == "path:blog.example.org/2024/1/" for k, r in got.items() if k.startswith("bl"))
    # no users, news or cooking pages; the collected page 3 is not added although under the deeper mark
    assert not any(k.startswith(("mu", "nw", "ck")) for k in got) and "mq03" not in got
    # the deeper mark wins the tie: make page mq03 uncollected
    cdf2 = cdf.filter("page_id != 'mq03'")
    got2 = {r["page_id"]: r for r in _rows(pages_under_marks(spark, pdf, cdf2, marks, 2))}
    assert got2["mq03"]["source"] == "path:mathoverflow.net/questions/3/"
    # no marks: an empty SEED table
    empty = pages_under_marks(spark, pdf, cdf, [], 2)
    assert empty.columns == schemas.columns(schemas.SEED) and empty.count() == 0


def _minicrawl_shaped(seed: int = 7):
    """Same shape as tests/test_annotate.py::minicrawl_shaped_pages (the mini-crawl generator was not
    available when this was written): maths Q&A sites with /questions/ (maths) and /users/ /tags/ /help/
    (non-maths), a pure maths site, non-maths sites; maths pages collected with misses, a few false positives."""
    rng = random.Random(seed)
    labeled = []
    for host in ("math.stackexchange.com", "mathoverflow.net"):
        labeled += [(host, f"/questions/{1000 + i}/problem-{i}", True) for i in range(40)]
        labeled += [(host, f"/users/{i}/someone-{i}", False) for i in range(15)]
        labeled += [(host, f"/tags/{t}", False) for t in ("algebra", "calculus", "geometry", "topology")]
        labeled += [(host, f"/help/{t}", False) for t in ("asking", "privacy", "badges", "editing")]
    labeled += [("mathworld.example.org", f"/topics/{t}/page{i}", True) for t in ("algebra", "geometry")
                for i in range(8)]
    for host in ("news.example.com", "recipes.example.net"):
        labeled += [(host, f"/section{i % 3}/article-{i}", False) for i in range(40)]
    out = []
    for n, (h, p, m) in enumerate(labeled):
        c = rng.random() < (0.85 if m else 0.03)
        # maths pages carry markup; a missed maths page scores just under the threshold, a non-maths one low
        score = rng.uniform(0.5, 1.0) if c else (rng.uniform(0.15, 0.5) if m else rng.uniform(0, 0.08))
        out.append(reference.PageRef(f"{n:05d}", h, p, c, f"https://{h}{p}", p, m, round(score, 6)))
    return out


def test_minicrawl_shaped_end_to_end(spark, tmp_path):
    from corpus_pipeline.spark.domains import domain_stats, pages_under_marks, prefix_stats

    pages = _minicrawl_shaped()
    pdf, cdf = _dfs(spark, pages)
    cfg = DomainConfig()
    doms = domain_stats(spark, pdf, cdf, cfg)
    flagged = {r["host"] for r in _rows(doms) if r["flagged"]}
    assert {"math.stackexchange.com", "mathoverflow.net", "mathworld.example.org"} <= flagged
    assert not flagged & {"news.example.com", "recipes.example.net"}
    scores = rows_to_df(spark, [(p.page_id, p.score) for p in pages], schemas.SCORES)
    rows = _rows(prefix_stats(spark, pdf, cdf, doms, cfg, scores))
    flagged_pages = [p for p in pages if p.host in flagged]
    want = reference.aggregate_prefixes(flagged_pages, flagged, cfg)     # the evidence columns as the pure rules
    key = lambda r: (r["host"], r["prefix"])                     # noqa: E731
    got = {key(r): (r["markup_collected"], r["markup_uncollected"], json.loads(r["hist_uncollected"])) for r in rows}
    assert got == {key(r): (r["markup_collected"], r["markup_uncollected"], r["hist_uncollected"]) for r in want}
    proposed = A.propose(rows, AnnotateConfig())
    paths = {m.path for m in proposed}
    assert {"math.stackexchange.com/questions/", "mathoverflow.net/questions/"} <= paths
    # mathworld.example.org is maths throughout: the whole host, its uncollected pages alike
    assert "mathworld.example.org/" in paths
    assert not any(nav in p for p in paths for nav in ("/users/", "/tags/", "/help/"))
    # through the files, as the loop does it
    out = A.write_worksheet(str(tmp_path), rows, [], 1, proposed=proposed)
    marks = A.read_marks(out["marked"], A.known_prefixes(rows))
    seed = _rows(pages_under_marks(spark, pdf, cdf, marks, 1))
    missed = {p.page_id for p in pages if not p.collected and "/questions/" in p.path}
    assert missed and missed <= {r["page_id"] for r in seed}
    assert all("/users/" not in r["source"] for r in seed)


def test_prefix_stats_carry_host_totals(spark, small):
    from corpus_pipeline.spark.domains import domain_stats, prefix_stats

    pages, pdf, cdf = small
    cfg = DomainConfig()
    rows = _rows(prefix_stats(spark, pdf, cdf, domain_stats(spark, pdf, cdf, cfg), cfg))
    mo = [p for p in pages if p.host == "mathoverflow.net"]
    for r in rows:
        if r["host"] == "mathoverflow.net":
            assert (r["host_pages"], r["host_collected"]) == (len(mo), sum(p.collected for p in mo))
    pure = reference.aggregate_prefixes(pages, {r["host"] for r in _rows(domain_stats(spark, pdf, cdf, cfg))
                                        if r["flagged"]}, cfg)
    key = lambda r: (r["host"], r["prefix"], r["host_pages"], r["host_collected"])  # noqa: E731
    assert sorted(map(key, rows)) == sorted(map(key, pure))


def test_worksheet_holds_top_n_domains_and_parquet_all(spark, tmp_path):
    """Annotation at human scale computed at crawl scale: 30 flagged hosts, worksheet of 4.

    The hosts are ranked in Spark by the uncollected pages their best mark would add; the
    worksheet and marked file list only the top 4, the Parquet statistics keep all 30."""
    from corpus_pipeline.spark.domains import domain_stats, prefix_stats, top_prefix_rows
    from corpus_pipeline.spark.io import read_table, write_table

    pages = []
    for h in range(30):
        host = f"site{h:02d}.example.org"
        for i in range(10 + h):                                 # site29 has the most uncollected pages
            pages.append(reference.PageRef(f"{h:02d}-{i:03d}", host, f"/notes/{i}/p", i < 6,
                                   f"https://{host}/notes/{i}/p", f"t{i}"))
    pdf, cdf = _dfs(spark, pages)
    cfg = DomainConfig()
    doms = domain_stats(spark, pdf, cdf, cfg)
    stats = tmp_path / "prefixes"
    write_table(prefix_stats(spark, pdf, cdf, doms, cfg), str(stats), schemas.PREFIXES)
    table = read_table(spark, str(stats), schemas.PREFIXES)
    assert table.select("host").distinct().count() == 30
    rows, n_hosts = top_prefix_rows(table, 4)
    assert n_hosts == 30
    hosts = sorted({r["host"] for r in rows})
    assert hosts == [f"site{h:02d}.example.org" for h in (26, 27, 28, 29)]
    out = A.write_worksheet(str(tmp_path / "ann"), rows, [], 1, proposed=A.propose(rows, AnnotateConfig()))
    assert out["hosts"] == 4
    ws = (tmp_path / "ann" / A.WORKSHEET).read_text()
    assert ws.count("\n## ") == 4 and "site00.example.org" not in ws
    assert "site00.example.org" not in (tmp_path / "ann" / A.MARKED).read_text()


def test_checked_additions_floor_and_cap(spark, small):
    from corpus_pipeline.spark.domains import checked_additions, pages_under_marks

    pages, pdf, cdf = small
    marks = [Mark("mathoverflow.net", "/questions/", "proposer"), Mark("mathoverflow.net", "/users/", "person")]
    under = pages_under_marks(spark, pdf, cdf, marks, 1)
    ids = sorted(r["page_id"] for r in _rows(under))           # 3 questions + 7 users not collected
    scores = {pid: (0.4 if pid.startswith("mq") else 0.01 * k) for k, pid in enumerate(ids)}
    sdf = rows_to_df(spark, sorted(scores.items()), schemas.SCORES)
    kept = {r["page_id"] for r in _rows(checked_additions(under, sdf, 0.05, None))}
    assert kept == {p for p, s in scores.items() if s >= 0.05}
    top = [r["page_id"] for r in _rows(checked_additions(under, sdf, 0.0, 4))]
    want = sorted(scores, key=lambda p: (-scores[p], p))[:4]
    assert sorted(top) == sorted(want)
    # the same whatever the partitioning
    top2 = [r["page_id"] for r in _rows(checked_additions(under.repartition(5), sdf.repartition(3), 0.0, 4))]
    assert sorted(top2) == sorted(want)
    assert _rows(checked_additions(under, sdf, 0.0, 0)) == []
