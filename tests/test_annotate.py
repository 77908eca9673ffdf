"""Worksheet, marked-file validation, proposer and carry-forward (no Spark)."""
from __future__ import annotations

import json
import random

import pytest

from corpus_pipeline import annotate as A
from corpus_pipeline import domains as D
from corpus_pipeline.config import AnnotateConfig, DomainConfig
from corpus_pipeline.errors import InputFileError
import reference


def row(host, prefix, pages, collected, examples=None, host_pages=None, host_collected=None, markup=None,
        hist_u=None, hist_c=None):
    r = {"host": host, "prefix": prefix, "depth": prefix.count("/") - 1, "pages": pages,
         "collected": collected, "fraction": collected / pages,
         "examples": json.dumps(examples or []), "host_pages": host_pages, "host_collected": host_collected}
    if markup is not None:                     # (collected, uncollected) pages with maths markup
        r["markup_collected"], r["markup_uncollected"] = markup
        r["hist_collected"] = json.dumps(hist_c or [0] * 9 + [collected])
        r["hist_uncollected"] = json.dumps(hist_u or [pages - collected] + [0] * 9)
    return r


# Realistic prefix stats of flagged Q&A and course sites: maths content under
# /questions/ and /courses/, navigation and profile pages elsewhere.
ROWS = [
    row("math.stackexchange.com", "/questions/", 400, 352,
        [{"url": "https://math.stackexchange.com/questions/1/why-is-e-irrational", "title": "Why is e irrational?",
          "collected": True},
         {"url": "https://math.stackexchange.com/questions/9/closed", "title": "Closed question", "collected": False}]),
    row("math.stackexchange.com", "/questions/tagged/", 30, 12),
    row("math.stackexchange.com", "/users/", 120, 2),
    row("math.stackexchange.com", "/tags/", 25, 6),
    row("math.stackexchange.com", "/help/", 15, 0),
    row("mathoverflow.net", "/questions/", 150, 128),
    row("mathoverflow.net", "/questions/12345/", 6, 6),
    row("mathoverflow.net", "/users/", 60, 1),
    row("mathoverflow.net", "/tags/", 8, 3),
    row("ocw.example.edu", "/courses/", 40, 24),
    row("ocw.example.edu", "/courses/18-01/", 12, 11),
    row("ocw.example.edu", "/courses/history/", 10, 0),
    row("ocw.example.edu", "/about/", 3, 3),           # 100% but too few pages
    row("blog.example.org", "/2023/", 9, 2),
]


# ---------------------------------------------------------------- proposer
def test_proposer_marks_maths_prefixes_only():
    marks = A.propose(ROWS, AnnotateConfig())
    paths = [m.path for m in marks]
    assert paths == ["math.stackexchange.com/questions/", "mathoverflow.net/questions/",
                     "ocw.example.edu/courses/"]
    assert all(m.decided_by == "proposer" for m in marks)
    for bad in ("/users/", "/tags/", "/help/", "/about/"):
        assert not any(m.prefix == bad for m in marks)
    # deeper prefixes under a marked one are not marked again
    assert "mathoverflow.net/questions/12345/" not in paths


def test_proposer_prefers_deeper_when_shallow_fails_and_is_deterministic():
    cfg = AnnotateConfig(propose_min_fraction=0.7)
    marks = A.propose(ROWS, cfg)
    paths = [m.path for m in marks]
    # /courses/ is 60%: below 0.7, so its maths sub-folder is proposed instead
    assert "ocw.example.edu/courses/" not in paths
    assert "ocw.example.edu/courses/18-01/" in paths
    assert "ocw.example.edu/courses/history/" not in paths
    shuffled = list(ROWS)
    random.Random(3).shuffle(shuffled)
    assert A.propose(shuffled, cfg) == marks


def test_proposer_thresholds():
    rows = [row("h.org", "/a/", 5, 3), row("h.org", "/b/", 4, 4), row("h.org", "/c/", 10, 2)]
    got = [m.prefix for m in A.propose(rows, AnnotateConfig())]
    assert got == ["/a/"]     # /b/ has 4 < 5 pages, /c/ 2 < 3 collected and 20% < 50%
    got = [m.prefix for m in A.propose(rows, AnnotateConfig(propose_min_pages=4, propose_min_collected=2,
                                                            propose_min_fraction=0.2))]
    assert got == ["/a/", "/b/", "/c/"]


