"""The annotation web server over HTTP on 127.0.0.1 (no Spark: the view is built from a worksheet
written by annotate.write_worksheet and hand-made sample rows).  The browser test is in
tests/e2e/test_annotate_browser.py."""
from __future__ import annotations

import hashlib
import http.client
import json
from pathlib import Path

import pytest

from corpus_pipeline import annotate as A
from corpus_pipeline import annotate_web as W
from corpus_pipeline.config import AnnotateConfig


def row(host, prefix, pages, collected):
    return {"host": host, "prefix": prefix, "depth": prefix.count("/") - 1, "pages": pages,
            "collected": collected, "fraction": collected / pages, "examples": "[]"}


ROWS = [row("askmaths.net", "/questions/", 40, 30), row("askmaths.net", "/users/", 9, 0),
        row("askmaths.net", "/tags/", 7, 1), row("calctutor.com", "/lessons/", 60, 40),
        row("calctutor.com", "/lessons/2021/", 20, 12), row("calctutor.com", "/shop/", 10, 0),
        row("smallmaths.org", "/q/", 4, 4)]


def samples():
    out = []
    for r in ROWS:
        for k, coll in enumerate((True, False)):
            out.append({"m_host": r["host"], "m_prefix": r["prefix"], "page_id": f"{r['host']}{r['prefix']}{k}",
                        "url": f"https://{r['host']}{r['prefix']}{k}/page", "title": f"Page {k} of {r['prefix']}",
                        "text": "Let $x^2 = 4$, then $$x = \\pm 2.$$ " + "More words here. " * 60,
                        "text_chars": 1100, "score": 0.9 if coll else 0.2, "collected": coll})
    return out


@pytest.fixture
def view(tmp_path):
    adir = tmp_path / "run" / "iter=001" / "annotations"
    A.write_worksheet(str(adir), ROWS, [], 1)
    index = A.read_index(str(adir))
    known = {tuple(k) for k in index["known"]}
    marks = A.read_marks(str(adir / A.MARKED), known)
    proposed = A.propose(ROWS, AnnotateConfig())
    joins = {(r["host"], r["prefix"]): r["pages"] - r["collected"] for r in ROWS}
    joins[("calctutor.com", "/lessons/")] = 15       # 5 of the uncollected pages are seeds already
    return W.build_view(str(tmp_path / "run"), 1, str(adir), index, marks, [], proposed, joins, samples())


@pytest.fixture
def server(view):
    s = W.AnnotateServer(view, "127.0.0.1", 0).start()
    yield s
    s.stop()


def request(server, method, path, body=None, headers=None, token=True, host=None):
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    h = {"Host": host or f"127.0.0.1:{server.port}"}
    if token:
        h["X-Annotate-Token"] = server.token
    h.update(headers or {})
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict(r.getheaders()), data


def post_headers(server):
    return {"Origin": f"http://127.0.0.1:{server.port}", "Content-Type": "application/json",
            "X-CSRF-Token": server.csrf}


def snapshot(adir: Path) -> dict:
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(adir.iterdir())}


def test_loopback_and_token_rules():
    assert W.is_loopback("127.0.0.1") and W.is_loopback("::1") and W.is_loopback("localhost")
    assert not W.is_loopback("0.0.0.0") and not W.is_loopback("192.168.1.4") and not W.is_loopback("example.org")
    assert W.needs_token("0.0.0.0") and not W.needs_token("127.0.0.1")


def test_view_ranks_hosts_by_impact_with_proposals_preselected(view):
    hosts = [h["host"] for h in view.hosts]
    # calctutor: proposed /lessons/ adds 15; askmaths: proposed /questions/ adds 10; smallmaths: /q/ has
    # nothing left to add (4 of 4 collected)
    assert hosts == ["calctutor.com", "askmaths.net", "smallmaths.org"]
    assert [h["impact"] for h in view.hosts] == [15, 10, 0]
    calc = {p["prefix"]: p for p in view.hosts[0]["prefixes"]}
    assert calc["/lessons/"]["proposed"] and calc["/lessons/"]["state"] == "accept"
    assert calc["/lessons/"]["decided_by"] == "proposer"
    assert not calc["/shop/"]["proposed"] and calc["/shop/"]["state"] == "undecided"
    assert calc["/lessons/2021/"]["parent"] == "/lessons/"                  # the prefix tree
    assert calc["/lessons/"]["share"] == pytest.approx(40 / 60)
    s = calc["/lessons/"]["samples"]
    assert [x["collected"] for x in s] == [True, False]
    assert s[0]["excerpt"].startswith("Let $x^2 = 4$") and s[0]["more"]
    assert len(s[0]["excerpt"]) <= W.EXCERPT_CHARS + 2 and s[0]["excerpt"].count("$") % 2 == 0


