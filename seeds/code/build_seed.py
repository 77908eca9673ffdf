"""Rebuild seeds/code/starter_seed.jsonl.gz: a starter seed for the code domain ("programming
tutorials and Q&A") from documentation that Debian ships as packages.

    python seeds/code/build_seed.py [--root DIR] [--out seeds/code]

Without ``--root`` the script fetches the three Debian packages of :data:`PACKAGES` with
``apt-get download`` (Debian's own client; run ``apt-get update`` once first) into a temporary
folder and unpacks only the documentation folders it reads.  With ``--root DIR`` it reads an
already unpacked tree instead (``DIR/usr/share/doc/...``; ``--root /`` for installed packages).
The package versions read are written into every record (``source_package``); the same versions
give the same bytes.

What it takes (see SOURCE.md for the counts and LICENCES.md for the licences):

* Python 3.11 documentation (``python3.11-doc``, PSF-2.0, code examples also 0BSD): every question
  of the FAQ (Q&A register), every second-level section of the tutorial and of the HOWTOs
  (tutorial register), every 6th page of the library reference (API reference register; a
  chapter page's table of contents is dropped, so a page that is only that is left out);
* The Rust Programming Language book (``rust-doc``, MIT OR Apache-2.0): every chapter page;
* Node.js 18 API documentation (``nodejs-doc``, MIT): every module page.

Each piece (a Sphinx ``<section>``, an mdBook ``<main>``, a Node.js ``#apicontent``) is put in a
bare HTML page and run through the project's own bulk extractor
(:func:`corpus_pipeline.extract.extract_html` with ``ingest.extractor``, resiliparse), so the
seed's text has the shape that crawled pages get at scoring time: prose and code blocks as plain lines.  Permalink marks (the Sphinx
pilcrow, Node.js ``#``) and the lines mdBook hides in its examples are dropped first; each text is
cut to at most MAX_CHARS at a line boundary; texts under MIN_CHARS are dropped.
Deterministic: same packages, same bytes.
"""
from __future__ import annotations

import argparse
import copy
import gzip
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from corpus_pipeline.config import Config  # noqa: E402
from corpus_pipeline.extract import Extracted, extract_html  # noqa: E402

MAX_CHARS = 12_000
MIN_CHARS = 300
EXTRACTOR = Config().ingest.extractor    # the bulk extractor the loop's ingest uses for crawled pages
LIBRARY_EVERY = 6            # every 6th page of the Python library reference (sorted by file name)

# Debian package -> (folder inside it, licence, web address the same page is published under)
PACKAGES = {
    "python3.11-doc": ("usr/share/doc/python3.11/html", "PSF-2.0 (code examples also 0BSD)",
                       "https://docs.python.org/3.11/"),
    "rust-doc": ("usr/share/doc/rust-doc/html/book", "MIT OR Apache-2.0",
                 "https://doc.rust-lang.org/{version}/book/"),
    "nodejs-doc": ("usr/share/doc/nodejs/api", "MIT", "https://nodejs.org/docs/v{version}/api/"),
}


