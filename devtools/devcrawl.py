"""A development crawl of real content: real pages under their real URLs, labeled, as WARCs.

    python -m devtools.devcrawl --data DATA_DIR --out OUT [--trafilatura-every N] [--label-domain code]

``DATA_DIR`` is a copy of the project's test data collection (its ``html/``,
``labeled/`` and ``text/seed_sources/`` folders); nothing in the product needs it.
Writes ``OUT/warc/devcrawl-NNNNN.warc.gz`` (warcinfo + response records, written
with warcio), ``OUT/labels.jsonl`` (``{"url", "label", "site"}`` per response) and
``OUT/manifest.json`` (counts per site and label).  Same inputs, same bytes.

What it holds (the numbers are for the collection this was built against):

* **maths sources rendered the way their sites serve them** - every maths source
  document (``text/seed_sources/math_docs.jsonl``) that is *not* in the starter seed:
  OpenStax Calculus Volume 3 and OI Wiki's number-theory folder (held out of the
  seed by ``seeds/build_seed.py`` through :data:`SEED_HOLDOUT`), the offconvex.org
  blog (posts under ``/YYYY/MM/DD/`` archive folders) and the pages the seed build
  drops.  The markup is rendered (``seeds.render_markup``) and served as HTML with
  MathJax: ``\\(...\\)`` inline on openstax.org, ``$...$`` elsewhere, inside each
  site's navigation and footer;
* **a mixed site**: oi-wiki.org's non-maths folders (``/lang/``, ``/tools/``) beside its
  held-out maths folder;
* **number-heavy non-maths** (``nonmath_docs.jsonl``: Wikipedia table pages, recipes,
  Python PEPs, changelogs) rendered to HTML;
* **real HTML pages** with their real URLs and labels (``labeled/pages_labeled.jsonl``:
  the llm-webkit and article-extraction benchmarks whole, and of the ~950 mostly German
  trafilatura benchmark pages its maths and hard-negative pages and every
  ``trafilatura_every``-th other page).

* **web-register maths and web non-maths** (``text/web_sources/``): the English maths sites
  the starter seed does not hold (cp-algorithms.com under its real URLs, with code beside
  the maths; Oscar Levin's discrete-maths book as **a whole-maths site of numbered pages**,
  ``https://dmoi.example.org/<N>/``, the shape of a problem site filed by id); the
  offconvex.org blog gets **a minority of non-maths posts** (nodejs.org blog posts under
  offconvex-style date folders); **Chinese non-maths sites** (TiDB's documentation and
  release notes under docs.pingcap.com); English number-heavy non-maths (nodejs.org release
  notes, England league tables under ``https://football.example.org/...``).  A page whose
  URL was made up for the crawl is labelled ``"synthetic_url": true``.

No page of the starter seed is in it: a source document is left out when its URL or
the start of its rendered text is in the seed (checked against the seed file itself), and a
site the seed draws from is left out whole.
Labels are ``math``, ``non-math`` or ``ambiguous`` (ambiguous pages are in the crawl but
out of the metrics).

``--label-domain code`` labels the same pages a second way, for the code profile: it also writes
``OUT/labels_code.jsonl`` (``{"url", "label", "site", "source", "rule"}``, labels ``code``, ``non-code``
or ``ambiguous``) and a ``label_domains`` entry in the manifest, and leaves the WARCs, ``labels.jsonl``
and the rest of the manifest byte-identical.  The rules go by source (:func:`code_labeler`): programming
tutorials, Q&A and language/library documentation (the llm-webkit benchmark's code pages,
:data:`REAL_CODE_LABELS`, OI Wiki's C++ pages, PEPs, TiDB's SQL reference and developer guide) are
``code``; pages that only mention software (release notes, release schedules, news, changelogs) and
maths pages are ``non-code``; tooling and operations docs, cp-algorithms.com's algorithm articles and
feature announcements are ``ambiguous``.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import re
import sys
import uuid
from html import escape
from typing import Iterator, Optional
from urllib.parse import urlparse

from corpus_pipeline.errors import UsageError
from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.runfolder import RunFolder
from corpus_pipeline.seeds import background_path, default_seed_path, render_markup

# Source documents held out of the starter seed so that the development crawl has maths of the
# seed's own kind that the first classifier has not seen: one lecture-notes book (English) and
# one folder of a mixed site (Chinese).  seeds/build_seed.py reads this tuple.
SEED_HOLDOUT = (("openstax.org", "/books/calculus-volume-3/"), ("oi-wiki.org", "/math/number-theory/"))

RECORDS_PER_FILE = 250
WARC_DATE = "2024-05-20T00:00:00Z"
_NS = uuid.UUID("8b7f3a1e-4c1d-4d2e-9a57-2a8e0d5c6b11")


def held_out_of_seed(domain: str, path: str) -> bool:
    """True for a source document the starter seed leaves out for the development crawl."""
    return any(domain == d and (path or "").startswith(p) for d, p in SEED_HOLDOUT)


# ---------------------------------------------------------------- rendering
_SITES = {
    "openstax.org": ("OpenStax", ["Subjects", "Library", "Calculus Volume 3", "Log in"], "paren"),
    "oi-wiki.org": ("OI Wiki", ["入门", "语言基础", "算法基础", "数学", "工具软件"], "dollar"),
    "www.offconvex.org": ("Off the convex path", ["Home", "About", "Archive", "Contribute"], "dollar"),
    "datawhalechina.github.io": ("南瓜书 PumpkinBook", ["目录", "GitHub"], "dollar"),
    "cp-algorithms.com": ("Algorithms for Competitive Programming", ["Home", "Algebra", "Graphs", "Geometry"],
                          "paren"),
    "dmoi.example.org": ("Discrete Mathematics: An Open Introduction", ["Contents", "Index", "Exercises"], "paren"),
    "docs.pingcap.com": ("TiDB 文档", ["文档", "发布说明", "博客", "GitHub"], "dollar"),
    "nodejs.org": ("Node.js", ["Download", "Docs", "Blog", "About"], "dollar"),
    "football.example.org": ("English football tables", ["Seasons", "Clubs", "About"], "dollar"),
    "problems.example.org": ("Problem archive", ["Problems", "Topics", "Random", "Login"], "dollar"),
}
# every text of web_sources/ becomes a page (non-maths pages of the big sites: every EVERY-th)
WEB_EVERY = {"docs.pingcap.com": 2, "nodejs.org": 2, "football.example.org": 2, "statproofbook.github.io": 3}
# a problem site: MATH train problems (MIT licence), one a page (the problem alone) under a numbered URL,
# every PROBLEMS_EVERY-th: short pages the first classifier partly misses (about one in five)
PROBLEM_SITE = "problems.example.org"
PROBLEMS_EVERY = 12
BLOG_NONMATH = 9          # nodejs.org blog posts filed into offconvex.org's date folders (non-maths minority)
_MATHJAX = ('<script>window.MathJax = {tex: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]]}};</script>\n'
            '<script async src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>')
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]{1,400}?)(?<![\\$])\$(?!\$)")
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)


def _paren_delimiters(text: str) -> str:
    """``$$x$$`` -> ``\\[x\\]`` and ``$x$`` -> ``\\(x\\)`` (how MathJax sites such as OpenStax serve TeX)."""
    text = _DISPLAY.sub(lambda m: "\\[" + m.group(1) + "\\]", text)
    return _INLINE.sub(lambda m: "\\(" + m.group(1) + "\\)", text)


def _blocks_html(text: str) -> str:
    out = []
    for block in re.split(r"\n\s*\n", text):
        b = block.strip()
        if not b:
            continue
        if len(b) < 90 and "\n" not in b and not b.endswith((".", "。", ":", "：")) and "$" not in b:
            out.append(f"<h2>{escape(b, quote=False)}</h2>")
        else:
            out.append("<p>" + escape(b, quote=False).replace("\n", "<br>\n") + "</p>")
    return "\n".join(out)


def page_html(site: str, title: str, body_html: str, maths: bool, lang: str = "en") -> str:
    """A page of ``site``: head, navigation, article, footer (the boilerplate trafilatura drops)."""
    name, nav, _ = _SITES.get(site, (site, ["Home", "About", "Contact"], "dollar"))
    links = "".join(f'<li><a href="/{escape(n.lower())}/">{escape(n)}</a></li>' for n in nav)
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            f"<title>{escape(title)} - {escape(name)}</title>\n{_MATHJAX if maths else ''}</head>\n"
            f'<body><header><a class="brand" href="/">{escape(name)}</a><nav><ul>{links}</ul></nav></header>\n'
            f"<main><article><h1>{escape(title)}</h1>\n{body_html}\n</article></main>\n"
            f'<footer><p>&copy; {escape(name)}. <a href="/privacy/">Privacy</a> · <a href="/terms/">Terms</a>'
            f"</p></footer></body></html>\n")


def render_source(rec: dict) -> str:
    """A source document (``math_docs``/``nonmath_docs`` record) as its site would serve it."""

    fmt = (rec.get("format") or "text").lower()
    site = rec["domain"]
    lang = rec.get("lang") or "en"
    if fmt == "html":                      # already a page fragment (Wikipedia's action=render)
        return page_html(site, rec.get("title") or "", rec["text"], False, lang)
    text = render_markup(rec["text"], fmt)
    maths = rec.get("label") == "math"
    if maths and _SITES.get(site, ("", [], "dollar"))[2] == "paren":
        text = _paren_delimiters(text)
    if fmt == "text" and not maths:          # PEPs, changelogs: preformatted blocks as their sites show
        body = "<pre>" + escape(text, quote=False) + "</pre>"
    else:
        body = _blocks_html(text)
    return page_html(site, rec.get("title") or "", body, maths, lang)


# ---------------------------------------------------------------- collection
def _jsonl(path: str) -> list[dict]:
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _seed_keys(seed_path: str) -> tuple[set, set]:
    urls, starts = set(), set()
    for r in _jsonl(seed_path):
        urls.add(r.get("url"))
        starts.add(_start(r.get("text") or ""))
    return urls, starts


def _seed_sites(seed_path: str) -> set:
    """Source repositories (or domains) the starter seed draws from: left out of the crawl whole."""
    out = set()
    for r in _jsonl(seed_path):
        out.add(r.get("source_repo") or r.get("domain"))
    return out


def _numbered(path: str) -> int:
    """A stable page number for a made-up numbered URL (3-4 digits, like a problem id)."""
    return 100 + int(hashlib.sha1(path.encode("utf-8")).hexdigest()[:8], 16) % 9900


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (text or "").lower()).strip("-")[:60] or "post"


def _web_pages(data_dir: str, seed_sites: set, seed_urls: set) -> Iterator[dict]:
    """Pages from ``text/web_sources/`` (module docstring), in a fixed order."""

    web = os.path.join(data_dir, "text", "web_sources")
    if not os.path.isdir(web):
        return
    maths = sorted(_jsonl(os.path.join(web, "math_web_en.jsonl.gz")), key=lambda r: r["url"])
    counters: dict = {}
    for r in maths:
        if r["source"] in seed_sites or r["url"] in seed_urls:
            continue
        counters[r["domain"]] = counters.get(r["domain"], 0) + 1
        if (counters[r["domain"]] - 1) % WEB_EVERY.get(r["domain"], 1):
            continue
        text = render_markup(r["text"], r["format"])
        if len(text) < 300:
            continue
        rec = dict(r, text=text, format="text-math")
        if r["source"] == "oscarlevin/discrete-book":
            url, site, synthetic = f"https://dmoi.example.org/{_numbered(r['path'])}/", "dmoi.example.org", True
        elif r["url"].startswith("https://github.com/"):
            continue                          # a repository URL is not a page a crawl meets
        else:
            url, site, synthetic = r["url"], r["domain"], False
        rec["domain"] = site
        yield {"url": url, "html": render_source(rec).encode("utf-8"), "label": "math", "site": site,
               "source": "maths_source", "synthetic_url": synthetic}
    hard = sorted(_jsonl(os.path.join(web, "nonmath_hard_en.jsonl.gz")), key=lambda r: r["url"])
    blog = [r for r in hard if r["source"] == "nodejs/nodejs.org" and "/blog/" in r["url"]
            and "release" not in r["url"] and "vulnerability" not in r["url"]][:BLOG_NONMATH]
    dates = ["2016/02/10", "2017/06/21", "2018/01/30", "2018/09/12", "2019/03/05", "2019/11/20", "2020/05/14",
             "2021/02/08", "2021/10/27"]
    for r, d in zip(blog, dates):
        rec = dict(r, domain="www.offconvex.org", text=render_markup(r["text"], r["format"]), format="prose")
        yield {"url": f"https://www.offconvex.org/{d}/{_slug(r['title'])}/",
               "html": render_source(rec).encode("utf-8"), "label": "non-math", "site": "www.offconvex.org",
               "source": "nonmath_source", "synthetic_url": True, "origin_url": r["url"]}
    taken = {r["url"] for r in blog}
    yield from _problem_pages(data_dir)
    zh = sorted(_jsonl(os.path.join(web, "nonmath_web_zh.jsonl.gz")), key=lambda r: r["url"])
    counters = {}
    for r in [x for x in hard if x["url"] not in taken] + zh:
        if r["source"] == "openfootball/england":
            site = "football.example.org"
            url, synthetic = f"https://{site}/england/{r['path'].replace('.txt', '')}/", True
        else:
            site, url, synthetic = r["domain"], r["url"], False
        counters[site] = counters.get(site, 0) + 1
        if (counters[site] - 1) % WEB_EVERY.get(site, 1):
            continue
        rec = dict(r, domain=site)
        yield {"url": url, "html": render_source(rec).encode("utf-8"), "label": r.get("label", "non-math"),
               "site": site, "source": "nonmath_source", "synthetic_url": synthetic}


def _problem_pages(data_dir: str) -> Iterator[dict]:
    """The numbered problem site (module docstring): one MATH train problem a page, maths as TeX (MathJax)."""
    path = os.path.join(data_dir, "text", "positives_math", "math_train_7500_problems_solutions.jsonl.gz")
    if not os.path.exists(path):
        return
    for k, r in enumerate(_jsonl(path)):
        if k % PROBLEMS_EVERY:
            continue
        n = _numbered(r.get("unique_id") or str(k))
        body = (f"<p class=\"crumbs\">{escape(r.get('type') or '')} · {escape(r.get('level') or '')}</p>\n"
                + _blocks_html(r["problem"].strip()))
        html = page_html(PROBLEM_SITE, f"Problem {n}", body, True)
        yield {"url": f"https://{PROBLEM_SITE}/{n}/", "html": html.encode("utf-8"), "label": "math",
               "site": PROBLEM_SITE, "source": "maths_source", "synthetic_url": True}


def _start(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:300]


def collect(data_dir: str, trafilatura_every: int = 2, seed_path: Optional[str] = None) -> Iterator[dict]:
    """The crawl's pages, in a fixed order: ``{"url", "html" (bytes), "label", "site", "source"}`` (for
    :func:`code_labeler` a real HTML page also carries ``data_path``, a post filed under a made-up URL
    ``origin_url``; neither is written)."""

    seed_urls, seed_starts = _seed_keys(seed_path or default_seed_path())
    src = os.path.join(data_dir, "text", "seed_sources")
    seen: set = set()

    def fresh(url: str) -> bool:
        if url in seen:
            return False
        seen.add(url)
        return True

    for name, kind in (("math_docs.jsonl", "maths_source"), ("nonmath_docs.jsonl", "nonmath_source")):
        for r in sorted(_jsonl(os.path.join(src, name)), key=lambda r: r["url"]):
            if r["url"] in seed_urls or not fresh(r["url"]):
                continue
            if kind == "maths_source" and _start(render_markup(r["text"], r["format"])) in seed_starts:
                continue
            yield {"url": r["url"], "html": render_source(r).encode("utf-8"), "label": r.get("label", "math"),
                   "site": r["domain"], "source": kind}
    seed_sites = _seed_sites(seed_path or default_seed_path())
    for lang in ("en", "zh"):                   # no page of the shipped background sets either
        bg = background_path(lang)
        seen.update(r.get("url") for r in (_jsonl(bg) if bg else []))
    for page in _web_pages(data_dir, seed_sites, seed_urls):
        if fresh(page["url"]):
            yield page
    traf = 0
    for r in _jsonl(os.path.join(data_dir, "labeled", "pages_labeled.jsonl")):
        if r.get("label") not in ("math", "non-math", "ambiguous") or not r["url"].startswith(("http://", "https://")):
            continue                                  # a page without a real URL cannot be a crawled page
        if not fresh(r["url"]):
            continue
        if "/trafilatura/" in r["path"] and r["label"] == "non-math" and not r.get("hard_negative"):
            traf += 1
            if trafilatura_every < 1 or traf % trafilatura_every:
                continue
        p = os.path.join(data_dir, r["path"])
        raw = gzip.open(p).read() if r.get("compressed") else open(p, "rb").read()
        yield {"url": r["url"], "html": raw, "label": r["label"],
               "site": r.get("domain") or urlparse(r["url"]).netloc, "source": "labeled_html", "data_path": r["path"]}


# ---------------------------------------------------------------- the code labelling (--label-domain code)
# Programming pages among the benchmarks' "non-maths" pages, labelled from their title and content (the
# upstream labels say maths / non-maths only): "code" for programming tutorials, Q&A and articles about
# code; "ambiguous" (left out of the metrics) for install guides, sysadmin how-tos and release notes that
# show commands but do not teach programming.  Found by listing the pages whose HTML has a code block or
# whose URL names a programming word, and the highest-scoring ones (bench/code_domain.py reads it too).
# The llm-webkit benchmark's own "code" category (Stack Overflow, API docs, tutorials, forums, Chinese
# blogs) is code without being listed here.
REAL_CODE_LABELS = {
    "https://www.caktusgroup.com/blog/2015/06/08/testing-client-side-applications-django-post-mortem/": "code",
    "https://lemire.me/blog/2019/08/02/json-parsing-simdjson-vs-json-for-modern-c/": "code",
    "https://www.toptal.com/python/top-10-mistakes-that-python-programmers-make": "code",
    "https://www.reddit.com/r/Python/comments/1bbbwk/whats_your_opinion_on_what_to_include_in_init_py/": "code",
    "https://flowfx.de/blog/copy-paste-from-tmux-to-system-clipboard/": "code",
    "https://www.schneems.com/2018/10/09/pair-with-me-rubocop-cop-that-detects-duplicate-array-allocations/": "code",
    "https://hackernoon.com/how-to-scrape-google-with-python-bo7d2tal": "code",
    "https://gregoryszorc.com/blog/2020/01/13/mercurial%27s-journey-to-and-reflections-on-python-3/": "code",
    "https://www.pluralsight.com/tech-blog/managing-python-environments/": "code",
    "https://pythonspeed.com/articles/pipenv-docker/": "code",
    "https://strangemachines.io/articles/performant-python": "code",
    "http://fouryears.eu/2019/10/21/interning-of-small-integers-in-python/": "code",
    "https://emacspeak.blogspot.com/2019/10/meta-programming-in-emacs-using.html": "code",
    "https://statisticsglobe.com/change-font-size-of-ggplot2-plot-in-r-axis-text-main-title-legend": "code",
    "https://anarc.at/blog/2020-10-18-cdpath-replacement/": "code",
    "https://www.geeks3d.com/hacklab/20190110/python-3-simple-http-request-with-the-socket-module/": "code",
    "https://github.com/golemfactory/yapapi": "code",
    "https://stackoverflow.blog/2020/01/20/what-is-rust-and-why-is-it-so-popular/": "code",
    "https://docs.docker.com/engine/install/": "ambiguous",
    "http://www.netbits.us/docs/stunnel_rsync.html": "ambiguous",
    "https://it-learner.de/wenn-das-netzwerk-unter-windows-10-sehr-langsam-ist-koennte-das-abschalten-der-autotuning-funktion-abhilfe-schaffen/": "ambiguous",
    "https://www.antary.de/2017/06/29/wireshark-besuchte-urls-anzeigen-http-und-https/": "ambiguous",
    "http://www.jan-grosser.de/art/385_xum1541_dateien_zwischen_linux.html": "ambiguous",
    "https://wiki.python.org/moin/BeginnersGuide/Download": "ambiguous",
    "hard::blog.python.org.html": "ambiguous",
}
CODE_LABELS = ("code", "non-code")
# docs.pingcap.com (TiDB's documentation in Chinese): the SQL language reference and the developer guide
# teach a programming language and its use from applications (code); release notes list versions and
# fixes (non-code); the rest - deployment, operations, tools, monitoring, configuration - shows commands
# and settings but teaches no programming (ambiguous, as the install guides of REAL_CODE_LABELS)
_TIDB_CODE = re.compile(r"^(sql-|dev-guide-|information-schema-|explain-|data-type-|serverless-driver|json-)"
                        r"|functions|^(literal-values|set-operators|group-by-modifier|generated-columns|"
                        r"partitioned-table|window-functions|basic-sql-operations|transaction-isolation-levels|"
                        r"auto-increment|mysql-compatibility|character-set-gbk)$")
_TITLE = re.compile(rb"<title>(.*?)</title>", re.S)


def code_labeler(data_dir: str):
    """``page -> (label, rule)``: the code labelling of a crawl page (``labels_code.jsonl``), by source.

    ======================  ==========  =====================================================================
    rule                    label       pages
    ======================  ==========  =====================================================================
    llm_webkit_code         code        the llm-webkit benchmark's ``code`` category (Stack Overflow, php.net,
                                        PyTorch and R docs, tutorials, forums, Chinese programming blogs)
    hand_labelled           code/amb.   :data:`REAL_CODE_LABELS` (programming articles; install guides and
                                        sysadmin how-tos ambiguous)
    labeled_other           non-code    every other real HTML page (news, blogs, shops, maths pages)
    cp_algorithms           ambiguous   cp-algorithms.com: algorithm articles whose site shows C++
                                        implementations beside the maths (69 of 76 sources have code blocks,
                                        a median 16% of the text); served here without them
    maths                   non-code    every other maths source (OpenStax, OI Wiki number theory,
                                        StatProofBook, offconvex, the discrete-maths book, the problem site)
    oi_wiki_lang            code        oi-wiki.org/lang/: C++ (and Java, Python) language tutorials
    oi_wiki_testlib         code        oi-wiki.org/tools/testlib/ and /tools/special-judge/: writing checker
                                        and generator programs
    oi_wiki_tools           ambiguous   the other /tools/ pages: editors, compilers, judges, git (using tools)
    pep                     code        peps.python.org: Standards Track and Informational PEPs (language and
                                        library design with code)
    pep_release_schedule    non-code    the release-schedule PEPs (dates and version numbers)
    pep_process             ambiguous   Process PEPs (versioning, PyPI hosting policy)
    tidb_sql                code        docs.pingcap.com: SQL reference (statements, functions, data types,
                                        information_schema, EXPLAIN) and the developer guide
    tidb_release_notes      non-code    docs.pingcap.com/.../release-*
    tidb_ops                ambiguous   the other TiDB pages: deployment, operations, tools, monitoring
    nodejs_features         ambiguous   nodejs.org announcements that describe new language and API
                                        features (a V8 update, a release announcement)
    nodejs_news             non-code    nodejs.org release notes (commit lists), security releases, weekly
                                        updates, foundation news (also the posts filed into offconvex.org)
    changelog               non-code    github.com changelogs (version lists)
    other                   non-code    Wikipedia tables, recipes, football tables
    ======================  ==========  =====================================================================

    Labels are set by what a page is, not by whether its code survives: ``render_markup`` drops fenced code
    blocks, so OI Wiki's, TiDB's and cp-algorithms' pages are served without their code (the PEPs and
    changelogs are served as ``<pre>`` text).
    """
    code_paths = set()
    index = os.path.join(data_dir, "html", "llm_webkit_bench", "index.jsonl")
    if os.path.exists(index):
        for x in _jsonl(index):
            if x.get("source_category") == "code":
                code_paths.add("html/llm_webkit_bench/" + x["file"])

    def label(p: dict) -> tuple[str, str]:
        url = p.get("origin_url") or p["url"]
        site, src = urlparse(url).netloc, p["source"]
        path = urlparse(url).path
        if src == "labeled_html":
            if p.get("data_path") in code_paths:
                return "code", "llm_webkit_code"
            if url in REAL_CODE_LABELS:
                return REAL_CODE_LABELS[url], "hand_labelled"
            return "non-code", "labeled_other"
        if src == "maths_source":
            return ("ambiguous", "cp_algorithms") if site == "cp-algorithms.com" else ("non-code", "maths")
        if site == "oi-wiki.org":
            if path.startswith("/lang/"):
                return "code", "oi_wiki_lang"
            if path.startswith(("/tools/testlib/", "/tools/special-judge/")):
                return "code", "oi_wiki_testlib"
            return "ambiguous", "oi_wiki_tools"
        if site == "peps.python.org":
            m = _TITLE.search(p["html"])
            if m and b"Release Schedule" in m.group(1):
                return "non-code", "pep_release_schedule"
            if re.search(rb"^Type:\s*Process\s*$", p["html"], re.M):
                return "ambiguous", "pep_process"
            return "code", "pep"
        if site == "docs.pingcap.com":
            slug = path.rstrip("/").rsplit("/", 1)[-1]
            if slug.startswith("release-"):
                return "non-code", "tidb_release_notes"
            return ("code", "tidb_sql") if _TIDB_CODE.search(slug) else ("ambiguous", "tidb_ops")
        if site == "nodejs.org":
            if "/blog/announcements/" in path and ("update-v8" in path or "release-announce" in path):
                return "ambiguous", "nodejs_features"
            return "non-code", "nodejs_news"
        if site == "github.com":
            return "non-code", "changelog"
        return "non-code", "other"

    return label


# label domain -> (file, labeler factory taking the data folder, labels: positive first)
LABEL_DOMAINS = {"code": ("labels_code.jsonl", code_labeler, CODE_LABELS)}


# ---------------------------------------------------------------- writing
def _record_id(*parts: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(_NS, chr(31).join(parts))}>"


def write(pages: Iterator[dict], out: str, records_per_file: int = RECORDS_PER_FILE,
          labelers: Optional[dict] = None) -> dict:
    """WARCs, labels.jsonl and manifest.json under ``out``; returns the manifest.

    ``labelers`` (``{domain: page -> (label, rule)}``, domains of :data:`LABEL_DOMAINS`) also writes each
    domain's labels file (``labels_code.jsonl``: ``{"url", "label", "site", "source", "rule"}`` in the order
    of ``labels.jsonl``) and a ``label_domains`` manifest entry; everything else is the same bytes."""
    labelers = labelers or {}
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    wdir = os.path.join(out, "warc")
    os.makedirs(wdir, exist_ok=True)
    for f in os.listdir(wdir):                       # a rebuild replaces the old files
        if f.startswith("devcrawl-") and f.endswith(".warc.gz"):
            os.unlink(os.path.join(wdir, f))
    for dom, (fname, _, _) in LABEL_DOMAINS.items():     # a stale labels file of an earlier build would mislead
        if dom not in labelers and os.path.exists(os.path.join(out, fname)):
            os.unlink(os.path.join(out, fname))
    labels, by_site, files = [], {}, []
    dom_labels: dict = {d: [] for d in labelers}
    writer, fh, n_in_file = None, None, 0

    def open_file(k: int):
        name = f"devcrawl-{k:05d}.warc.gz"
        files.append(name)
        f = open(os.path.join(wdir, name), "wb")
        w = WARCWriter(f, gzip=True)
        info = w.create_warcinfo_record(name, {"software": "corpus_pipeline.devcrawl",
                                               "format": "WARC File Format 1.0"})
        info.rec_headers.replace_header("WARC-Record-ID", _record_id("warcinfo", name))
        info.rec_headers.replace_header("WARC-Date", WARC_DATE)
        w.write_record(info)
        return w, f

    for n, p in enumerate(pages):
        if writer is None or n_in_file >= records_per_file:
            if fh is not None:
                fh.close()
            writer, fh = open_file(len(files))
            n_in_file = 0
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"),
                                           ("Content-Length", str(len(p["html"])))], protocol="HTTP/1.1")
        rec = writer.create_warc_record(p["url"], "response", payload=io.BytesIO(p["html"]),
                                        http_headers=http,
                                        warc_headers_dict={"WARC-Record-ID": _record_id("response", p["url"]),
                                                           "WARC-Date": WARC_DATE})
        writer.write_record(rec)
        n_in_file += 1
        lab = {"url": p["url"], "label": p["label"], "site": p["site"], "source": p["source"]}
        if p.get("synthetic_url"):
            lab["synthetic_url"] = True
        labels.append(lab)
        for dom, fn in labelers.items():
            dl, rule = fn(p)
            dom_labels[dom].append({"url": p["url"], "label": dl, "site": p["site"], "source": p["source"],
                                    "rule": rule})
        s = by_site.setdefault(p["site"], {})
        s[p["label"]] = s.get(p["label"], 0) + 1
    if fh is not None:
        fh.close()
    with open(os.path.join(out, "labels.jsonl"), "w", encoding="utf-8") as f:
        for r in labels:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    totals: dict = {}
    for r in labels:
        totals[r["label"]] = totals.get(r["label"], 0) + 1
    manifest = {"pages": len(labels), "labels": totals, "files": files,
                "synthetic_urls": sum(1 for r in labels if r.get("synthetic_url")),
                "sites": dict(sorted(by_site.items())),
                "sources": {k: sum(r["source"] == k for r in labels)
                            for k in ("maths_source", "nonmath_source", "labeled_html")}}
    if labelers:                      # absent without --label-domain: the default manifest is unchanged
        manifest["label_domains"] = {}
        for dom, rows in dom_labels.items():
            fname = LABEL_DOMAINS[dom][0]
            with open(os.path.join(out, fname), "w", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
            manifest["label_domains"][dom] = _domain_manifest(fname, rows)
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return manifest


def _domain_manifest(fname: str, rows: list[dict]) -> dict:
    def count(key: str) -> dict:
        out: dict = {}
        for r in rows:
            c = out.setdefault(r[key], {})
            c[r["label"]] = c.get(r["label"], 0) + 1
        return dict(sorted(out.items()))

    totals: dict = {}
    for r in rows:
        totals[r["label"]] = totals.get(r["label"], 0) + 1
    return {"file": fname, "labels": totals, "rules": count("rule"), "sources": count("source"),
            "sites": count("site")}


def build(data_dir: str, out: str, trafilatura_every: int = 2, label_domains=()) -> dict:
    """The crawl under ``out``; ``label_domains`` (e.g. ``("code",)``) also writes those labellings."""
    unknown = sorted(set(label_domains) - set(LABEL_DOMAINS))
    if unknown:
        raise UsageError(f"unknown label domain(s) {unknown}; known: {sorted(LABEL_DOMAINS)}")
    for need in (os.path.join("text", "seed_sources", "math_docs.jsonl"),
                 os.path.join("labeled", "pages_labeled.jsonl")):
        if not os.path.exists(os.path.join(data_dir, need)):
            raise UsageError(f"--data {data_dir}: {need} not found (expected the test data collection)")
    labelers = {d: LABEL_DOMAINS[d][1](data_dir) for d in LABEL_DOMAINS if d in set(label_domains)}
    return write(collect(data_dir, trafilatura_every), out, labelers=labelers)


def digest(out: str) -> str:
    """sha1 over the crawl's files (to check determinism)."""
    h = hashlib.sha1()
    for name in sorted(os.listdir(os.path.join(out, "warc"))) + ["labels.jsonl"]:
        p = os.path.join(out, "warc", name) if name.endswith(".warc.gz") else os.path.join(out, name)
        h.update(name.encode())
        h.update(open(p, "rb").read())
    return h.hexdigest()