def test_page_and_api_served_from_memory_with_security_headers(server):
    st, h, body = request(server, "GET", f"/?token={server.token}", token=False)
    assert st == 200 and h["Content-Type"].startswith("text/html")
    page = body.decode()
    assert "calctutor.com" in page and server.csrf in page
    assert "script-src 'nonce-" in h["Content-Security-Policy"] and "frame-ancestors 'none'" in \
        h["Content-Security-Policy"]
    assert h["Referrer-Policy"] == "no-referrer" and h["Cache-Control"] == "no-store"
    st, _, body = request(server, "GET", "/api/state")
    assert st == 200 and json.loads(body)["hosts"][0]["host"] == "calctutor.com"
    st, _, body = request(server, "GET", "/api/sample/0")
    d = json.loads(body)
    assert st == 200 and d["id"] == 0 and len(d["text"]) > W.EXCERPT_CHARS


def test_save_writes_marked_and_rejected_files_the_loop_reads(server, view):
    adir = Path(view.adir)
    decisions = {"calctutor.com/lessons/": "accept", "askmaths.net/questions/": "accept",
                 "askmaths.net/users/": "reject", "calctutor.com/shop/": "reject", "askmaths.net/tags/": "undecided"}
    st, _, body = request(server, "POST", "/api/save", json.dumps({"decisions": decisions}), post_headers(server))
    assert st == 200, body
    res = json.loads(body)
    assert res["marks"] == ["askmaths.net/questions/", "calctutor.com/lessons/"] and res["rejected"] == 2
    known = {tuple(k) for k in A.read_index(str(adir))["known"]}
    marks = A.read_marks(str(adir / A.MARKED), known)          # the loop's own reader and rules
    assert [(m.path, m.decided_by) for m in marks] == [("askmaths.net/questions/", "person"),
                                                      ("calctutor.com/lessons/", "person")]
    assert "proposer's pick" in marks[0].note
    text = (adir / A.MARKED).read_text()
    assert "# askmaths.net/tags/" in text                       # still a candidate to uncomment by hand
    rej = A.read_rejections(str(adir), known)
    assert sorted(m.path for m in rej) == ["askmaths.net/users/", "calctutor.com/shop/"]
    left = A.without_rejected(ROWS, {(m.host, m.prefix) for m in rej})
    assert ("askmaths.net", "/users/") not in {(r["host"], r["prefix"]) for r in left} and len(left) == 5
    st, _, body = request(server, "GET", "/api/state")               # a reload of the page shows what was saved
    now = {p["path"]: p["state"] for h in json.loads(body)["hosts"] for p in h["prefixes"]}
    assert now["askmaths.net/users/"] == "reject" and now["askmaths.net/tags/"] == "undecided"
    assert now["calctutor.com/lessons/"] == "accept" and now["smallmaths.org/q/"] == "undecided"
    # a new server started from the files shows it too
    view2 = W.build_view(view.run, 1, view.adir, A.read_index(str(adir)), marks, rej, [], {}, [])
    states = {p["path"]: p["state"] for h in view2.hosts for p in h["prefixes"]}
    assert states["askmaths.net/users/"] == "reject" and states["calctutor.com/lessons/"] == "accept"
    assert states["askmaths.net/tags/"] == "undecided"


