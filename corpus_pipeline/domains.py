"""Domain and URL-path aggregation rules (pure; no Spark).

Step 3 of the DeepSeekMath loop: a *domain* whose pages were collected often
enough is *flagged*, and its URL paths are broken down into prefixes so a
person (or the proposer in ``annotate.py``) can mark the mathematical ones.

Rules and their defaults (``[domains]`` in the configuration, ``DomainConfig``):

``key = "host"``
    The domain of a page is its host: lower-cased, without port, user info or
    trailing dot (the paper's "same base URL").  ``"registered"`` groups hosts
    by registered domain (``math.stackexchange.com`` and
    ``cooking.stackexchange.com`` -> ``stackexchange.com``) using the public
    suffix list snapshot bundled with ``tldextract``: remote suffix lists and
    the disk cache are turned off, so nothing is downloaded or written at run
    time.  Hosts without a registered domain (IP addresses, ``localhost``)
    keep their host as key.
``flag_fraction = 0.10``, ``min_pages = 5``
    A domain is flagged when ``collected / pages > flag_fraction`` (strictly:
    exactly 10% is *not* flagged) and it has at least ``min_pages`` pages (a
    host with fewer pages than ``annotate.propose_min_pages`` can get no proposal;
    on a crawl most hosts have one page).
``path_depth = 2``
    The prefixes of a page (:func:`topical_prefixes`) are its host's root ``/``
    (depth 0, the whole host) and the *topical* directory prefixes of its URL
    path down to ``path_depth`` levels, each ending in ``/``.  A folder that
    only files pages (a date, an id, a page number, a tag, an author:
    :func:`segment_kind`) is grouped into its parent: ``/questions/123/slug``
    gives ``/`` and ``/questions/``; ``/361/`` and ``/2019/05/post`` give ``/``
    only; ``/lc/12/`` gives ``/`` and ``/lc/``.  The last path segment is a
    page, not a directory.  Query strings are not part of the path.  A page is
    *under* a prefix when its path starts with it (every page is under ``/``).
``prefix_min_pages = 2``, ``max_prefixes_per_domain = 200``
    Prefix statistics keep prefixes with at least ``prefix_min_pages`` pages,
    and at most ``max_prefixes_per_domain`` per host (most pages first, ties
    by prefix), so the worksheet stays human-scale on large crawls (one depth-2
    prefix per question id would otherwise flood it).
``examples = 3``
    Up to this many collected *and* this many uncollected example pages
    (url, title) per prefix, chosen by page id (a stable hash), not by
    partition order.

Prefix statistics are per *host* (the host written in a marked path
``<host><prefix>``), for the hosts whose domain key is flagged; with the
default ``key = "host"`` the two coincide.

The functions here are the reference of the rules; ``spark/domains.py``
applies the same rules to DataFrames (and its tests compare the two).
"""
from __future__ import annotations

import functools
import re
from typing import Optional

from .config import DomainConfig


# ---------------------------------------------------------------- domain key
def normalize_host(host: Optional[str]) -> str:
    """Lower-cased host without user info, port or trailing dot ('' when empty)."""
    h = (host or "").strip().lower()
    h = h.rsplit("@", 1)[-1]
    if not h.startswith("[") and ":" in h:
        name, _, port = h.rpartition(":")
        if port.isdigit() or port == "":
            h = name
    return h.rstrip(".")


