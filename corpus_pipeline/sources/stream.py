"""What every remote source shares: a streamed body, network-trouble classification, backoff.

A source's ``open(ref, cfg, start)`` returns a :class:`Body` positioned at byte
``start``; :func:`sources.iter_pages` re-opens it at the last processed record
after a transient failure (:func:`is_transient`).  Request-level retries
(throttling, 5xx, refused connections) happen inside the source's open with
:func:`backoff_delay`.
"""
from __future__ import annotations

import http.client
import random
import socket
from typing import Callable, Optional


class SourceIOError(ConnectionError):
    """Reading the bytes of a file failed in the storage client (not in the data): worth a re-open."""


class Body:
    """A streamed body with file-like ``read``/``close``; never read whole.

    ``wrap_errors``: exceptions raised by ``read`` become :class:`SourceIOError`
    (for clients whose I/O errors are plain ``OSError``, e.g. pyarrow's), so a
    storage failure is retried instead of being taken for damaged data.
    """

    def __init__(self, read: Callable[[int], bytes], close: Optional[Callable[[], None]] = None,
                 wrap_errors: bool = False, name: str = ""):
        self._read, self._close, self._wrap, self._name = read, close, wrap_errors, name

    def read(self, n: int = -1) -> bytes:
        if not self._wrap:
            return self._read(n)
        try:
            return self._read(n)
        except Exception as e:  # noqa: BLE001
            raise SourceIOError(f"{self._name}: read failed: {type(e).__name__}: {e}") from e

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if self._close is not None:
            try:
                self._close()
            except Exception:  # noqa: BLE001
                pass


_URLLIB3_TRANSIENT = ("ProtocolError", "ReadTimeoutError", "IncompleteRead", "NewConnectionError",
                      "ConnectTimeoutError", "MaxRetryError", "SSLError", "ProxyError")


def is_transient(exc: BaseException, extra: Optional[Callable[[BaseException], bool]] = None) -> bool:
    """Resets, timeouts and refused or dropped connections anywhere in the exception chain.

    ``extra(e)`` adds a client's own transient errors (botocore's, HTTP 5xx, ...).
    """

    seen = 0
    e = exc
    while e is not None and seen < 6:
        seen += 1
        if isinstance(e, (ConnectionError, TimeoutError, socket.timeout, http.client.IncompleteRead,
                          http.client.RemoteDisconnected)):
            return True
        mod = type(e).__module__ or ""
        if mod.startswith("urllib3") and type(e).__name__ in _URLLIB3_TRANSIENT:
            return True
        if extra is not None and extra(e):
            return True
        e = e.__cause__ or e.__context__
    return False


def backoff_delay(attempt: int, base_s: float, cap_s: float = 60.0, retry_after: Optional[str] = None,
                  rng: Callable[[], float] = random.random) -> float:
    """Seconds to wait before retry ``attempt`` (1, 2, ...): full-jitter exponential backoff.

    A server's ``Retry-After`` (seconds) is honoured as a lower bound, capped at ``cap_s``.
    """
    delay = min(cap_s, base_s * (2 ** (attempt - 1))) * (0.5 + 0.5 * rng())
    if retry_after:
        try:
            delay = max(delay, min(cap_s, float(retry_after)))
        except ValueError:
            pass
    return delay