@pytest.mark.parametrize("name, method, path, body, headers, token, host, status, needle", [
    ("bad token", "GET", "/?token=nope", None, {}, False, None, 403, "bad or missing token"),
    ("no token", "GET", "/api/state", None, {}, False, None, 403, "bad or missing token"),
    ("bad token on save", "POST", "/api/save", b'{"decisions": {}}', "post", False, None, 403, "token"),
    ("other Host (DNS rebinding)", "GET", "/api/state", None, {}, True, "evil.example:80", 403, "not this server"),
    ("cross-site POST", "POST", "/api/save", b'{"decisions": {"askmaths.net/users/": "accept"}}',
     {"Origin": "http://evil.example"}, True, None, 403, "cross-site request refused"),
    ("POST without Origin", "POST", "/api/save", b'{"decisions": {}}', {"Origin": None}, True, None, 403,
     "cross-site"),
    ("POST from another site (fetch metadata)", "POST", "/api/save", b'{"decisions": {}}',
     {"Sec-Fetch-Site": "cross-site"}, True, None, 403, "cross-site"),
    ("no CSRF token", "POST", "/api/save", b'{"decisions": {}}', {"X-CSRF-Token": None}, True, None, 403,
     "X-CSRF-Token"),
    ("form post", "POST", "/api/save", b"decisions=1", {"Content-Type": "application/x-www-form-urlencoded"},
     True, None, 415, "application/json"),
    ("not JSON", "POST", "/api/save", b"{not json", {}, True, None, 400, "not JSON"),
    ("wrong shape", "POST", "/api/save", b'{"decisions": ["askmaths.net/users/"]}', {}, True, None, 400,
     "expected a JSON object"),
    ("bad state", "POST", "/api/save", b'{"decisions": {"askmaths.net/users/": "maybe"}}', {}, True, None, 400,
     "state must be one of"),
    ("unknown prefix", "POST", "/api/save", b'{"decisions": {"askmaths.net/secret/": "accept"}}', {}, True, None,
     400, "not a prefix listed"),
    ("path as a prefix", "POST", "/api/save", b'{"decisions": {"../../etc/passwd": "accept"}}', {}, True, None,
     400, "nothing was written"),
    ("path-like sample id", "GET", "/api/sample/..%2F..%2Fetc%2Fpasswd", None, {}, True, None, 400,
     "must be a number"),
    ("path sample id", "GET", "/api/sample/../../pages/part-00000.parquet", None, {}, True, None, 400,
     "served by id only"),
    ("unknown sample", "GET", "/api/sample/99999", None, {}, True, None, 404, "no sample"),
])
def test_refused_requests_write_nothing(server, view, name, method, path, body, headers, token, host, status,
                                        needle):
    adir = Path(view.adir)
    before = snapshot(adir)
    h = dict(post_headers(server)) if method == "POST" else {}
    h.update({} if headers == "post" else headers)
    h = {k: v for k, v in h.items() if v is not None}
    if method == "POST" and "Origin" in headers and headers["Origin"] is None:
        h.pop("Origin", None)
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    c.putheader("Host", host or f"127.0.0.1:{server.port}")
    if token:
        c.putheader("X-Annotate-Token", server.token)
    for k, v in h.items():
        c.putheader(k, v)
    c.putheader("Content-Length", str(len(body or b"")))
    c.endheaders(body or b"")
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    assert r.status == status, (name, data)
    assert needle in data["error"], (name, data)
    assert snapshot(adir) == before, name
    assert not (adir / A.REJECTED).exists()


def test_body_over_the_limit_is_refused(server, view):
    before = snapshot(Path(view.adir))
    st, _, body = request(server, "POST", "/api/save", b"x" * (W.MAX_BODY + 1), post_headers(server))
    assert st == 413 and snapshot(Path(view.adir)) == before


def test_invalid_hand_edit_is_reported_before_serving(view, tmp_path, capsys):
    # a hand-edited marked file with an unknown prefix: the command refuses to serve (exit 2)
    from corpus_pipeline.cli import main

    run = tmp_path / "run"
    (run / "iter=001" / "annotations" / A.MARKED).write_text("askmaths.net/nope/\n")
    assert main(["annotate", str(run), "--serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "marked_paths.txt:1" in err and "unknown prefix" in err


def test_rejecting_a_carried_mark_is_refused_with_the_way_out(tmp_path):
    adir = tmp_path / "run" / "iter=002" / "annotations"
    prev = [A.Mark("askmaths.net", "/questions/", "carried", "", "proposer", 1)]
    A.write_worksheet(str(adir), ROWS, prev, 2)
    index = A.read_index(str(adir))
    known = {tuple(k) for k in index["known"]}
    marks = A.read_marks(str(adir / A.MARKED), known)
    view = W.build_view(str(tmp_path / "run"), 2, str(adir), index, marks, [], [], {}, [])
    p = {p["path"]: p for h in view.hosts for p in h["prefixes"]}["askmaths.net/questions/"]
    assert p["state"] == "accept" and p["decided_by"] == "carried"
    before = snapshot(adir)
    with pytest.raises(W.SaveError, match="carried from an earlier iteration"):
        W.save(view, {("askmaths.net", "/questions/"): "reject"})
    assert snapshot(adir) == before
    # accepting the rest keeps the carried mark as it was
    W.save(view, {("askmaths.net", "/questions/"): "accept", ("calctutor.com", "/lessons/"): "accept"})
    got = {m.path: m.decided_by for m in A.read_marks(str(adir / A.MARKED), known)}
    assert got == {"askmaths.net/questions/": "carried", "calctutor.com/lessons/": "person"}