@pytest.mark.parametrize("prefix,kind", [
    ("/2011/", "date"), ("/posts/2011/", "date"), ("/2011/05/", "date"), ("/2011-05/", "date"),
    ("/page/3/", "pagination"), ("/page/", "pagination"), ("/blog/page2/", "pagination"),
    ("/tag/", "tag"), ("/tag/algebra/", "tag"), ("/questions/tagged/", "tag"),
    ("/author/", "author"), ("/author/jane/", "author"), ("/users/", "author"), ("/u/", "author"),
    ("/questions/123/", "id"), ("/p/9f3b2c1d7e/", "id"), ("/archive/", "archive"),
    ("/questions/", None), ("/courses/18-01/", None), ("/topics/", None), ("/math/number-theory/", None),
    ("/lessons/", None), ("/books/calculus-volume-3/", None)])
def test_structural_segments_recognised(prefix, kind):
    assert D.structural_reason(prefix) == kind


BLOG = [  # a maths blog: every post under a year folder, maths and not, at the blog's rate
    row("blog.example.net", "/2011/", 14, 10, host_pages=62, host_collected=45),
    row("blog.example.net", "/2012/", 22, 17, host_pages=62, host_collected=45),
    row("blog.example.net", "/2013/", 26, 18, host_pages=62, host_collected=45),
    row("blog.example.net", "/2012/05/", 7, 6, host_pages=62, host_collected=45),
    row("blog.example.net", "/tag/", 40, 30, host_pages=62, host_collected=45),
]
MIXED = [  # a mixed site: a maths folder that stands out, a sub-folder that only inherits its rate
    row("wiki.example.org", "/math/", 40, 34, host_pages=90, host_collected=38),
    row("wiki.example.org", "/lang/", 30, 3, host_pages=90, host_collected=38),
    row("wiki.example.org", "/tools/", 20, 1, host_pages=90, host_collected=38),
]


def test_proposer_skips_archive_folders_and_takes_what_stands_out():
    marks = A.propose(BLOG + MIXED, AnnotateConfig())
    assert [m.path for m in marks] == ["wiki.example.org/math/"]
    # evidence: the prefix's share against the rest of its host
    assert marks[0].note == "40 pages, 34 collected (85.0%); rest of host 50 pages, 4 collected (8.0%)"
    ok, why = A.judge(BLOG[0], AnnotateConfig())
    assert not ok and why.startswith("date segment")
    assert not A.judge(BLOG[4], AnnotateConfig())[0]


def test_proposer_needs_a_lift_over_the_rest_of_the_host():
    # a folder at 70% on a host at 65% elsewhere only inherits the host's rate
    rows = [row("h.org", "/notes/", 20, 14, host_pages=60, host_collected=40)]
    ok, why = A.judge(rows[0], AnnotateConfig())
    assert not ok and "does not stand out" in why
    assert A.propose(rows, AnnotateConfig(propose_min_lift=0.0))
    # a folder that is (nearly) the whole host needs propose_whole_host_fraction and uncollected
    # pages that look like its collected ones (markup, scores just under the threshold)
    whole = [row("h.org", "/books/", 38, 30, host_pages=40, host_collected=30, markup=(30, 8),
                 hist_u=[0, 1, 3, 4, 0, 0, 0, 0, 0, 0])]
    ok, why = A.judge(whole[0], AnnotateConfig())
    assert ok and why.startswith("whole host; uncollected pages look alike")
    assert not A.propose(whole, AnnotateConfig(propose_whole_host_fraction=0.99))
    unlike = [dict(whole[0], markup_uncollected=1)]          # 1 of 8 uncollected with markup, 30 of 30
    ok, why = A.judge(unlike[0], AnnotateConfig())
    assert not ok and "less maths markup" in why
    cold = [dict(whole[0], hist_uncollected=json.dumps([7, 1] + [0] * 8))]   # the classifier is sure they are not
    ok, why = A.judge(cold[0], AnnotateConfig())
    assert not ok and "score 0.1 or more" in why
    assert not A.judge(row("h.org", "/books/", 38, 30, host_pages=40, host_collected=30), AnnotateConfig())[0]


