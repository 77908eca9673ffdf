"""``http://`` / ``https://`` WARCs (e.g. ``https://data.commoncrawl.org/``) through urllib3.

* One GET per file, streamed (``preload_content=False``), no content decoding
  (``Accept-Encoding: identity``: byte offsets stay the file's).
* Request attempts (``ingest.http_max_attempts``) are retried on 408, 429,
  5xx, refused/reset connections and timeouts with full-jitter exponential
  backoff (``ingest.http_backoff_s``, doubling, at most 60 s; a server's
  ``Retry-After`` is a lower bound).  Each retry calls ``on_retry`` (counted
  as ``http_retries``).
* ``start > 0`` sends ``Range: bytes=start-``: :func:`sources.iter_pages`
  re-opens a file that failed mid-body at its last processed record.  A 206
  must start at ``start``; a server that ignores ranges (200) is read and
  the first ``start`` bytes discarded.  A re-open whose ``ETag`` (or
  ``Last-Modified``) differs from the first response's fails the file
  (``file_failed``) instead of splicing two versions.
* 404/410 raise ``FileNotFoundError`` (counted ``file_not_found``); other 4xx
  raise :class:`HTTPStatusError`, not retried.
* A body cut short is an error, not an end of file (urllib3 enforces
  ``Content-Length``), so it is resumed rather than counted as a truncated record.
"""
from __future__ import annotations

import threading
import time
from typing import BinaryIO, Callable, Optional

from ..errors import UsageError
from . import stream
from .stream import Body

RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
USER_AGENT = "corpus_pipeline/0.1 (WARC ingest; urllib3)"

_pools: dict = {}
_validators: dict = {}          # url -> ETag / Last-Modified of the first response (per process)
_lock = threading.Lock()


class HTTPStatusError(OSError):
    def __init__(self, url: str, status: int, reason: str = ""):
        super().__init__(f"{url}: HTTP {status} {reason}".rstrip())
        self.status = status


class RetryableStatus(ConnectionError):
    """A retryable status (429, 503, ...) still failing after the last attempt."""


def is_http(ref: str) -> bool:
    low = ref[:8].lower()
    return low.startswith("http://") or low.startswith("https://")


def pool(cfg):
    import urllib3

    key = (float(cfg.http_connect_timeout_s), float(cfg.http_read_timeout_s))
    with _lock:
        p = _pools.get(key)
        if p is None:
            p = urllib3.PoolManager(num_pools=16, maxsize=4, retries=False,
                                    timeout=urllib3.Timeout(connect=key[0], read=key[1]),
                                    headers={"User-Agent": USER_AGENT})
            _pools[key] = p
    return p


def request(method: str, url: str, cfg, headers: Optional[dict] = None,
            on_retry: Optional[Callable[[], None]] = None, sleep: Callable[[float], None] = time.sleep):
    """A response with an accepted status (< 400, or 404/410/416), after request-level retries."""
    hdrs = {"Accept-Encoding": "identity", **(headers or {})}
    attempts = int(cfg.http_max_attempts)
    for attempt in range(1, attempts + 1):
        retry_after = None
        try:
            resp = pool(cfg).request(method, url, headers=hdrs, preload_content=False, redirect=True,
                                     decode_content=False)
        except Exception as e:  # noqa: BLE001
            if not stream.is_transient(e) or attempt == attempts:
                raise
        else:
            if resp.status not in RETRY_STATUS:
                return resp
            retry_after = resp.headers.get("Retry-After")
            _discard(resp)
            if attempt == attempts:
                raise RetryableStatus(f"{url}: HTTP {resp.status} after {attempts} attempt(s)")
        if on_retry is not None:
            on_retry()
        sleep(stream.backoff_delay(attempt, float(cfg.http_backoff_s), retry_after=retry_after))
    raise AssertionError("unreachable")


def _discard(resp) -> None:
    """Give a response's connection back only once its (small) body is read, else drop it."""
    try:
        resp.drain_conn()
    except Exception:  # noqa: BLE001
        resp.close()
    resp.release_conn()


def _raise_for_status(url: str, resp) -> None:
    if resp.status in (404, 410):
        _discard(resp)
        raise FileNotFoundError(f"{url}: HTTP {resp.status}")
    if resp.status >= 400 and resp.status != 416:
        _discard(resp)
        raise HTTPStatusError(url, resp.status, resp.reason or "")


def resolve(src: str, cfg, suffixes) -> list[str]:
    """An explicit URL names one file (whatever its name); HTTP has no listing, so no globs."""
    if any(c in src.split("?", 1)[0].split("://", 1)[1] for c in "*?["):
        raise UsageError(f"{src}: HTTP cannot be listed; give each file's URL or a warc.paths manifest "
                         f"(relative lines against ingest.manifest_base)")
    try:
        resp = request("HEAD", src, cfg)
    except Exception as e:  # noqa: BLE001
        raise UsageError(f"{src}: cannot reach: {type(e).__name__}: {e}") from e
    _discard(resp)
    if resp.status in (404, 410):
        return []
    if resp.status >= 400 and resp.status not in (405, 501):   # HEAD not allowed: let the GET decide
        raise UsageError(f"{src}: HTTP {resp.status} {resp.reason or ''}".rstrip())
    return [src]


def open_url(url: str, cfg, start: int = 0, on_retry: Optional[Callable[[], None]] = None) -> BinaryIO:
    """The file's bytes from ``start`` (a ranged GET when > 0), streamed."""
    start = int(start)
    headers = {"Range": f"bytes={start}-"} if start > 0 else {}
    resp = request("GET", url, cfg, headers, on_retry)
    _raise_for_status(url, resp)
    v = resp.headers.get("ETag") or resp.headers.get("Last-Modified")
    with _lock:
        if start == 0:
            _validators[url] = v
        elif v and _validators.get(url) not in (None, v):
            resp.close()
            raise HTTPStatusError(url, resp.status, f"file changed between attempts ({_validators[url]} -> {v})")
    if resp.status == 416:                     # start is at (or past) the end: nothing left
        _discard(resp)
        return Body(lambda n=-1: b"", name=url)
    if start > 0 and resp.status == 206:
        got = (resp.headers.get("Content-Range") or "").split()
        first = got[1].split("-", 1)[0] if len(got) == 2 and got[0] == "bytes" else ""
        if first != str(start):
            resp.close()
            raise HTTPStatusError(url, 206, f"Content-Range {resp.headers.get('Content-Range')!r} "
                                            f"does not start at {start}")
    elif start > 0:
        # the server ignored the range: skip to start
        left = start
        while left > 0:
            chunk = resp.read(min(left, 1 << 20))
            if not chunk:
                break
            left -= len(chunk)

    def read(n: int = -1) -> bytes:
        return resp.read(None if n is None or n < 0 else n)

    def close() -> None:
        resp.close()            # mid-body: the connection is dropped, not reused
        resp.release_conn()

    return Body(read, close, name=url)