# ------------------------------------------------------------------ packages
def fetch(dest: Path) -> dict:
    """``apt-get download`` the packages into ``dest`` and unpack their documentation folders
    into ``dest/root``; returns {package: version}."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=dest, check=True)
    root = dest / "root"
    root.mkdir(exist_ok=True)
    versions = {}
    for deb in sorted(dest.glob("*.deb")):
        pkg = subprocess.run(["dpkg-deb", "-f", str(deb), "Package"], capture_output=True, text=True,
                             check=True).stdout.strip()
        versions[pkg] = subprocess.run(["dpkg-deb", "-f", str(deb), "Version"], capture_output=True, text=True,
                                       check=True).stdout.strip()
        folder = PACKAGES[pkg][0]
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(root), "--wildcards", f"./{folder}/*",
                        f"./usr/share/doc/{pkg}/copyright"], stdin=tar.stdout, check=True)
        tar.stdout.close()
        if tar.wait() != 0:
            raise RuntimeError(f"dpkg-deb failed on {deb}")
    versions["_root"] = str(root)
    return versions


def installed_versions(root: Path) -> dict:
    """Versions of the packages as dpkg recorded them under ``root`` (for ``--root``)."""
    out = {}
    status = root / "var/lib/dpkg/status"
    if status.exists():
        for block in status.read_text(encoding="utf-8", errors="replace").split("\n\n"):
            m = re.search(r"^Package: (\S+)$", block, re.M)
            v = re.search(r"^Version: (\S+)$", block, re.M)
            if m and v and m.group(1) in PACKAGES:
                out[m.group(1)] = v.group(1)
    return out


# ------------------------------------------------------------------ html -> text
def _lh():
    from lxml import html as lh
    return lh


def _parse(path: Path):
    return _lh().fromstring(path.read_bytes())


def _drop(el, xpath: str) -> None:
    for x in el.xpath(xpath):
        parent = x.getparent()
        if parent is None:
            continue
        if x.tail:                        # keep the text that follows the dropped element
            prev = x.getprevious()
            if prev is not None:
                prev.tail = (prev.tail or "") + x.tail
            else:
                parent.text = (parent.text or "") + x.tail
        parent.remove(x)


def _text(fragment, title: str, url: str) -> str:
    """The fragment's main text as the project's extractor gives it ('' when it finds none)."""
    lh = _lh()
    page = (f"<html><head><meta charset=\"utf-8\"><title>{_esc(title)}</title></head><body><main>"
            + lh.tostring(fragment, encoding="unicode") + "</main></body></html>")
    e = extract_html(page, url, timeout_s=None, extractor=EXTRACTOR)
    return e.text.strip() if isinstance(e, Extracted) else ""


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _heading(sec) -> str:
    h = sec.xpath("./*[self::h1 or self::h2 or self::h3 or self::h4][1]") or sec.xpath("(.//h1 | .//h2)[1]")
    return re.sub(r"\s+", " ", h[0].text_content()).strip().rstrip("¶").strip() if h else ""


def cut(text: str, limit: int = MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    at = head.rfind("\n")
    return head[:at] if at > limit // 2 else head


# ------------------------------------------------------------------ sources
def python_docs(base: Path, version: str, pkg: str = "python3.11-doc") -> list[dict]:
    _, licence, web = PACKAGES[pkg]
    out = []

    def add(piece, page_title, rel, anchor, register):
        title = f"{_heading(piece) or page_title}"
        url = f"{web}{rel}" + (f"#{anchor}" if anchor else "")
        text = cut(_text(piece, title, url))
        if len(text) >= MIN_CHARS:
            out.append(_record(url, title, pkg, version, f"{PACKAGES[pkg][0]}/{rel}", licence, register, text))

    def page(rel):
        doc = _parse(base / rel)
        _drop(doc, "//a[contains(concat(' ', @class, ' '), ' headerlink ')]")
        body = doc.xpath("//div[@role='main']//section[1]") or doc.xpath("//section[1]")
        return doc, body[0]

    for rel in sorted(str(p.relative_to(base)) for p in (base / "faq").glob("*.html")):
        if rel.endswith("index.html"):
            continue
        _, top = page(rel)
        for sec in top.iter("section"):       # the questions: sections with no sub-sections
            if not sec.xpath(".//section") and sec is not top:
                add(sec, _heading(top), rel, sec.get("id"), "faq")
    for folder in ("tutorial", "howto"):
        for rel in sorted(str(p.relative_to(base)) for p in (base / folder).glob("*.html")):
            if rel.endswith("index.html"):
                continue
            _, top = page(rel)
            subs = top.xpath("./section")
            intro = copy.deepcopy(top)
            _drop(intro, "./section")
            add(intro, _heading(top), rel, None, folder)
            for sec in subs:
                add(sec, _heading(top), rel, sec.get("id"), folder)
    lib = sorted(str(p.relative_to(base)) for p in (base / "library").glob("*.html"))
    for k, rel in enumerate(lib):
        if k % LIBRARY_EVERY or rel.endswith("index.html"):
            continue
        _, top = page(rel)
        _drop(top, ".//div[contains(concat(' ', @class, ' '), ' toctree-wrapper ')]")   # chapter tables of contents
        add(top, _heading(top), rel, None, "reference")
    return out


def rust_book(base: Path, version: str, pkg: str = "rust-doc") -> list[dict]:
    _, licence, web = PACKAGES[pkg]
    upstream = version.split("+")[0].split("-")[0]
    out = []
    for p in sorted(base.glob("ch*.html")) + sorted(base.glob("appendix-*.html")):
        doc = _parse(p)
        main = doc.xpath("//main")
        if not main:
            continue
        main = main[0]
        _drop(main, ".//span[contains(concat(' ', @class, ' '), ' boring ')]")   # lines hidden on the page
        title = _heading(main) or (doc.findtext(".//title") or "").strip()
        url = web.format(version=upstream) + p.name
        text = cut(_text(main, title, url))
        if len(text) >= MIN_CHARS:
            out.append(_record(url, title, pkg, version, f"{PACKAGES[pkg][0]}/{p.name}", licence, "book", text))
    return out


def node_api(base: Path, version: str, pkg: str = "nodejs-doc") -> list[dict]:
    _, licence, web = PACKAGES[pkg]
    upstream = version.split("+")[0].split("-")[0]
    out = []
    for p in sorted(base.glob("*.html")):
        if p.name in ("all.html", "index.html"):
            continue
        doc = _parse(p)
        api = doc.xpath("//div[@id='apicontent']")
        if not api:
            continue
        api = api[0]
        _drop(api, ".//span[a[@class='mark']]")          # the "#" permalink
        _drop(api, ".//a[@class='mark']")
        title = _heading(api) or (doc.findtext(".//title") or "").strip()
        title = re.sub(r"\s*#$", "", title)
        url = web.format(version=upstream) + p.name
        text = cut(_text(api, title, url))
        if len(text) >= MIN_CHARS:
            out.append(_record(url, title, pkg, version, f"{PACKAGES[pkg][0]}/{p.name}", licence, "api", text))
    return out


def _record(url, title, pkg, version, path, licence, register, text) -> dict:
    return {"id": url, "url": url, "title": title, "lang": "en", "domain": url.split("/")[2], "licence": licence,
            "source_package": f"{pkg} {version} (Debian)", "source_path": path, "register": register,
            "text": text}


def build(root: Path, versions: dict) -> list[dict]:
    recs = []
    recs += python_docs(root / PACKAGES["python3.11-doc"][0], versions["python3.11-doc"])
    recs += rust_book(root / PACKAGES["rust-doc"][0], versions["rust-doc"])
    recs += node_api(root / PACKAGES["nodejs-doc"][0], versions["nodejs-doc"])
    seen, out = set(), []
    for r in sorted(recs, key=lambda r: r["id"]):
        if r["text"] in seen:             # identical pieces (a page and its only section) once
            continue
        seen.add(r["text"])
        out.append(r)
    return out


def _maths_builder():
    """seeds/build_seed.py (the maths seed's builder), whose ``write`` both seeds use: the same gzip
    bytes for the same records (mtime 0)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("maths_seed_builder",
                                                  Path(__file__).resolve().parents[1] / "build_seed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", help="an unpacked tree holding the packages' usr/share/doc (default: apt-get download)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    a = ap.parse_args(argv)
    out = Path(a.out)
    with tempfile.TemporaryDirectory(prefix="code_seed_") as tmp:
        if a.root:
            root = Path(a.root)
            versions = installed_versions(root)
            for pkg in PACKAGES:           # an unpacked .deb has no dpkg status: read the changelog's first line
                if pkg not in versions:
                    ch = root / "usr/share/doc" / pkg / "changelog.Debian.gz"
                    if ch.exists():
                        first = gzip.open(ch, "rt", encoding="utf-8").readline()
                        versions[pkg] = re.search(r"\(([^)]+)\)", first).group(1)
            missing = [p for p in PACKAGES if p not in versions]
            if missing:
                ap.error(f"no version found for {missing} under {root}")
        else:
            versions = fetch(Path(tmp))
            root = Path(versions.pop("_root"))
        recs = build(root, versions)
    n = _maths_builder().write(recs, out / "starter_seed.jsonl.gz")
    print(f"{len(recs)} documents, {sum(len(r['text']) for r in recs):,} characters, {n:,} bytes "
          f"-> {out / 'starter_seed.jsonl.gz'}")
    for (pkg, reg), c in sorted(Counter((r["source_package"], r["register"]) for r in recs).items()):
        print(f"  {pkg}: {reg} {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