def iteration_table(run_uri: str, spark=None) -> list[dict]:
    """Per iteration of a run folder, from its commit markers: collected pages, overlap, true
    precision / recall (with labels), seed size, pages the path step added to the *next*
    iteration's seed and, with labels, their precision."""

    run = RunView(RunFolder(run_uri, spark))
    out = []
    for i in run.iterations():
        col = run.stage_counts("collected", i)
        if not col:
            continue
        ev = run.stage_counts("eval", i)
        seed = run.stage_counts("seed", i)
        nxt = run.stage_counts("seed", i + 1)
        dom = run.stage_counts("domains", i)
        ann = run.stage_counts("annotations", i)
        out.append({"iteration": i, "collected": col.get("collected_pages"),
                    "overlap": col.get("overlap_with_previous"), "true_precision": ev.get("true_precision"),
                    "true_recall": ev.get("true_recall"), "seed": seed.get("seed_positives"),
                    "flagged": dom.get("flagged_domains"), "marks": ann.get("marked", []),
                    "seed_added_next": nxt.get("seed_added"), "seed_under_marks": nxt.get("seed_under_marks"),
                    "seed_added_math": nxt.get("seed_added_math"),
                    "seed_added_non_math": nxt.get("seed_added_non_math"),
                    "seed_added_precision": nxt.get("seed_added_precision")})
    return out


