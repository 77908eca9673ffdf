"""The labeled mini-crawl generator: determinism, readable WARCs, labels, phenomena (no Spark)."""
from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import xml.etree.ElementTree as ET
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.cli import main
from corpus_pipeline.minicrawl import MixConfig, generate
from corpus_pipeline.minicrawl.formulas import TOPICS, formula, tex_to_mathml
from corpus_pipeline.text import has_cjk
from test_minicrawl_benchmark import _members   # every complete gzip member of a WARC file

N = 600
SEED = 7


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("mc") / "crawl"
    manifest = generate(out, pages=N, random_seed=SEED)
    return out, manifest


def _files(d: Path) -> dict:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _labels(d: Path) -> list[dict]:
    return [json.loads(line) for line in (d / "labels.jsonl").read_text(encoding="utf-8").splitlines()]


def _responses(d: Path) -> list[dict]:
    """Every response record as read by warcio (payload, declared and read lengths)."""
    out = []
    for f in sorted((d / "warc").glob("*.warc.gz")):
        with open(f, "rb") as fh:
            recs = list(_iter(fh))
        for k, rec in enumerate(recs):
            rec["file"] = f"warc/{f.name}"
            rec["last_in_file"] = k == len(recs) - 1
            out.append(rec)
    return out


def _iter(fh):
    for rec in ArchiveIterator(fh):
        if rec.rec_type != "response":
            continue
        payload = rec.content_stream().read()
        raw_uri = rec.rec_headers.get_header("WARC-Target-URI")
        yield {"raw_uri": raw_uri, "url": raw_uri[1:-1] if raw_uri.startswith("<") else raw_uri,
               "status": rec.http_headers.get_statuscode(), "ctype": rec.http_headers.get_header("Content-Type") or "",
               "location": rec.http_headers.get_header("Location"),
               "declared": int(rec.http_headers.get_header("Content-Length")), "payload": payload}


def _gunzip_members(data: bytes) -> bytes:
    """Concatenated gzip members, tolerating a member cut short at the end."""
    out = []
    while data:
        d = zlib.decompressobj(31)
        out.append(d.decompress(data))
        if not d.eof:
            break
        data = d.unused_data
    return b"".join(out)


@pytest.fixture(scope="module")
def responses(crawl):
    return _responses(crawl[0])


# ----------------------------------------------------------------- determinism
def test_same_seed_gives_byte_identical_files(crawl, tmp_path):
    out, _ = crawl
    generate(tmp_path / "again", pages=N, random_seed=SEED)
    a, b = _files(out), _files(tmp_path / "again")
    assert sorted(a) == sorted(b)
    assert len([k for k in a if k.endswith(".warc.gz")]) >= 2      # split into several files
    for k in a:
        assert a[k] == b[k], k


def test_different_seed_gives_different_crawl(crawl, tmp_path):
    out, _ = crawl
    generate(tmp_path / "other", pages=N, random_seed=SEED + 1)
    assert (out / "labels.jsonl").read_bytes() != (tmp_path / "other" / "labels.jsonl").read_bytes()
    first = sorted((out / "warc").glob("*.warc.gz"))[0].read_bytes()
    other = sorted((tmp_path / "other" / "warc").glob("*.warc.gz"))[0].read_bytes()
    assert first != other


def test_gzip_members_have_zero_mtime(crawl):
    data = sorted((crawl[0] / "warc").glob("*.warc.gz"))[0].read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\x00\x00\x00\x00"


# ----------------------------------------------------------------- readable WARCs, truncation
def test_warcio_reads_every_record_except_the_truncated_one(crawl, responses):
    _, m = crawl
    assert len(responses) == m["responses"] == N
    short = [r for r in responses if len(r["payload"]) < r["declared"]]
    assert len(short) == 1, [r["url"] for r in short]
    t = short[0]
    assert t["url"] == m["truncated"]["url"] and t["file"] == m["truncated"]["file"] and t["last_in_file"]
    for r in responses:
        if r is not t:
            assert len(r["payload"]) == r["declared"], r["url"]
    # every record type is there, and plain gzip sees exactly one file cut short
    for f in sorted((crawl[0] / "warc").glob("*.warc.gz")):
        types = Counter()
        with open(f, "rb") as fh:
            for rec in ArchiveIterator(fh):
                types[rec.rec_type] += 1
        assert types["warcinfo"] == 1 and types["request"] >= types["response"] > 0
        if f"warc/{f.name}" == t["file"]:
            with pytest.raises(EOFError):
                gzip.decompress(f.read_bytes())
        else:
            assert gzip.decompress(f.read_bytes()).startswith(b"WARC/1.0\r\n")


