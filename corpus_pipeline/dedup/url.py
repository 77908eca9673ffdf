"""URL normalization and stable page ids (pure)."""
from __future__ import annotations

import hashlib
from urllib.parse import quote, unquote, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def strip_wrapper(url: str) -> str:
    """The URL as labels.jsonl writes it: whitespace and a surrounding ``<...>`` removed."""
    u = (url or "").strip()
    if u.startswith("<") and u.endswith(">"):
        u = u[1:-1].strip()
    return u


def _requote(part: str, safe: str) -> str:
    # decode then re-encode so %7E and ~ (or %2f case) compare equal
    return quote(unquote(part), safe=safe)


def normalize_url(url: str) -> str:
    """Canonical form used for URL dedup and page ids.

    Lower-cases scheme and host, drops default ports, fragments, user info and
    the trailing dot of a host, removes the ``<...>`` wrapper, normalizes
    percent-encoding, gives an empty path ``/``.  Query strings are kept
    (``?id=1`` and ``?id=2`` are different pages) with their order.
    """
    u = strip_wrapper(url)
    try:
        parts = urlsplit(u)
    except ValueError:
        return u
    scheme = (parts.scheme or "http").lower()
    host = (parts.hostname or "").rstrip(".").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host
    if port is not None and _DEFAULT_PORTS.get(scheme) != port:
        netloc = f"{host}:{port}"
    path = _requote(parts.path or "/", safe="/:@!$&'()*+,;=-._~")
    query = _requote(parts.query, safe="=&/:@!$'()*+,;-._~?") if parts.query else ""
    return urlunsplit((scheme, netloc, path, query, ""))


def page_id(url: str) -> str:
    """Stable id of a page: 16 hex chars of SHA-1 of the normalized URL."""
    return hashlib.sha1(normalize_url(url).encode("utf-8")).hexdigest()[:16]


def host_and_path(url: str) -> tuple[str, str]:
    """Lower-cased host without port or trailing dot, and the path (``/`` when empty)."""
    try:
        parts = urlsplit(strip_wrapper(url))
        host = (parts.hostname or "").rstrip(".").lower()
        return host, parts.path or "/"
    except ValueError:
        return "", "/"