def test_whole_host_and_content_folders_of_real_shapes():
    """The two shapes the loop missed on real crawls: a site of numbered maths pages (ids grouped into
    the host's root), 55% collected, and a site whose maths is under /lc/N/ beside other folders."""
    numbered = [row("tiku.example.cn", "/", 157, 87, host_pages=157, host_collected=87, markup=(87, 66),
                    hist_u=[4, 12, 20, 18, 16, 0, 0, 0, 0, 0])]
    marks = A.propose(numbered, AnnotateConfig())
    assert [m.path for m in marks] == ["tiku.example.cn/"]
    assert "maths markup 100% collected, 94% not" in marks[0].note and "scores collected |" in marks[0].note
    solutions = [row("leet.example.cn", "/", 400, 66, host_pages=400, host_collected=66, markup=(60, 130),
                     hist_u=[160, 60, 60, 40, 14, 0, 0, 0, 0, 0]),
                 row("leet.example.cn", "/lc/", 210, 65, host_pages=400, host_collected=66, markup=(60, 130),
                     hist_u=[5, 40, 50, 40, 10, 0, 0, 0, 0, 0]),
                 row("leet.example.cn", "/blog/", 190, 1, host_pages=400, host_collected=66, markup=(0, 0))]
    marks = A.propose(solutions, AnnotateConfig())
    assert [m.path for m in marks] == ["leet.example.cn/lc/"]
    ok, why = A.judge(solutions[1], AnnotateConfig())
    assert ok and why.startswith("holds 98% of the host's collected pages")


def test_worksheet_shows_evidence_and_verdicts(tmp_path):
    rows = BLOG + MIXED
    proposed = A.propose(rows, AnnotateConfig())
    A.write_worksheet(str(tmp_path), rows, [], 1, proposed=proposed, cfg=AnnotateConfig())
    ws = (tmp_path / A.WORKSHEET).read_text()
    assert "| `/2011/` | 1 | 14 | 10 | 71.4% | 35/48 |  |  |  | no: date segment" in ws
    assert "| `/math/` | 1 | 40 | 34 | 85.0% | 4/50 |  |  | proposer | yes: +77 points" in ws
    # with the evidence columns: maths markup shares and score histograms, collected and not
    ev = [row("t.example.cn", "/", 10, 6, host_pages=10, host_collected=6, markup=(6, 4),
              hist_u=[0, 1, 2, 1, 0, 0, 0, 0, 0, 0])]
    A.write_worksheet(str(tmp_path / "ev"), ev, [], 1, proposed=A.propose(ev, AnnotateConfig()), cfg=AnnotateConfig())
    ws = (tmp_path / "ev" / A.WORKSHEET).read_text()
    assert "| `/` | 0 | 10 | 6 | 60.0% | 0/0 | 100% / 100% | `         █` / ` ▄█▄      ` | proposer | yes: whole host" in ws
    marked = (tmp_path / A.MARKED).read_text()
    assert "# proposer: 40 pages, 34 collected (85.0%); rest of host 50 pages, 4 collected (8.0%)" in marked
    back = A.read_marks(str(tmp_path / A.MARKED), A.known_prefixes(rows))
    assert [m.path for m in back] == ["wiki.example.org/math/"]
    # carried forward, the evidence is not mistaken for a person's note
    assert A.carried(back[0]).note == ""