# ----------------------------------------------------------------- labels
def test_every_response_url_has_exactly_one_label(crawl, responses):
    labels = _labels(crawl[0])
    urls = [x["url"] for x in labels]
    assert len(urls) == len(set(urls))
    assert {x["label"] for x in labels} <= {"math", "non-math", "ambiguous"}
    assert set(urls) == {r["url"] for r in responses}
    # some URIs are written as <...> (warcio strips the brackets itself; the raw bytes keep them)
    raw = b"".join(_gunzip_members(f.read_bytes()) for f in sorted((crawl[0] / "warc").glob("*.gz")))
    wrapped = re.findall(rb"WARC-Type: response\r\n(?:[^\r]*\r\n)*?WARC-Target-URI: <([^>\r]+)>", raw)
    assert wrapped and {u.decode() for u in wrapped} <= set(urls)
    c = Counter(x["label"] for x in labels)
    assert 0.15 <= c["math"] / len(labels) <= 0.40
    assert c["ambiguous"] <= 0.02 * len(labels)


# ----------------------------------------------------------------- phenomena
MARKUP_SIGNS = {
    "mathjax": re.compile(rb"\$[^$<]{2,}\$|\\\(.+?\\\)"),
    "katex": re.compile(rb'class="katex".*?annotation encoding="application/x-tex"', re.S),
    "mathml": re.compile(rb'<math xmlns="http://www.w3.org/1998/Math/MathML"'),
    "img": re.compile(rb'<img class="tex[^"]*" src="[^"]+" alt="[^"]*[\\^_=][^"]*"'),
}


def test_hosts_and_markup_kinds(crawl, responses):
    _, m = crawl
    hosts = {r["url"].split("/")[2] for r in responses}
    assert len(hosts) >= 20 and m["n_hosts"] == len(hosts)
    label = {x["url"]: x["label"] for x in _labels(crawl[0])}
    html = [r for r in responses if r["ctype"].startswith("text/html") and r["status"] == "200"]
    seen = Counter()
    prose = 0
    for r in html:
        kinds = [k for k, rx in MARKUP_SIGNS.items() if rx.search(r["payload"])]
        if label[r["url"]] == "math":
            seen.update(kinds)
            prose += not kinds
        else:
            assert "katex" not in kinds and "mathml" not in kinds, r["url"]
    for k in MARKUP_SIGNS:
        assert seen[k] >= 3, (k, seen)
    n_math = sum(label[r["url"]] == "math" for r in html)
    assert prose >= 0.25 * n_math                      # maths in plain prose, no formula markup
    assert m["phenomena"]["math_prose"] >= 0.25 * n_math


def test_chinese_and_number_dense_pages(crawl, responses):
    label = {x["url"]: x["label"] for x in _labels(crawl[0])}
    zh = Counter(label[r["url"]] for r in responses if r["ctype"] == "text/html; charset=utf-8"
                 and has_cjk(r["payload"].decode("utf-8", "replace")))
    assert zh["math"] >= 5 and zh["non-math"] >= 5
    dense = 0
    for r in responses:
        if label[r["url"]] == "non-math" and r["ctype"].startswith("text/html"):
            body = r["payload"].decode("utf-8", "replace")
            if len(re.findall(r"\d+(?:[.,:]\d+)?", body)) >= 40:
                dense += 1
    assert dense >= 50


def test_duplicates_recrawls_and_near_duplicates(crawl, responses):
    _, m = crawl
    by_url = defaultdict(list)
    for r in responses:
        by_url[r["url"]].append(r["payload"])
    recrawled = [u for u, ps in by_url.items() if len(ps) > 1]
    assert recrawled and all(len(set(by_url[u])) > 1 for u in recrawled)   # later fetch differs
    digests = defaultdict(set)
    for r in responses:
        if r["status"] == "200" and r["ctype"].startswith("text/html"):
            digests[hashlib.sha1(r["payload"]).hexdigest()].add(r["url"])
    assert any(len(us) > 1 for us in digests.values())        # exact duplicates under different URLs
    ph = m["phenomena"]
    assert ph["near_dup_boilerplate"] >= 1 and ph["near_dup_sentence"] >= 1 and ph["exact_dup"] >= 1


