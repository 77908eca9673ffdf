"""The mini-crawl generator: pages -> WARC records + labels + manifest (deterministic, streaming).

One ``random.Random(random_seed)`` drives the content, another the record ids;
dates derive from the random seed; gzip members carry mtime 0.  Memory is bounded:
only a small ring of recent pages is kept (for duplicates, recrawls and
redirects), so 200,000 pages stream through in constant memory.
"""
from __future__ import annotations

import contextlib
import copy
import datetime as dt
import hashlib
import json
import os
import random
import re
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from . import codetext
from . import textgen as T
from .formulas import TOPICS
from .benchmark import Planter
from .html import render_page
from .sites import CODE_CATEGORIES, CODE_SITES, LABEL_DOMAINS, MIRROR, PROSE_MATH_KINDS, SITES, Site, label_of
from .warcfile import WarcFile, sha1_b32

SOFTWARE = "corpus_pipeline-minicrawl/1.0"
MATH_TAGS = ["calculus", "linear-algebra", "number-theory", "geometry", "probability", "combinatorics",
             "algebra-precalculus", "real-analysis", "abstract-algebra", "inequality", "sequences-and-series"]
OTHER_TAGS = ["travel", "cooking", "python", "football", "gardening", "finance", "movies", "health", "jobs"]


@dataclass
class MixConfig:
    """Knobs of the crawl's mix (rates are per generated response)."""
    records_per_file: int = 800            # WARC records per file (request + response per page, plus warcinfo)
    recrawl_rate: float = 0.010            # same URL fetched again later, slightly changed
    exact_dup_rate: float = 0.012          # identical payload under another URL
    near_dup_rate: float = 0.016           # half different boilerplate, half one changed sentence
    redirect_rate: float = 0.003           # 301 (http -> https) or 302 (short link)
    non_html_rate: float = 0.008           # PDF, JSON, PNG
    non_utf8_rate: float = 0.004           # windows-1252 or GBK page with a declared charset
    angle_uri_rate: float = 0.02           # WARC-Target-URI written as <...>
    prose_factor: float = 1.0              # multiplies the weight of prose-maths kinds inside every section
    site_weights: dict = field(default_factory=dict)   # host -> weight override (0 removes the host)
    gzip_level: int = 6
    forced_phenomena: bool = True          # guarantee each phenomenon at least once (small crawls)
    recent_pages: int = 64                 # ring of recent pages for duplicates / recrawls / redirects
    sites: tuple = SITES


def _slugify(title: str, ident: int) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].strip("-")
    return f"{s}-{ident}" if s else f"page-{ident}"


def _weighted(r: random.Random, items: list, weights: list):
    return r.choices(items, weights)[0]