# ---------------------------------------------------------------- worksheet round trip
def test_worksheet_hand_edit_round_trip(tmp_path):
    proposed = A.propose(ROWS, AnnotateConfig())
    out = A.write_worksheet(str(tmp_path), ROWS, [], 1, proposed=proposed)
    ws = (tmp_path / "worksheet.md").read_text()
    assert "Why is e irrational?" in ws and "## math.stackexchange.com" in ws
    text = (tmp_path / "marked_paths.txt").read_text()
    assert out["marked"].endswith("marked_paths.txt")
    known = A.known_prefixes(ROWS)

    # as written: the proposer's marks, nothing else
    marks = A.read_marks(out["marked"], known)
    assert [m.path for m in marks] == [m.path for m in proposed]
    assert all(m.decided_by == "proposer" for m in marks)

    # a person: rejects one proposal, uncomments a candidate, adds a line with a note, keeps comments
    lines = text.splitlines()
    edited = []
    for ln in lines:
        if ln.startswith("ocw.example.edu/courses/"):
            edited.append("# " + ln)                       # reject
        elif ln.startswith("# ocw.example.edu/courses/18-01/"):
            edited.append(ln[2:])                          # uncomment the candidate
        else:
            edited.append(ln)
    edited.insert(3, "  mathoverflow.net/tags/    # tag pages list maths questions")
    edited.append("")
    edited.append("# a comment of my own")
    (tmp_path / "marked_paths.txt").write_text("\n".join(edited) + "\n")

    marks = A.read_marks(out["marked"], known)
    by = {m.path: m for m in marks}
    assert set(by) == {"math.stackexchange.com/questions/", "mathoverflow.net/questions/",
                       "ocw.example.edu/courses/18-01/", "mathoverflow.net/tags/"}
    assert by["ocw.example.edu/courses/18-01/"].decided_by == "person"
    assert by["ocw.example.edu/courses/18-01/"].note == ""        # the candidate's stats are not a note
    assert by["mathoverflow.net/tags/"].decided_by == "person"
    assert by["mathoverflow.net/tags/"].note == "tag pages list maths questions"
    assert by["mathoverflow.net/questions/"].decided_by == "proposer"
    assert all(m.since == 1 for m in marks)


def test_carry_forward_keeps_who_decided(tmp_path):
    it1, it2, it3 = (tmp_path / f"iter{i}" for i in (1, 2, 3))
    A.write_worksheet(str(it1), ROWS, [], 1, proposed=[A.Mark("mathoverflow.net", "/questions/", "proposer")])
    f1 = it1 / "marked_paths.txt"
    f1.write_text(f1.read_text() + "math.stackexchange.com/questions/   # checked by hand\n")
    m1 = A.read_marks(str(f1), A.known_prefixes(ROWS))
    assert {m.path: m.decided_by for m in m1} == {"mathoverflow.net/questions/": "proposer",
                                                  "math.stackexchange.com/questions/": "person"}

    # iteration 2: the rows changed (mathoverflow no longer flagged) but the marks stay active
    rows2 = [r for r in ROWS if r["host"] != "mathoverflow.net"]
    previous = [A.carried(m) for m in m1]
    A.write_worksheet(str(it2), rows2, previous, 2)
    text2 = (it2 / "marked_paths.txt").read_text()
    assert "\nmathoverflow.net/questions/" in text2 and "# carried: proposer, since iter 1" in text2
    assert "# carried: person, since iter 1; checked by hand" in text2
    assert not any(ln.split()[:2] == ["#", "math.stackexchange.com/questions/"]   # not a candidate again
                   for ln in text2.splitlines())
    m2 = A.read_marks(str(it2 / "marked_paths.txt"), A.known_prefixes(rows2, previous))
    assert {m.path: (m.decided_by, m.first_decider, m.since) for m in m2} == {
        "mathoverflow.net/questions/": ("carried", "proposer", 1),
        "math.stackexchange.com/questions/": ("carried", "person", 1)}
    assert {m.path: m.note for m in m2}["math.stackexchange.com/questions/"] == "checked by hand"
    # without the carried marks in `known`, the host that is no longer flagged is rejected
    with pytest.raises(InputFileError, match="unknown host"):
        A.read_marks(str(it2 / "marked_paths.txt"), A.known_prefixes(rows2))

    # iteration 3: the loop passes carried + fresh proposals together; both keep their decider
    fresh = A.propose(rows2, AnnotateConfig())
    A.write_worksheet(str(it3), rows2, list(m2) + fresh, 3)
    m3 = A.read_worksheet_marks(str(it3))
    deciders = {m.path: m.decided_by for m in m3}
    assert deciders["mathoverflow.net/questions/"] == "carried"
    assert deciders["math.stackexchange.com/questions/"] == "carried"
    assert deciders["ocw.example.edu/courses/"] == "proposer"
    assert {m.path: m.since for m in m3}["ocw.example.edu/courses/"] == 3