@functools.lru_cache(maxsize=1)
def _offline_extractor():
    """tldextract with its bundled public-suffix snapshot only: no network, no disk cache."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True,
                                 include_psl_private_domains=False)


def registered_domain(host: str) -> str:
    """``a.b.example.co.uk`` -> ``example.co.uk``; '' when the host has none (IP, localhost)."""
    h = normalize_host(host)
    if not h:
        return ""
    ext = _offline_extractor()(h)
    if not ext.domain or not ext.suffix:
        return ""
    return f"{ext.domain}.{ext.suffix}"


def domain_key(host: Optional[str], key: str = "host") -> str:
    """The domain a page is counted under: its host, or its registered domain."""
    h = normalize_host(host)
    if key == "host" or not h:
        return h
    if key == "registered":
        return registered_domain(h) or h
    raise ValueError(f"unknown domain key {key!r} (expected 'host' or 'registered')")


# ---------------------------------------------------------------- path prefixes
def path_prefixes(path: Optional[str], depth: int) -> list[str]:
    """Directory prefixes of ``path`` of depths 1..depth, shallowest first.

    ``/questions/123/slug`` -> ``['/questions/', '/questions/123/']`` (depth 2);
    ``/about`` -> ``[]``; ``/a/b/`` -> ``['/a/', '/a/b/']``.  Empty segments
    (``//``) are kept literally so every prefix is a string prefix of the path.
    """
    p = path or "/"
    if not p.startswith("/"):
        p = "/" + p
    out: list[str] = []
    pos = 0
    while len(out) < depth:
        nxt = p.find("/", pos + 1)
        if nxt < 0:
            break
        out.append(p[: nxt + 1])
        pos = nxt
    return out


def topical_prefixes(path: Optional[str], depth: int) -> list[tuple[int, str]]:
    """``[(depth, prefix)]`` of a page: ``(0, "/")`` and its topical directory prefixes of depths
    1..depth, shallowest first; a structural folder (:func:`segment_kind`) and everything below it
    are grouped into its parent (module docstring)."""
    out = [(0, "/")]
    parent = None
    for d, pre in enumerate(path_prefixes(path, depth), start=1):
        seg = pre.rstrip("/").rsplit("/", 1)[-1]
        if segment_kind(seg, parent) is not None:
            break
        out.append((d, pre))
        parent = seg
    return out


def prefix_depth(prefix: str) -> int:
    """Number of directory levels of a prefix: ``/a/`` -> 1, ``/a/b/`` -> 2."""
    return max(prefix.count("/") - 1, 0)


def is_under(path: Optional[str], prefix: str) -> bool:
    return (path or "/").startswith(prefix)


# ---------------------------------------------------------------- flags
def fraction(collected: int, pages: int) -> float:
    return (collected / pages) if pages else 0.0


def is_flagged(pages: int, collected: int, cfg: DomainConfig) -> bool:
    """More than ``flag_fraction`` of at least ``min_pages`` pages collected (strict >)."""
    return pages > 0 and pages >= cfg.min_pages and fraction(collected, pages) > cfg.flag_fraction


# ---------------------------------------------------------------- reference aggregations
HIST_BINS = 10      # score histogram bins of a prefix's evidence: [0, 0.1), ..., [0.9, 1]

# ---------------------------------------------------------------- structural path segments
# Folders that say how a site files its pages (by date, page number, tag, author, id), not what
# they are about: a careful person does not mark them on their own, because on a maths blog they
# hold every post, maths or not, at the blog's own rate.
_YEAR = re.compile(r"^(19|20)\d\d$")
_DATE = re.compile(r"^(19|20)\d\d[-_]?\d\d(?:[-_]?\d\d)?$")
_NUM = re.compile(r"^\d+$")
_PAGINATION = re.compile(r"^(?:p|page|pages|pg)[-_]?\d+$")
_HEXID = re.compile(r"^(?=[0-9a-f]*\d)[0-9a-f]{8,}$|^[0-9a-f]{8}-[0-9a-f]{4}-")
_FACETS = {
    "tag": "tag", "tags": "tag", "tagged": "tag", "label": "tag", "labels": "tag",
    "keyword": "tag", "keywords": "tag",
    "author": "author", "authors": "author", "user": "author", "users": "author", "u": "author",
    "member": "author", "members": "author", "memberlist": "author", "profile": "author",
    "profiles": "author", "people": "author", "by": "author",
    "page": "pagination", "pages": "pagination",
    "archive": "archive", "archives": "archive", "date": "archive", "dates": "archive",
    "search": "archive", "feed": "archive", "comments": "archive", "amp": "archive",
}


def segment_kind(segment: str, parent: Optional[str] = None) -> Optional[str]:
    """Why a path segment is structural (``"date"``, ``"pagination"``, ``"tag"``, ``"author"``,
    ``"archive"``, ``"id"``), or None for a topical folder.  ``parent`` is the segment before it:
    the value after ``/page/`` is pagination, after ``/tag/`` a tag, after ``/author/`` an author."""
    s = (segment or "").lower()
    if parent is not None:
        pk = _FACETS.get(parent.lower())
        if pk is not None and s:
            return pk
    if _YEAR.match(s) or _DATE.match(s):
        return "date"
    if _PAGINATION.match(s):
        return "pagination"
    if _NUM.match(s) or _HEXID.match(s):
        # a month or day number under a year is a date, any other number an id
        return "date" if parent is not None and _YEAR.match(parent) and len(s) <= 2 else "id"
    return _FACETS.get(s)


def structural_reason(prefix: str) -> Optional[str]:
    """Why ``prefix`` (``/a/b/``) cannot be proposed on its own: the kind of its last segment
    (see :func:`segment_kind`), e.g. ``"date"`` for ``/2011/`` or ``/posts/2011/``; None for a
    topical folder such as ``/questions/`` or ``/courses/18-01/`` and for the host's root ``/``
    (the whole host)."""
    segs = [s for s in prefix.strip("/").split("/")]
    if not segs or segs == [""]:
        return None
    parent = segs[-2] if len(segs) > 1 else None
    return segment_kind(segs[-1], parent)