class _Gen:
    def __init__(self, out: Path, pages: int, random_seed: int, mix: MixConfig, label_domains: tuple = (),
                 code_sites: bool = False):
        self.out, self.n, self.random_seed, self.mix = out, pages, random_seed, mix
        self.label_domains = tuple(label_domains)
        self.domain_files: dict = {}        # domain -> open labels_<domain>.jsonl (only while run() writes)
        self.domain_counts = {d: Counter() for d in self.label_domains}
        self.domain_prefixes: dict = {d: {} for d in self.label_domains}
        self.r = random.Random(random_seed)
        self.rid = random.Random(f"minicrawl-record-ids-{random_seed}")
        self.t = dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(days=random_seed % 1000, seconds=(random_seed * 7919) % 86400)
        sites = list(mix.sites)
        if code_sites:                      # appended after the site table: without them every draw is as before
            sites += [s for s in CODE_SITES if s.host not in {x.host for x in sites}]
        self.sites = [s for s in sites if mix.site_weights.get(s.host, s.weight) > 0]
        code_hosts = {s.host for s in CODE_SITES}
        self.code_sites = [s.host for s in self.sites if s.host in code_hosts] if code_sites else []
        self.site_w = [mix.site_weights.get(s.host, s.weight) for s in self.sites]
        self.recent: deque = deque(maxlen=mix.recent_pages)
        self.per_file = max(1, (mix.records_per_file - 1) // 2)
        self.files: list[dict] = []
        self.wf: Optional[WarcFile] = None
        self.warcinfo_id = ""
        self.c = Counter()
        self.hosts: dict = {}
        self.prefixes: dict = {}
        self.kinds = Counter()
        self.markups = Counter()
        self.truncated: dict = {}
        self.labels_f = None
        self.bench = Planter(random_seed)          # a made-up benchmark, a few items planted in pages

    # ------------------------------------------------------------ ids, dates
    def _uuid(self) -> str:
        return f"<urn:uuid:{uuid.UUID(int=self.rid.getrandbits(128), version=4)}>"

    def _tick(self) -> dt.datetime:
        self.t += dt.timedelta(seconds=self.r.randint(1, 40))
        return self.t

    # ------------------------------------------------------------ files
    def _open_file(self, k: int) -> None:
        if self.wf is not None:
            self._close_file()
        name = f"minicrawl-{self.random_seed}-{k:05d}.warc.gz"
        self.wf = WarcFile(self.out / "warc" / name, self.mix.gzip_level)
        self.files.append({"file": f"warc/{name}", "records": 0, "responses": 0})
        self.warcinfo_id = self._uuid()
        info = (f"software: {SOFTWARE}\r\nformat: WARC File Format 1.0\r\nrandom-seed: {self.random_seed}\r\n"
                f"pages: {self.n}\r\nisPartOf: minicrawl-{self.random_seed}\r\n").encode()
        self.wf.record([("WARC-Type", "warcinfo"), ("WARC-Record-ID", self.warcinfo_id),
                        ("WARC-Date", self.t.strftime("%Y-%m-%dT%H:%M:%SZ")), ("WARC-Filename", name),
                        ("Content-Type", "application/warc-fields")], info)

    def _close_file(self) -> None:
        self.files[-1]["records"] = self.wf.records
        self.files[-1]["bytes"] = self.wf.bytes
        self.wf.close()
        self.wf = None

    def _emit(self, url: str, status: str, ctype: str, payload: bytes, *, extra_http=(), truncate=False) -> None:
        when = self._tick()
        wdate = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        hdate = when.strftime("%a, %d %b %Y %H:%M:%S GMT")
        m = re.match(r"(https?)://([^/]+)(/.*)?$", url)
        host, path = m.group(2), m.group(3) or "/"
        target = f"<{url}>" if self.r.random() < self.mix.angle_uri_rate else url
        ip = ".".join(str(b) for b in hashlib.md5(host.encode()).digest()[:4])
        req = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {SOFTWARE} (+https://example.org/bot)\r\n"
               "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\nAccept-Encoding: identity\r\n"
               "Connection: close\r\n\r\n").encode()
        req_id = self._uuid()
        self.wf.record([("WARC-Type", "request"), ("WARC-Record-ID", req_id), ("WARC-Date", wdate),
                        ("WARC-Target-URI", target), ("WARC-IP-Address", ip),
                        ("WARC-Warcinfo-ID", self.warcinfo_id), ("WARC-Block-Digest", sha1_b32(req)),
                        ("Content-Type", "application/http; msgtype=request")], req)
        http = [f"HTTP/1.1 {status}", f"Date: {hdate}", "Server: nginx/1.24.0", f"Content-Type: {ctype}",
                f"Content-Length: {len(payload)}", *extra_http, "Connection: close"]
        block = ("\r\n".join(http) + "\r\n\r\n").encode() + payload
        self.wf.record([("WARC-Type", "response"), ("WARC-Record-ID", self._uuid()), ("WARC-Date", wdate),
                        ("WARC-Target-URI", target), ("WARC-IP-Address", ip), ("WARC-Concurrent-To", req_id),
                        ("WARC-Warcinfo-ID", self.warcinfo_id), ("WARC-Payload-Digest", sha1_b32(payload)),
                        ("WARC-Block-Digest", sha1_b32(block)),
                        ("Content-Type", "application/http; msgtype=response")], block, truncate=truncate)
        self.files[-1]["responses"] += 1
        self.c["responses"] += 1
        if target != url:
            self.c["angle_bracket_uri"] += 1

    def _label(self, url: str, label: str, host: str, prefix: str, kind: str) -> None:
        self.labels_f.write(json.dumps({"url": url, "label": label}, ensure_ascii=False) + "\n")
        self.c["labels"] += 1
        self.c[f"label_{label}"] += 1
        h = self.hosts.setdefault(host, Counter())
        h[label] += 1
        h["urls"] += 1
        p = self.prefixes.setdefault(host, {}).setdefault(prefix, Counter())
        p[label] += 1
        # other label domains: the same URL, labelled from the page's document kind (no random draw)
        for dom, f in self.domain_files.items():
            dlabel = LABEL_DOMAINS[dom][1](kind)
            f.write(json.dumps({"url": url, "label": dlabel}, ensure_ascii=False) + "\n")
            self.domain_counts[dom][dlabel] += 1
            self.domain_prefixes[dom].setdefault(host, {}).setdefault(prefix, Counter())[dlabel] += 1

    # ------------------------------------------------------------ documents
    def _make_doc(self, site: Site, kind: str) -> dict:
        r = self.r
        topic = r.choice(TOPICS)
        if kind == "math_tex_q":
            return T.math_tex_question(r, topic)
        if kind == "math_tex_lecture":
            return T.math_tex_lecture(r, topic)
        if kind == "math_prose":
            return T.math_prose(r, topic)
        if kind == "zh_math":
            return T.zh_math(r, topic)
        if kind == "zh_math_prose":
            return T.zh_math(r, topic, prose=True)
        if kind == "zh_news":
            return T.zh_nonmath(r)
        if kind in ("finance", "sports", "recipe", "timetable", "science", "science_eq", "education"):
            return getattr(T, kind)(r)
        if kind == "code":
            return T.code_doc(r)
        if kind in T.GENERAL_SENT:
            return T.general(r, kind)
        if kind == "profile":
            return T.user_profile(r, MATH_TAGS if site.category == "mixed-math" else
                                  codetext.CODE_TAGS if site.category in CODE_CATEGORIES else OTHER_TAGS)
        if kind == "tags":
            return T.tag_page(r, codetext.CODE_TAGS if site.category in CODE_CATEGORIES else MATH_TAGS)
        if kind == "help":
            return T.help_page(r)
        if kind == "dept_news":
            return T.dept_news(r)
        if kind == "book_review":
            return T.book_review(r, topic)
        if kind in codetext.DOCS:                  # the code sites' pages
            return codetext.DOCS[kind](r)
        raise ValueError(f"unknown document kind {kind!r}")

    def _related(self, site: Site) -> list[str]:
        r = self.r
        if site.category in ("mixed-math", "math-only", "mirror"):
            return [f"{r.choice(['How to show the', 'Intuition behind the', 'Is the', 'Proof of the'])} "
                    f"{r.choice(T.TOPIC_WORDS[r.choice(TOPICS)])}{r.choice(['?', ' claim', ' exercise', ''])}"
                    for _ in range(r.randint(3, 6))]
        if site.category in CODE_CATEGORIES:
            return codetext.related(r)
        return [f"{r.choice(['Top', 'Why', 'New', 'Guide:', 'Best'])} {r.choice(T.CITIES)} "
                f"{r.choice(['picks', 'update', 'story', 'notes', 'results'])}" for _ in range(r.randint(3, 6))]

    def _render(self, e: dict, *, site: Optional[Site] = None, skin: Optional[int] = None, views: Optional[int] = None,
                charset: str = "utf-8") -> str:
        site = site or e["site"]
        return render_page(site=site, doc=e["doc"], url_path=e["path"], skin=e["skin"] if skin is None else skin,
                           markup=e["markup"], related=e["related"], date=e["date"], author=e["author"],
                           views=e["views"] if views is None else views, lang=site.lang, charset=charset)

    def _new_entry(self, i: int, site: Optional[Site] = None) -> dict:
        r = self.r
        site = site or _weighted(r, self.sites, self.site_w)
        sec = _weighted(r, list(site.sections), [s.weight for s in site.sections])
        kinds = list(sec.kinds)
        kw = [sec.kinds[k] * (self.mix.prose_factor if k in PROSE_MATH_KINDS else 1.0) for k in kinds]
        kind = _weighted(r, kinds, kw)
        doc = self._make_doc(site, kind)
        ident = 1000 + i * 3 + r.randint(0, 2)
        day = self.t
        slug = _slugify(doc["title"], ident) if doc.get("lang") != "zh" else f"{ident}"
        pat = sec.url
        if "{id}" not in pat and doc.get("lang") == "zh":
            slug = f"p{ident}"
        wslug = "_".join(w.capitalize() for w in slug.split("-"))
        path = pat.format(prefix=sec.prefix, id=ident, slug=slug, Slug=wslug, year=day.year, month=f"{day.month:02d}")
        markup = None
        if doc.get("math_segments", 0) > 0:
            markup = _weighted(r, list(site.markup), list(site.markup.values()))
        return {"site": site, "section": sec, "kind": kind, "doc": doc, "url": f"https://{site.host}{path}",
                "path": path, "label": label_of(kind), "skin": r.randint(0, 3), "markup": markup,
                "related": self._related(site), "date": day.strftime("%Y-%m-%d"), "author": T.name(r),
                "views": r.randint(3, 90000), "used": False}

    def _note_page(self, e: dict, url: str, host: str, prefix: str) -> None:
        self.kinds[e["kind"]] += 1
        if e["markup"]:
            self.markups[e["markup"]] += 1
        if e["label"] == "math":
            self.c["math_prose" if e["kind"] in PROSE_MATH_KINDS else "math_markup"] += 1
        if e["doc"].get("lang") == "zh":
            self.c["zh_math" if e["label"] == "math" else "zh_non_math"] += 1

    # ------------------------------------------------------------ phenomena
    def _normal(self, i: int, truncate: bool = False, site: Optional[Site] = None) -> None:
        e = self._new_entry(i, site)
        if not truncate:
            self.bench.maybe_plant(e)
        html = self._render(e)
        e["html"] = html
        self._emit(e["url"], "200 OK", "text/html; charset=utf-8", html.encode("utf-8"), truncate=truncate)
        self._label(e["url"], e["label"], e["site"].host, e["section"].prefix, e["kind"])
        self._note_page(e, e["url"], e["site"].host, e["section"].prefix)
        self.c["html_pages"] += 1
        if truncate:
            self.truncated = {"file": self.files[-1]["file"], "url": e["url"]}
            self.c["truncated"] += 1
        else:
            self.recent.append(e)

    def _pick_recent(self, unused: bool = False) -> Optional[dict]:
        pool = [e for e in self.recent if not (unused and e["used"])]
        return self.r.choice(pool) if pool else None

    def _recrawl(self, i: int) -> bool:
        e = self._pick_recent(unused=True)
        if e is None:
            return False
        e["used"] = True
        e2 = dict(e)
        doc = copy.deepcopy(e["doc"])
        doc["blocks"].append(("p", [f"Edited {self.r.randint(2, 23)} hours ago: fixed a typo and added a link."]))
        e2["doc"] = doc
        html = self._render(e2, views=e["views"] + self.r.randint(5, 500))
        self._emit(e["url"], "200 OK", "text/html; charset=utf-8", html.encode("utf-8"))
        self.c["recrawl"] += 1
        return True

    def _exact_dup(self, i: int) -> bool:
        e = self._pick_recent()
        if e is None:
            return False
        style = self.r.randint(0, 2)
        if style == 0:
            url = f"{e['url']}?utm_source=feed&utm_medium=rss&ref={i}"
        elif style == 1:
            url = f"https://{e['site'].host}/amp/{i}{e['path']}"
        else:
            url = f"https://{MIRROR.host}/copy/{i}{e['path']}"
        self._emit(url, "200 OK", "text/html; charset=utf-8", e["html"].encode("utf-8"))
        host = url.split("/")[2]
        prefix = "/" + url.split("/")[3] + "/" if host != e["site"].host or style == 1 else e["section"].prefix
        self._label(url, e["label"], host, prefix, e["kind"])
        self._note_page(e, url, host, prefix)
        self.c["exact_dup"] += 1
        return True

    def _near_dup(self, i: int) -> bool:
        e = self._pick_recent()
        if e is None:
            return False
        if self.r.random() < 0.5:
            # same body, different boilerplate: the mirror (maths Q&A) or a print view on the same host
            if e["site"].category == "mixed-math":
                site, path = MIRROR, f"/q/{i}/{_slugify(e['doc']['title'], i)}"
            else:
                site, path = e["site"], f"{e['path']}?print={i}"
            e2 = dict(e, site=site, path=path, related=self._related(site), skin=(e["skin"] + 1) % 4)
            html = self._render(e2, site=site)
            url = f"https://{site.host}{path}"
            prefix = "/q/" if site is MIRROR else e["section"].prefix
            self.c["near_dup_boilerplate"] += 1
        else:
            doc = copy.deepcopy(e["doc"])
            changed = f"Update {self.r.randint(1, 99)}: {self.r.choice(['a reader pointed out a slip', 'the wording was clarified', 'a link was added', 'the date was corrected'])}."
            for bi, b in enumerate(doc["blocks"]):
                if b[0] == "p" and b[1] and isinstance(b[1][-1], str):
                    doc["blocks"][bi] = ("p", b[1][:-1] + [b[1][-1] + " " + changed])
                    break
            else:
                doc["blocks"].append(("p", [changed]))
            path = re.sub(r"(\d+)", lambda m: str(int(m.group(1)) + 1), e["path"], count=0)
            path = f"{path}{'&' if '?' in path else '?'}rev={i}"
            e2 = dict(e, doc=doc, path=path)
            html = self._render(e2)
            url = f"https://{e['site'].host}{path}"
            prefix = e["section"].prefix
            self.c["near_dup_sentence"] += 1
        self._emit(url, "200 OK", "text/html; charset=utf-8", html.encode("utf-8"))
        self._label(url, e["label"], url.split("/")[2], prefix, e["kind"])
        self._note_page(e, url, url.split("/")[2], prefix)
        self.c["near_dup"] += 1
        return True

    def _redirect(self, i: int, code: int) -> bool:
        e = self._pick_recent(unused=True)
        if e is None:
            return False
        e["used"] = True
        if code == 301:
            url = "http://" + e["url"][len("https://"):]
            status = "301 Moved Permanently"
            prefix = e["section"].prefix
        else:
            url = f"https://{e['site'].host}/s/{i}"
            status = "302 Found"
            prefix = "/s/"
        body = (f'<html><head><title>Moved</title></head><body><p>This page has moved to '
                f'<a href="{e["url"]}">{e["url"]}</a>.</p></body></html>').encode()
        self._emit(url, status, "text/html; charset=utf-8", body, extra_http=(f"Location: {e['url']}",))
        # a redirect is labelled like the page it points to
        self._label(url, e["label"], e["site"].host, prefix, e["kind"])
        self.c[f"redirect_{code}"] += 1
        self.c["redirect"] += 1
        return True

    def _non_html(self, i: int, kind: str) -> bool:
        r = self.r
        if kind == "pdf":
            site = next(s for s in self.sites if s.category == "mixed-math") if r.random() < 0.5 else \
                _weighted(r, self.sites, self.site_w)
            mathy = site.category in ("mixed-math", "math-only")
            prefix = site.sections[0].prefix
            url = f"https://{site.host}{prefix}files/{'lecture' if mathy else 'report'}-{i}.pdf"
            text = (f"Lecture {i}: {r.choice(T.TOPIC_WORDS[r.choice(TOPICS)])}" if mathy else f"Annual report {i}")
            stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
            payload = (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
                       b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
                       b"3 0 obj\n<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>\nendobj\n"
                       + f"4 0 obj\n<< /Length {len(stream)} >>\nstream\n".encode() + stream +
                       b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
            ctype, label = "application/pdf", ("math" if mathy else "non-math")
        elif kind == "json":
            site = _weighted(r, self.sites, self.site_w)
            prefix = "/api/"
            url = f"https://{site.host}/api/v1/items/{i}.json"
            payload = json.dumps({"id": i, "score": r.randint(0, 500), "tags": r.sample(OTHER_TAGS, 2),
                                  "updated": self.t.strftime("%Y-%m-%d")}).encode()
            ctype, label = "application/json", "non-math"
        else:
            site = _weighted(r, self.sites, self.site_w)
            prefix = "/images/"
            url = f"https://{site.host}/images/{i}.png"
            payload = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(r.getrandbits(8) for _ in range(200))
            ctype, label = "image/png", "non-math"
        self._emit(url, "200 OK", ctype, payload)
        self._label(url, label, site.host, prefix, f"non_html_{kind}")
        self.c[f"non_html_{kind}"] += 1
        self.c["non_html"] += 1
        return True

    def _non_utf8(self, i: int, which: str) -> bool:
        zh = which == "gbk"
        cands = [s for s in self.sites if (s.lang == "zh") == zh]
        site = self.r.choice(cands)
        e = self._new_entry(i, site)
        cs = "gbk" if zh else "windows-1252"
        extra = "编辑：王小明，责任编辑：李华。" if zh else "Café crème — naïve déjà vu, “quoted” price 5 € – ½ off."
        e["doc"]["blocks"].append(("p", [extra]))
        html = self._render(e, charset=cs)
        payload = html.encode(cs, errors="xmlcharrefreplace")
        self._emit(e["url"], "200 OK", f"text/html; charset={cs}", payload)
        self._label(e["url"], e["label"], site.host, e["section"].prefix, e["kind"])
        self._note_page(e, e["url"], site.host, e["section"].prefix)
        self.c[f"non_utf8_{cs}"] += 1
        self.c["non_utf8"] += 1
        self.c["html_pages"] += 1
        return True

    # ------------------------------------------------------------ main loop
    def _plan_forced(self) -> dict:
        forced = ["recrawl", "recrawl", "exact_dup", "exact_dup", "near_dup", "near_dup", "near_dup", "near_dup",
                  "redirect_301", "redirect_302", "pdf", "json", "image", "non_utf8_latin", "non_utf8_gbk"]
        lo, hi = 20, min(self.n - 1, 20 + 20 * len(forced))
        if not self.mix.forced_phenomena or hi - lo < len(forced):
            return {}
        slots = self.r.sample(range(lo, hi), len(forced))
        return dict(zip(slots, forced))

    def _do(self, i: int, what: str) -> bool:
        if what == "recrawl":
            return self._recrawl(i)
        if what == "exact_dup":
            return self._exact_dup(i)
        if what == "near_dup":
            return self._near_dup(i)
        if what in ("redirect_301", "redirect_302"):
            return self._redirect(i, int(what[-3:]))
        if what in ("pdf", "json", "image"):
            return self._non_html(i, what)
        if what == "non_utf8_latin":
            return self._non_utf8(i, "latin")
        if what == "non_utf8_gbk":
            return self._non_utf8(i, "gbk")
        return False

    def _random_phenomenon(self) -> Optional[str]:
        m, x = self.mix, self.r.random()
        table = [(m.recrawl_rate, "recrawl"), (m.exact_dup_rate, "exact_dup"), (m.near_dup_rate, "near_dup"),
                 (m.redirect_rate / 2, "redirect_301"), (m.redirect_rate / 2, "redirect_302"),
                 (m.non_html_rate / 3, "pdf"), (m.non_html_rate / 3, "json"), (m.non_html_rate / 3, "image"),
                 (m.non_utf8_rate * 0.6, "non_utf8_latin"), (m.non_utf8_rate * 0.4, "non_utf8_gbk")]
        for p, what in table:
            if x < p:
                return what
            x -= p
        return None

    def run(self) -> dict:
        (self.out / "warc").mkdir(parents=True, exist_ok=True)
        forced = self._plan_forced()
        trunc_slot = min(self.n, self.per_file) - 1
        with open(self.out / "labels.jsonl", "w", encoding="utf-8", newline="\n") as lf, contextlib.ExitStack() as st:
            self.labels_f = lf
            for dom in self.label_domains:
                self.domain_files[dom] = st.enter_context(
                    open(self.out / LABEL_DOMAINS[dom][0], "w", encoding="utf-8", newline="\n"))
            for i in range(self.n):
                if i % self.per_file == 0:
                    self._open_file(i // self.per_file)
                if i == trunc_slot:
                    site = next(s for s in self.sites if s.category == "non-math")
                    self._normal(i, truncate=True, site=site)
                    continue
                what = forced.get(i) or (self._random_phenomenon() if i >= 10 else None)
                if what and self._do(i, what):
                    continue
                self._normal(i)
            if self.wf is not None:
                self._close_file()
        self.domain_files = {}
        self.bench.write(self.out)
        return self._manifest()

    def _manifest(self) -> dict:
        hosts = {}
        for h, c in sorted(self.hosts.items()):
            site = next((s for s in list(self.sites) + [MIRROR] if s.host == h), None)
            hosts[h] = {"category": site.category if site else "unknown", "urls": c["urls"],
                        "math": c["math"], "non-math": c["non-math"], "ambiguous": c["ambiguous"],
                        "prefixes": {p: {"math": pc["math"], "non-math": pc["non-math"], "ambiguous": pc["ambiguous"]}
                                     for p, pc in sorted(self.prefixes[h].items())}}
        mixed = {h: v for h, v in hosts.items() if v["category"] == "mixed-math"}
        c = self.c
        m = {
            "generator": SOFTWARE, "pages": self.n, "random_seed": self.random_seed,
            "responses": c["responses"], "labels": c["labels"],
            "label_counts": {k: c[f"label_{k}"] for k in ("math", "non-math", "ambiguous")},
            "hosts": hosts, "n_hosts": len(hosts),
            "mixed_math_hosts": sorted(mixed),
            "maths_prefixes": {h: sorted(p for p, pc in v["prefixes"].items() if pc["math"] > pc["non-math"])
                               for h, v in mixed.items()},
            "kinds": dict(sorted(self.kinds.items())),
            "math_markup": dict(sorted(self.markups.items())),
            "phenomena": {k: c[k] for k in (
                "math_markup", "math_prose", "zh_math", "zh_non_math", "html_pages", "recrawl", "exact_dup", "near_dup",
                "near_dup_boilerplate", "near_dup_sentence", "redirect", "redirect_301", "redirect_302", "non_html",
                "non_html_pdf", "non_html_json", "non_html_image", "non_utf8", "non_utf8_windows-1252",
                "non_utf8_gbk", "truncated", "angle_bracket_uri")},
            "truncated": self.truncated,
            "files": self.files,
            "benchmarks": self.bench.manifest(),
            "mix": {k: v for k, v in vars(self.mix).items() if k != "sites"},
        }
        if self.code_sites:             # absent without --code-sites: the default manifest is unchanged
            m["code_sites"] = self.code_sites
        if self.label_domains:          # absent without --label-domain: the default manifest is unchanged
            m["label_domains"] = {d: self._domain_manifest(d) for d in self.label_domains}
        return m

    def _domain_manifest(self, dom: str) -> dict:
        fname, _, labels = LABEL_DOMAINS[dom]
        pos = labels[0]
        hosts = {}
        for h, prefs in sorted(self.domain_prefixes[dom].items()):
            tot = Counter()
            for pc in prefs.values():
                tot.update(pc)
            hosts[h] = {**{lab: tot[lab] for lab in labels},
                        "prefixes": {p: {lab: pc[lab] for lab in labels} for p, pc in sorted(prefs.items())}}
        return {"file": fname, "label_counts": {lab: self.domain_counts[dom][lab] for lab in labels},
                "hosts": hosts,
                f"{pos}_hosts": sorted(h for h, v in hosts.items() if v[pos] > 0),
                f"{pos}_prefixes": {h: sorted(p for p, pc in v["prefixes"].items() if pc[pos] > 0 and pc[pos] >= pc[labels[1]])
                                    for h, v in hosts.items() if v[pos] > 0}}


def generate(out_dir, pages: int = 3000, random_seed: int = 1, mix: Optional[MixConfig] = None,
             label_domains=(), code_sites: bool = False) -> dict:
    """Write ``out_dir/warc/*.warc.gz``, ``out_dir/labels.jsonl`` and ``out_dir/manifest.json``; return the manifest.

    Same arguments give byte-identical files.  ``pages`` is the number of response records.
    ``label_domains`` (e.g. ``("code",)``, see :data:`sites.LABEL_DOMAINS`) also writes
    ``out_dir/labels_<domain>.jsonl`` for the same URLs (and a ``label_domains`` manifest entry);
    the WARCs and ``labels.jsonl`` do not depend on it.
    ``code_sites`` adds the hosts of :data:`sites.CODE_SITES` (a programming Q&A site, a developer
    blog, a technology magazine: only some of their path prefixes hold programming pages) to the
    crawl, a different crawl meant to be labelled with ``label_domains=("code",)``; their pages are
    ``non-math`` in ``labels.jsonl``.  Without it the files are those of a generator that has no
    code sites (the manifest gains ``code_sites`` only with it).
    """
    if pages < 1:
        raise ValueError("pages must be >= 1")
    unknown = sorted(set(label_domains) - set(LABEL_DOMAINS))
    if unknown:
        raise ValueError(f"unknown label domain(s) {unknown}; known: {sorted(LABEL_DOMAINS)}")
    label_domains = tuple(d for d in LABEL_DOMAINS if d in set(label_domains))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for old in (out / "warc").glob("minicrawl-*.warc.gz") if (out / "warc").is_dir() else ():
        os.remove(old)
    for dom, (fname, _, _) in LABEL_DOMAINS.items():     # a stale labels file of an earlier run would mislead
        if dom not in label_domains and (out / fname).exists():
            os.remove(out / fname)
    manifest = _Gen(out, pages, random_seed, mix or MixConfig(), label_domains, code_sites).run()
    with open(out / "manifest.json", "w", encoding="utf-8", newline="\n") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return manifest
