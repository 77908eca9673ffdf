"""Pure rules of the domain step: domain key, path prefixes, flags, reference aggregations."""
from __future__ import annotations

import socket

import pytest

from corpus_pipeline import domains as D
from corpus_pipeline.config import DomainConfig
import reference


# ---------------------------------------------------------------- domain key
def test_host_key_normalizes_case_port_and_trailing_dot():
    assert D.domain_key("MathOverflow.NET.", "host") == "mathoverflow.net"
    assert D.domain_key("math.stackexchange.com:8080", "host") == "math.stackexchange.com"
    assert D.domain_key("user@Example.org", "host") == "example.org"
    assert D.domain_key("", "host") == ""
    assert D.domain_key(None, "host") == ""


def test_registered_key_groups_subdomains_offline(monkeypatch):
    # any attempt to open a network connection fails the test
    def no_net(*a, **k):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", no_net)
    monkeypatch.setattr(socket.socket, "connect", no_net)
    D._offline_extractor.cache_clear()
    assert D.domain_key("math.stackexchange.com", "registered") == "stackexchange.com"
    assert D.domain_key("cooking.stackexchange.com", "registered") == "stackexchange.com"
    assert D.domain_key("www.maths.ox.ac.uk", "registered") == "ox.ac.uk"      # multi-label suffix
    assert D.domain_key("en.wikipedia.org", "registered") == "wikipedia.org"
    assert D.domain_key("a.b.example.co.jp", "registered") == "example.co.jp"
    # no registered domain: the host itself
    assert D.domain_key("127.0.0.1", "registered") == "127.0.0.1"
    assert D.domain_key("localhost", "registered") == "localhost"


def test_registered_key_uses_no_cache_dir_and_no_remote_lists():
    D._offline_extractor.cache_clear()
    ext = D._offline_extractor()
    assert ext.suffix_list_urls == ()
    assert not ext._cache.enabled   # no disk cache read or written


def test_unknown_key_is_an_error():
    with pytest.raises(ValueError):
        D.domain_key("example.org", "domain")


# ---------------------------------------------------------------- prefixes
@pytest.mark.parametrize("path,depth,expected", [
    ("/questions/123/slug", 2, ["/questions/", "/questions/123/"]),
    ("/questions/123/slug", 1, ["/questions/"]),
    ("/questions/123/slug", 5, ["/questions/", "/questions/123/"]),   # the last segment is a page
    ("/a/b/", 3, ["/a/", "/a/b/"]),
    ("/about", 2, []),
    ("/", 2, []),
    ("", 2, []),
    (None, 2, []),
    ("wiki/Escopete", 2, ["/wiki/"]),                                  # missing leading slash
    ("/a//b/c", 3, ["/a/", "/a//", "/a//b/"]),                         # empty segments kept literally
])
def test_path_prefixes(path, depth, expected):
    got = D.path_prefixes(path, depth)
    assert got == expected
    for d, pre in enumerate(got, start=1):
        assert D.prefix_depth(pre) == d
        assert D.is_under(path if (path or "").startswith("/") else "/" + (path or ""), pre)


# ---------------------------------------------------------------- flags
def test_exactly_ten_percent_is_not_flagged():
    cfg = DomainConfig()
    assert cfg.flag_fraction == 0.10
    for pages in (10, 30, 70, 1000):
        assert not D.is_flagged(pages, pages // 10, cfg), pages
        assert D.is_flagged(pages, pages // 10 + 1, cfg), pages


def test_min_pages_and_empty_domains():
    cfg = DomainConfig(min_pages=5)
    assert not D.is_flagged(4, 4, cfg)       # 100% but too few pages
    assert D.is_flagged(5, 1, cfg)           # 20% of 5
    assert not D.is_flagged(0, 0, DomainConfig())


def test_other_threshold():
    cfg = DomainConfig(flag_fraction=0.25)
    assert not D.is_flagged(8, 2, cfg)
    assert D.is_flagged(8, 3, cfg)


# ---------------------------------------------------------------- reference aggregations
def _pages():
    pages = []
    for i in range(20):   # mathoverflow: questions collected, users not
        pages.append(reference.PageRef(f"q{i:02d}", "mathoverflow.net", f"/questions/{i}/t", i < 18,
                               f"https://mathoverflow.net/questions/{i}/t", f"Q{i}"))
    for i in range(10):
        pages.append(reference.PageRef(f"u{i:02d}", "mathoverflow.net", f"/users/{i}/name", False,
                               f"https://mathoverflow.net/users/{i}/name", f"U{i}"))
    for i in range(10):   # news: 1 of 10 collected -> exactly 10%, not flagged
        pages.append(reference.PageRef(f"n{i:02d}", "news.example.com", f"/2024/{i}/story", i == 0))
    pages.append(reference.PageRef("x", "", "/nohost", True))
    return pages


def test_aggregate_domains():
    rows = {r["host"]: r for r in reference.aggregate_domains(_pages(), DomainConfig())}
    assert set(rows) == {"mathoverflow.net", "news.example.com"}    # no empty host
    mo = rows["mathoverflow.net"]
    assert (mo["pages"], mo["collected"], mo["flagged"]) == (30, 18, True)
    assert mo["fraction"] == pytest.approx(0.6)
    assert rows["news.example.com"]["flagged"] is False


def test_aggregate_prefixes_flagged_only_with_examples():
    cfg = DomainConfig(path_depth=2, examples=2, prefix_min_pages=2)
    rows = reference.aggregate_prefixes(_pages(), {"mathoverflow.net"}, cfg)
    by = {r["prefix"]: r for r in rows}
    assert {r["host"] for r in rows} == {"mathoverflow.net"}
    assert by["/questions/"]["pages"] == 20 and by["/questions/"]["collected"] == 18
    # the host's root holds every page; id folders (/questions/3/) and the user folders (/users/:
    # an author facet) are grouped into their parents, not listed
    assert (by["/"]["pages"], by["/"]["collected"], by["/"]["depth"]) == (30, 18, 0)
    assert set(by) == {"/", "/questions/"}
    ex = by["/questions/"]["examples"]
    assert [e["collected"] for e in ex] == [True, True, False, False]
    assert ex[0]["url"] == "https://mathoverflow.net/questions/0/t"     # lowest page id first
    assert [e["collected"] for e in by["/"]["examples"]] == [True, True, False, False]
    assert by["/"]["markup_collected"] == 0 and sum(by["/"]["hist_uncollected"]) == 12


def test_aggregate_prefixes_caps_per_host():
    pages = [reference.PageRef(f"p{i}", "h.org", f"/d{i % 7}/x/{i}", True) for i in range(70)]
    rows = reference.aggregate_prefixes(pages, {"h.org"}, DomainConfig(max_prefixes_per_domain=3, path_depth=2))
    assert len(rows) == 3
    # the root always, then most pages first, ties by prefix; output sorted by depth then prefix
    assert [(r["prefix"], r["pages"]) for r in rows] == [("/", 70), ("/d0/", 10), ("/d0/x/", 10)]