def format_table(rows: list[dict]) -> str:
    f = lambda x: "–" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))  # noqa: E731
    head = ("| iter | collected | overlap | true P | true R | seed | flagged | marks | +seed (next) "
            "| +seed maths / non-maths | +seed P |")
    lines = [head, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        mn = "–" if r["seed_added_math"] is None else f"{r['seed_added_math']} / {r['seed_added_non_math']}"
        lines.append(f"| {r['iteration']} | {f(r['collected'])} | {f(r['overlap'])} | {f(r['true_precision'])} | "
                     f"{f(r['true_recall'])} | {f(r['seed'])} | {f(r['flagged'])} | {len(r['marks'])} | "
                     f"{f(r['seed_added_next'])} | {mn} | {f(r['seed_added_precision'])} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m devtools.devcrawl", description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="the test data collection (html/, labeled/, text/)")
    ap.add_argument("--out", required=True, help="output folder (warc/, labels.jsonl, manifest.json)")
    ap.add_argument("--trafilatura-every", type=int, default=2, metavar="N",
                    help="keep every N-th ordinary non-maths trafilatura benchmark page (default 2)")
    ap.add_argument("--label-domain", action="append", default=[], choices=sorted(LABEL_DOMAINS), metavar="DOMAIN",
                    help="also label the same pages for DOMAIN (code: OUT/labels_code.jsonl, code / non-code / "
                         "ambiguous by the rules of devcrawl.code_labeler); repeatable")
    a = ap.parse_args(argv)

    try:
        m = build(a.data, a.out, a.trafilatura_every, label_domains=tuple(a.label_domain))
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{m['pages']} pages {m['labels']} -> {a.out}")
    for dom, dm in m.get("label_domains", {}).items():
        print(f"  {dom}: {dm['labels']} -> {os.path.join(a.out, dm['file'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