def test_redirect_non_html_non_utf8(crawl, responses):
    statuses = Counter(r["status"] for r in responses)
    assert statuses["301"] >= 1 and statuses["302"] >= 1
    for r in responses:
        if r["status"] in ("301", "302"):
            assert r["location"] and r["location"].startswith("https://")
    ctypes = {r["ctype"].split(";")[0] for r in responses}
    assert {"application/pdf", "application/json", "image/png"} <= ctypes
    legacy = {}
    for r in responses:
        cs = re.search(r"charset=([\w-]+)", r["ctype"])
        if cs and cs.group(1) != "utf-8":
            legacy[cs.group(1)] = r
    assert {"windows-1252", "gbk"} <= set(legacy)
    for cs, r in legacy.items():
        with pytest.raises(UnicodeDecodeError):
            r["payload"].decode("utf-8")
        text = r["payload"].decode(cs)
        assert f'<meta charset="{cs}">' in text


def test_mixed_maths_sites_have_maths_and_non_maths_prefixes(crawl):
    _, m = crawl
    per = defaultdict(lambda: defaultdict(Counter))
    for x in _labels(crawl[0]):
        host, path = re.match(r"https?://([^/]+)(/[^/?]*)", x["url"]).groups()
        per[host][path][x["label"]] += 1
    assert len(m["mixed_math_hosts"]) >= 4
    for host in m["mixed_math_hosts"]:
        prefixes = per[host]
        mathy = [p for p, c in prefixes.items() if c["math"] >= 2 and c["math"] >= 0.9 * sum(c.values())]
        plain = [p for p, c in prefixes.items() if c["non-math"] >= 2 and c["math"] == 0]
        assert mathy and plain, (host, dict(prefixes))
    # sites with no maths at all, and general sites with only a few maths pages
    cats = Counter(v["category"] for v in m["hosts"].values())
    assert cats["non-math"] >= 8 and cats["general"] >= 2
    for h, v in m["hosts"].items():
        if v["category"] == "non-math":
            assert v["math"] == 0, h


def test_html_has_boilerplate_and_extractable_main_text(responses):
    import trafilatura

    html = [r for r in responses if r["ctype"] == "text/html; charset=utf-8" and r["status"] == "200"]
    sample = random.Random(0).sample(html, 25)
    for r in sample:
        page = r["payload"].decode("utf-8")
        for part in ("<header", "<nav", "<footer", "sidebar", "<h1"):
            assert part in page
        text = trafilatura.extract(page, url=r["url"]) or ""
        assert len(text) >= 100, r["url"]
        assert "All rights reserved" not in text


# ----------------------------------------------------------------- pieces
def test_tex_to_mathml_is_well_formed():
    r = random.Random(3)
    for topic in TOPICS:
        for _ in range(40):
            tex = formula(r, topic)
            root = ET.fromstring(tex_to_mathml(tex, display=True))
            assert root.tag.endswith("math") and len(list(root.iter())) > 3, tex


def test_mix_is_tunable(tmp_path):
    m = generate(tmp_path / "t", pages=300, random_seed=2,
                 mix=MixConfig(prose_factor=0.0, site_weights={"askmaths.net": 40.0}, forced_phenomena=False))
    assert m["kinds"].get("math_prose", 0) == 0 and m["kinds"].get("zh_math_prose", 0) == 0
    assert m["hosts"]["askmaths.net"]["urls"] > 0.25 * m["labels"]


def test_cli(tmp_path, capsys):
    assert main(["minicrawl", "--out", str(tmp_path / "c"), "--pages", "60", "--random-seed", "3"]) == 0
    assert (tmp_path / "c" / "labels.jsonl").exists() and (tmp_path / "c" / "manifest.json").exists()
    assert "60 responses" in capsys.readouterr().out
    assert main(["minicrawl", "--out", str(tmp_path / "d"), "--pages", "0"]) == 2
    assert not (tmp_path / "d").exists()


# ----------------------------------------------------------------- a second label domain: code
@pytest.fixture(scope="module")
def code_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("mc_code") / "crawl"
    manifest = generate(out, pages=N, random_seed=SEED, label_domains=("code",))
    return out, manifest


def _code_labels(d: Path) -> list[dict]:
    return [json.loads(line) for line in (d / "labels_code.jsonl").read_text(encoding="utf-8").splitlines()]