# ---------------------------------------------------------------- invalid files
@pytest.mark.parametrize("bad,needle", [
    ("mathoverflow.net/questions/ extra/", "one <host><prefix> per line"),
    ("https://mathoverflow.net/questions/", "without the scheme"),
    ("mathoverflow.net", "must start with '/'"),
    ("/questions/", "no host"),
    ("mathoverflow.net:443/questions/", "not a host name"),
    ("mathoverflow.net/questions", "must end with '/'"),
    ("example.com/questions/", "unknown host 'example.com'"),
    ("mathoverflow.net/answers/", "unknown prefix '/answers/'"),
    ("mathoverflow.net/questions/99/", "unknown prefix '/questions/99/'"),
])
def test_invalid_lines_name_file_and_line(tmp_path, bad, needle):
    A.write_worksheet(str(tmp_path), ROWS, [], 1, proposed=A.propose(ROWS, AnnotateConfig()))
    f = tmp_path / "marked_paths.txt"
    lines = f.read_text().splitlines()
    lines.insert(5, bad)
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFileError) as e:
        A.read_marks(str(f), A.known_prefixes(ROWS))
    msg = str(e.value)
    assert e.value.line == 6
    assert msg.startswith(f"{f}:6: ")
    assert needle in msg
    assert "nothing was applied" in msg