def test_label_domain_code_leaves_the_crawl_unchanged(crawl, code_crawl):
    """Same WARC bytes, labels.jsonl and benchmark files; the manifest only gains its label_domains entry."""
    a, b = _files(crawl[0]), _files(code_crawl[0])
    assert sorted(b) == sorted([*a, "labels_code.jsonl"])
    for k in a:
        if k != "manifest.json":
            assert a[k] == b[k], k
    m_code = json.loads(b["manifest.json"])
    assert set(m_code.pop("label_domains")) == {"code"}
    assert m_code == json.loads(a["manifest.json"])
    assert "label_domains" not in crawl[1]


def test_every_labelled_url_has_exactly_one_code_label(crawl, code_crawl, responses):
    labels, code = _labels(crawl[0]), _code_labels(code_crawl[0])
    assert [x["url"] for x in code] == [x["url"] for x in labels]      # same URLs, same order, one line each
    assert {x["label"] for x in code} == {"code", "non-code"}
    assert {x["url"] for x in code} == {r["url"] for r in responses}
    c = Counter(x["label"] for x in code)
    assert c == Counter(code_crawl[1]["label_domains"]["code"]["label_counts"])
    assert 0.02 <= c["code"] / len(code) <= 0.15
    # no page is positive in both domains: maths pages are labelled by their main topic (non-code)
    math = {x["url"] for x in labels if x["label"] == "math"}
    assert not math & {x["url"] for x in code if x["label"] == "code"}


def test_code_labels_follow_the_page_content(code_crawl, responses):
    """A 200 HTML page labelled code carries a code block (<pre><code>), a non-code page never does."""
    code = {x["url"]: x["label"] for x in _code_labels(code_crawl[0])}
    seen = Counter()
    for r in responses:
        if r["status"] != "200" or not r["ctype"].startswith("text/html") or len(r["payload"]) < r["declared"]:
            continue
        has_block = b"<pre><code>" in r["payload"]
        assert has_block == (code[r["url"]] == "code"), r["url"]
        seen[code[r["url"]]] += 1
    assert seen["code"] > 0 and seen["non-code"] > 0


def test_code_pages_on_several_hosts_and_a_code_prefix(code_crawl):
    """The path step needs hosts with code pages and a prefix that holds them.

    The default site table has one code-only host (pydocs-hub.dev, /api/) and a general wiki with a few
    code pages; no host mixes a code prefix with non-code prefixes (like askmaths.net does for maths):
    ``code_sites=True`` adds such hosts (the --code-sites tests below).
    """
    dm = code_crawl[1]["label_domains"]["code"]
    hosts = dm["hosts"]
    assert len(dm["code_hosts"]) >= 2, dm["code_hosts"]
    assert dm["code_prefixes"]["pydocs-hub.dev"] == ["/api/"]
    api = hosts["pydocs-hub.dev"]["prefixes"]["/api/"]
    assert api["code"] >= 0.9 * (api["code"] + api["non-code"])
    wiki = hosts["worldpedia.org"]["prefixes"]["/wiki/"]
    assert 0 < wiki["code"] < wiki["non-code"]              # a general site: code is a small minority
    # maths-first hosts hold no code pages
    for h in code_crawl[1]["mixed_math_hosts"]:
        assert hosts.get(h, {}).get("code", 0) == 0, h


def test_label_domain_cli_and_stale_file(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["minicrawl", "--out", str(out), "--pages", "60", "--random-seed", "3", "--label-domain", "code"]) == 0
    assert "labels_code.jsonl: code" in capsys.readouterr().out
    assert len(_code_labels(out)) == len(_labels(out))
    # a later run without the option removes the labels_code.jsonl that no longer matches
    assert main(["minicrawl", "--out", str(out), "--pages", "60", "--random-seed", "4"]) == 0
    assert not (out / "labels_code.jsonl").exists()
    assert main(["minicrawl", "--out", str(out), "--label-domain", "maths"]) == 2
    with pytest.raises(ValueError):
        generate(tmp_path / "x", pages=10, random_seed=1, label_domains=("nope",))


@pytest.mark.slow
def test_default_size_generates(tmp_path):
    """The demo's default size (not timed): counts land in the intended mix."""
    m = generate(tmp_path / "demo", pages=3000, random_seed=1)
    assert m["responses"] == 3000 and len(m["files"]) >= 4
    share = m["label_counts"]["math"] / m["labels"]
    assert 0.2 <= share <= 0.32
    assert all(v["urls"] >= 20 for h, v in m["hosts"].items() if v["category"] != "mirror")


# ----------------------------------------------------------------- --code-sites: hosts with code and non-code prefixes
CODE_SITE_HOSTS = ["askcode.dev", "devnotes.io", "techweekly.net"]
# the code-block markup check: a <pre> element, or a <code> element spanning more than one line
_PRE = re.compile(rb"<pre[\s>]", re.I)
_MULTILINE_CODE = re.compile(rb"<code[^>]*>(?:(?!</code>)[\s\S]){0,3000}?(?:\n|<br)(?:(?!</code>)[\s\S]){0,3000}?</code>",
                             re.I)


def _has_code_block(html: bytes) -> bool:
    return bool(_PRE.search(html) or _MULTILINE_CODE.search(html))


def _content_digest(d: Path) -> str:
    """sha256 over a crawl folder: WARC records decompressed, labels and benchmark files as they are, the
    manifest without compressed file sizes (so the digest does not depend on the zlib build)."""
    h = hashlib.sha256()
    for p in sorted(d.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(d).as_posix()
        data = p.read_bytes()
        if rel.endswith(".warc.gz"):
            data = _members(data)
        elif rel == "manifest.json":
            m = json.loads(data)
            for f in m["files"]:
                f.pop("bytes")
            data = json.dumps(m, sort_keys=True).encode()
        h.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


# Taken from the generator before --code-sites existed (commit 0ff40f7).  The default crawl must not
# change when code sites are added; if an intended change to the default crawl alters these, update
# them in the same commit and say so.
DEFAULT_DIGESTS = {
    (300, 11, ()): "96bab443308b9c651e7a961b6467343715e235aced65ba8ee687aa5b283c407f",
    (300, 11, ("code",)): "d09b9417a49d37a00a0401c0f639f5e90d34f5c74e767ba025244e0776ae5468",
}


@pytest.fixture(scope="module")
def sites_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("mc_sites") / "crawl"
    manifest = generate(out, pages=800, random_seed=SEED, label_domains=("code",), code_sites=True)
    return out, manifest


@pytest.fixture(scope="module")
def sites_responses(sites_crawl):
    return _responses(sites_crawl[0])


def test_default_crawl_is_unchanged_by_the_code_sites_option(code_crawl, tmp_path):
    """Without code_sites the files are those of the generator before the option (content digests),
    and code_sites=False writes the same bytes as leaving it out."""
    for (pages, seed, doms), want in DEFAULT_DIGESTS.items():
        out = tmp_path / f"d{len(doms)}"
        generate(out, pages=pages, random_seed=seed, label_domains=doms)
        assert _content_digest(out) == want, (pages, seed, doms)
    off = tmp_path / "off"
    m = generate(off, pages=N, random_seed=SEED, label_domains=("code",), code_sites=False)
    a, b = _files(code_crawl[0]), _files(off)
    assert sorted(a) == sorted(b)
    for k in a:
        assert a[k] == b[k], k
    assert "code_sites" not in m and not set(CODE_SITE_HOSTS) & set(m["hosts"])


def test_code_sites_crawl_is_deterministic(sites_crawl, tmp_path):
    generate(tmp_path / "again", pages=800, random_seed=SEED, label_domains=("code",), code_sites=True)
    a, b = _files(sites_crawl[0]), _files(tmp_path / "again")
    assert sorted(a) == sorted(b)
    for k in a:
        assert a[k] == b[k], k


def test_code_sites_hold_code_under_some_prefixes_only(sites_crawl):
    """The path step's material: on each code site a prefix of code pages beside prefixes without any."""
    _, m = sites_crawl
    assert m["code_sites"] == CODE_SITE_HOSTS
    dm = m["label_domains"]["code"]
    hosts = dm["hosts"]
    urls = sum(m["hosts"][h]["urls"] for h in CODE_SITE_HOSTS)
    assert 0.12 <= urls / m["labels"] <= 0.25, urls
    expect = {"askcode.dev": ("/questions/", ["/users/", "/tags/", "/help/", "/jobs/"]),
              "devnotes.io": ("/tutorials/", ["/news/", "/about/"]),
              "techweekly.net": ("/howto/", ["/reviews/", "/news/", "/jobs/"])}
    for h, (code_prefix, other) in expect.items():
        prefs = hosts[h]["prefixes"]
        assert prefs[code_prefix]["code"] > 0, h
        assert sum(p in prefs for p in other) >= 2, (h, sorted(prefs))
        for p in other:
            assert prefs.get(p, {}).get("code", 0) == 0, (h, p)
    for h in ("askcode.dev", "devnotes.io"):       # a Q&A and a tutorial section hold code (and the odd PDF)
        pc = hosts[h]["prefixes"][expect[h][0]]
        assert pc["code"] >= 15 and pc["non-code"] <= 3, (h, pc)
        assert expect[h][0] in dm["code_prefixes"][h]
    howto = hosts["techweekly.net"]["prefixes"]["/howto/"]   # a magazine's how-tos: part code, part not
    assert howto["non-code"] > 0
    c = dm["label_counts"]
    besides_api = c["code"] - hosts["pydocs-hub.dev"]["code"]
    assert besides_api >= 70 and c["code"] / m["labels"] <= 0.2, c
    # the code sites' pages are never maths
    assert all(m["hosts"][h]["math"] == 0 and m["hosts"][h]["ambiguous"] == 0 for h in CODE_SITE_HOSTS)


def test_code_sites_labels_and_code_blocks(sites_crawl, sites_responses):
    """labels_code.jsonl: /questions/ and /tutorials/ pages are code, the sites' other sections non-code;
    labels.jsonl: all of their pages non-math.  Most code pages carry a code block (<pre>, multi-line
    <code>), some do not (how-to answers with an inline command, essays); no non-code page does."""
    out, _ = sites_crawl
    code = {x["url"]: x["label"] for x in _code_labels(out)}
    math = {x["url"]: x["label"] for x in _labels(out)}
    assert list(code) == list(math)
    seen, blocks = Counter(), Counter()
    for r in sites_responses:
        host, path = r["url"].split("/")[2], "/" + "/".join(r["url"].split("/")[3:])
        if host not in CODE_SITE_HOSTS:
            continue
        assert math[r["url"]] == "non-math", r["url"]
        if not r["ctype"].startswith("text/html"):     # a PDF, JSON or PNG of the host: never code
            assert code[r["url"]] == "non-code", r["url"]
        elif path.startswith(("/questions/", "/tutorials/")):
            assert code[r["url"]] == "code", r["url"]
        elif path.startswith(("/users/", "/tags/", "/help/", "/jobs/", "/news/", "/about/", "/reviews/")):
            assert code[r["url"]] == "non-code", r["url"]
        if r["status"] != "200" or not r["ctype"].startswith("text/html") or len(r["payload"]) < r["declared"]:
            continue
        seen[code[r["url"]]] += 1
        blocks[code[r["url"]]] += _has_code_block(r["payload"])
        if code[r["url"]] == "non-code":
            assert not _has_code_block(r["payload"]), r["url"]
    assert seen["code"] >= 60 and seen["non-code"] >= 35, seen
    assert 0.75 * seen["code"] <= blocks["code"] < seen["code"], (blocks, seen)
    # the other hosts keep their rule: a code block exactly on code pages
    for r in sites_responses:
        if r["url"].split("/")[2] in CODE_SITE_HOSTS or r["status"] != "200" or not r["ctype"].startswith("text/html") \
                or len(r["payload"]) < r["declared"]:
            continue
        assert _has_code_block(r["payload"]) == (code[r["url"]] == "code"), r["url"]


def test_code_sites_cli(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["minicrawl", "--out", str(out), "--pages", "150", "--random-seed", "3", "--code-sites",
                 "--label-domain", "code"]) == 0
    printed = capsys.readouterr().out
    assert "code sites askcode.dev, devnotes.io, techweekly.net" in printed and "labels_code.jsonl: code" in printed
    m = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert m["code_sites"] == CODE_SITE_HOSTS and set(CODE_SITE_HOSTS) <= set(m["hosts"])
    # the option says nothing about label domains: alone it writes no labels_code.jsonl
    assert main(["minicrawl", "--out", str(tmp_path / "d"), "--pages", "60", "--code-sites"]) == 0
    assert not (tmp_path / "d" / "labels_code.jsonl").exists()
    assert main(["minicrawl", "--help"]) == 0
    assert "meant with --label-domain code" in " ".join(capsys.readouterr().out.split())