def test_unknown_prefix_message_lists_known_ones(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("mathoverflow.net/questions/123/\n")
    with pytest.raises(InputFileError, match="known prefixes of this host: /questions/, /questions/12345/"):
        A.read_marks(str(f), A.known_prefixes(ROWS))


def test_several_bad_lines_are_counted_and_nothing_returned(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("mathoverflow.net/questions/\nbad line here\nmathoverflow.net\nnope.org/x/\n")
    with pytest.raises(InputFileError) as e:
        A.read_marks(str(f), A.known_prefixes(ROWS))
    assert e.value.line == 2
    assert "2 more bad lines: 3, 4" in str(e.value)


def test_missing_and_non_utf8_files(tmp_path):
    with pytest.raises(InputFileError, match="not found"):
        A.read_marks(str(tmp_path / "absent.txt"), None)
    f = tmp_path / "latin1.txt"
    f.write_bytes("mathoverflow.net/th\xe9orie/\n".encode("latin-1"))
    with pytest.raises(InputFileError, match="not UTF-8"):
        A.read_marks(str(f), None)


def test_without_known_any_well_formed_path_is_accepted_and_duplicates_kept_once(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("\ufeffExample.ORG/a/\n\n   # comment\nexample.org/a/  # again\nexample.org/a/b/\n")
    marks = A.read_marks(str(f), None)
    assert [m.path for m in marks] == ["example.org/a/", "example.org/a/b/"]


# ---------------------------------------------------------------- mini-crawl-shaped data
def minicrawl_shaped_pages(seed: int = 7) -> list[reference.PageRef]:
    """Synthetic URL set shaped like the mini-crawl: maths Q&A sites whose paths mix maths
    (questions) and non-maths (users, tags, help) pages, a pure maths site, non-maths sites.
    Math-labeled pages are collected with some misses; a few non-maths pages are false positives."""
    rng = random.Random(seed)
    labeled: list[tuple[str, str, bool]] = []   # (host, path, is_math)
    for host in ("math.stackexchange.com", "mathoverflow.net"):
        labeled += [(host, f"/questions/{1000 + i}/problem-{i}", True) for i in range(40)]
        labeled += [(host, f"/users/{i}/someone-{i}", False) for i in range(15)]
        labeled += [(host, f"/tags/{t}", False) for t in ("algebra", "calculus", "geometry", "probability",
                                                           "topology", "analysis")]
        labeled += [(host, f"/help/{t}", False) for t in ("asking", "privacy", "badges", "editing")]
    labeled += [("mathworld.example.org", f"/topics/{t}/page{i}", True)
                for t in ("algebra", "geometry") for i in range(8)]
    for host in ("news.example.com", "recipes.example.net", "sports.example.org"):
        labeled += [(host, f"/section{i % 3}/article-{i}", False) for i in range(40)]
    pages = []
    for n, (host, path, is_math) in enumerate(labeled):
        collected = rng.random() < 0.85 if is_math else rng.random() < 0.03
        # maths pages carry markup; a missed maths page scores just under the threshold, a non-maths one low
        score = rng.uniform(0.5, 1.0) if collected else (rng.uniform(0.15, 0.5) if is_math else rng.uniform(0, 0.08))
        pages.append(reference.PageRef(f"{n:05d}", host, path, collected, f"https://{host}{path}", path, is_math, score))
    return pages


def test_minicrawl_shaped_flags_and_proposals():
    pages = minicrawl_shaped_pages()
    dcfg = DomainConfig()
    doms = {r["host"]: r for r in reference.aggregate_domains(pages, dcfg)}
    flagged = {h for h, r in doms.items() if r["flagged"]}
    assert {"math.stackexchange.com", "mathoverflow.net", "mathworld.example.org"} <= flagged
    assert not flagged & {"news.example.com", "recipes.example.net", "sports.example.org"}
    rows = reference.aggregate_prefixes(pages, flagged, dcfg)
    marks = A.propose(rows, AnnotateConfig())
    paths = {m.path for m in marks}
    for host in ("math.stackexchange.com", "mathoverflow.net"):
        assert f"{host}/questions/" in paths
        for nav in ("/users/", "/tags/", "/help/"):
            assert not any(p.startswith(host + nav) for p in paths)
    # mathworld is maths throughout (one folder, /topics/, at the host's rate): its uncollected pages
    # carry maths markup and score just under the threshold, so the whole host is proposed
    assert "mathworld.example.org/" in paths
    assert not any(p.startswith("mathworld.example.org/topics") for p in paths)        # covered by the root
    # the Q&A hosts: their uncollected pages (users, tags, help) look unlike the collected ones
    for host in ("math.stackexchange.com", "mathoverflow.net"):
        root = next(r for r in rows if r["host"] == host and r["prefix"] == "/")
        assert not A.judge(root, AnnotateConfig())[0]
    # every page's prefixes: the root and its topical folders (ids and dates grouped into the parent)
    assert D.topical_prefixes("/questions/1001/problem-1", 2) == [(0, "/"), (1, "/questions/")]
    assert D.topical_prefixes("/361/", 2) == [(0, "/")]
    assert D.topical_prefixes("/lc/12/", 2) == [(0, "/"), (1, "/lc/")]
    assert D.topical_prefixes("/2019/05/20/post/", 2) == [(0, "/")]
    assert D.topical_prefixes("/math/number-theory/gcd/", 3) == [(0, "/"), (1, "/math/"), (2, "/math/number-theory/"),
                                                                 (3, "/math/number-theory/gcd/")]


# ---------------------------------------------------------------- the `annotate` command
def test_annotate_command_shows_latest_worksheet(tmp_path, capsys):
    from corpus_pipeline.cli import main

    run = tmp_path / "run"
    (run / "iter=001").mkdir(parents=True)
    assert main(["annotate", str(run)]) == 1                      # no worksheet yet
    assert "no path worksheet" in capsys.readouterr().err
    A.write_worksheet(str(run / "iter=001" / "annotations"), ROWS, [], 1,
                      proposed=[A.Mark("mathoverflow.net", "/questions/", "proposer")])
    A.write_worksheet(str(run / "iter=002" / "annotations"), ROWS,
                      [A.Mark("mathoverflow.net", "/questions/", "carried", origin="proposer", since=1)], 2)
    (run / "iter=003").mkdir()                                   # a later iteration without a worksheet
    assert main(["annotate", str(run)]) == 0
    out = capsys.readouterr().out
    marked = run / "iter=002" / "annotations" / "marked_paths.txt"
    assert "iteration 2" in out and str(marked) in out and "worksheet.md" in out
    assert "flagged hosts: 4, candidate prefixes: 14" in out
    assert "marked now: 1 (1 carried)" in out
    assert "would mark:" in out and "math.stackexchange.com/questions/" in out
    # an invalid marked file: exit 2 naming the file and line
    marked.write_text(marked.read_text() + "nosuchhost.org/x/\n")
    n = len(marked.read_text().splitlines())
    assert main(["annotate", str(run)]) == 2
    assert f"{marked}:{n}: unknown host 'nosuchhost.org'" in capsys.readouterr().err
    assert main(["annotate", str(tmp_path / "absent")]) == 2


# ---------------------------------------------------------------- the real mini-crawl generator
def test_minicrawl_maths_sites_flagged_and_maths_prefixes_proposed(tmp_path):
    """Pages built from the mini-crawl's labels.jsonl URLs; math-labeled pages are collected with
    15% misses, non-maths pages with 3% false positives (seeded)."""
    import corpus_pipeline.minicrawl as minicrawl
    from corpus_pipeline.dedup.url import host_and_path, page_id

    manifest = minicrawl.generate(tmp_path / "mc", pages=1200, random_seed=1)
    rng = random.Random(11)
    pages = []
    with open(tmp_path / "mc" / "labels.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            host, path = host_and_path(rec["url"])
            p_collect = {"math": 0.85, "non-math": 0.03}.get(rec["label"], 0.2)
            pages.append(reference.PageRef(page_id(rec["url"]), host, path, rng.random() < p_collect, rec["url"], ""))
    dcfg = DomainConfig()
    doms = {r["host"]: r for r in reference.aggregate_domains(pages, dcfg)}
    flagged = {h for h, r in doms.items() if r["flagged"]}
    mixed = set(manifest["mixed_math_hosts"])
    assert mixed and mixed <= flagged
    non_math_hosts = {h for h, v in manifest["hosts"].items() if v["category"] == "non-math"}
    assert not flagged & non_math_hosts

    rows = reference.aggregate_prefixes(pages, flagged, dcfg)
    proposed = A.propose(rows, AnnotateConfig())
    top_level = {(m.host, D.path_prefixes(m.prefix, 1)[0]) for m in proposed}
    for host in mixed:
        prefixes = manifest["hosts"][host]["prefixes"]
        main = max(prefixes, key=lambda p: prefixes[p]["math"])     # the site's maths section
        assert (host, main) in top_level, (host, main)
        for pre, counts in prefixes.items():
            if counts["math"] == 0:                                 # users, tags, help, news, ...
                assert (host, pre) not in top_level, (host, pre)
    # nothing proposed where the crawl has no maths at all
    for host, pre in top_level:
        assert manifest["hosts"][host]["prefixes"].get(pre, {"math": 1})["math"] > 0, (host, pre)


def test_whole_host_evidence_round_trips(tmp_path):
    rows = [row("books.example.org", "/books/", 38, 37, host_pages=38, host_collected=37, markup=(37, 1),
                hist_u=[0, 0, 0, 1, 0, 0, 0, 0, 0, 0])]
    marks = A.propose(rows, AnnotateConfig())
    assert [m.note for m in marks] == ["38 pages, 37 collected (97.4%); the whole host; maths markup 100% collected, "
                                       "100% not; scores collected |         █| not |   █      |"]
    A.write_worksheet(str(tmp_path), rows, [], 1, proposed=marks)
    back = A.read_marks(str(tmp_path / A.MARKED), A.known_prefixes(rows))
    assert A.carried(back[0]).note == ""


def test_minicrawl_archive_blog_year_folders_are_not_proposed(tmp_path):
    """The mini-crawl's date-filed maths blog: its year folders mix maths and other posts. With a
    classifier that collects exactly the maths pages, the old share-only rule would mark them; the
    proposer does not."""
    import re

    from corpus_pipeline.minicrawl import generate

    generate(str(tmp_path), pages=1500, random_seed=1)
    refs = []
    for n, line in enumerate(open(tmp_path / "labels.jsonl", encoding="utf-8")):
        r = json.loads(line)
        host, path = re.match(r"https?://([^/]+)(/[^?#]*)", r["url"]).groups()
        m = r["label"] == "math"
        refs.append(reference.PageRef(f"{n:06d}", host, path, m, r["url"], "", m, 0.9 if m else 0.02))
    blog = "proofsandpuzzles.blog"
    rows = [r for r in reference.aggregate_prefixes(refs, {blog}, DomainConfig()) if r["host"] == blog]
    # year and month folders are grouped into the blog's root: never listed, never proposed
    assert not any(re.search(r"/20\d\d/", r["prefix"]) for r in rows)
    root = next(r for r in rows if r["prefix"] == "/")
    assert 0 < root["collected"] < root["pages"]                  # maths and other posts
    # the whole blog is not proposed either: its uncollected posts look unlike the collected ones
    ok, why = A.judge(root, AnnotateConfig())
    assert not ok and "less maths markup" in why
    assert not any(m.host == blog for m in A.propose(rows, AnnotateConfig()))
