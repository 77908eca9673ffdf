"""WARC records in, typed HTML pages out (the only warcio user; pure, no Spark).

:func:`iter_records` reads one WARC/ARC stream (gzip per record, whole-file
gzip or plain) and yields :class:`WarcPage` for every ``response`` record
with a kept HTTP status and an HTML content type, decoded to ``str``.  Every
other record is counted under a named reason in a :class:`~counters.Counts`:

======================  =====================================================
``non_response``        warcinfo, request, metadata, revisit, resource, ...
``no_http_headers``     a response record without an HTTP header block
``http_status_3xx``     (and ``_4xx``, ``_5xx``, ``_1xx``, ``_2xx`` for a 2xx not kept)
``not_html``            Content-Type not in ``html_content_types``
``page_too_large``      payload above ``max_page_bytes``
``truncated_record``    the stream ended inside the record (file cut short)
``invalid_target_uri``  a response whose WARC-Target-URI is not a URL (junk parsed as ARC)
``decode_failed``       content-encoding or charset could not be decoded
``corrupt_gzip``        a gzip member is damaged: reading stops there
``corrupt_record``      an unparsable record header: reading stops there
======================  =====================================================

File-level reasons: ``non_chunked_gzip_file`` (one gzip stream for the whole
file: read through a gzip decoder, offsets not addressable), ``file_not_found``,
``file_failed`` (still failing after ``file_attempts``), see :func:`read_file`.

Damage never raises: every good record before it has been yielded, the
damage is counted and iteration ends.  Exceptions that ``transient(exc)``
calls transient (network resets, timeouts) are re-raised so the caller can
re-open the stream and resume after ``state.last_offset``.
"""
from __future__ import annotations

import codecs
import gzip
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import BinaryIO, Callable, Iterator, Optional

from .counters import Counts
from .dedup.url import strip_wrapper

RECORDS = "records"            # statistic: WARC records seen (every one also gets exactly one outcome)


@dataclass
class WarcPage:
    url: str                   # WARC-Target-URI, surrounding <...> removed
    html: str
    warc_file: str
    warc_offset: Optional[int]  # byte offset of the record in the (compressed) file; None when not addressable
    fetched_at: Optional[str]   # WARC-Date as YYYY-MM-DDTHH:MM:SSZ (UTC)
    charset: str


@dataclass
class ReadState:
    """Progress through one file, kept across re-opens of the same file."""
    last_offset: int = -1       # offset of the last record fully processed (counted and yielded)
    records: int = 0            # records fully processed
    valid: int = 0              # ... of which well-formed (a file without any was not read)
    gunzip: bool = False        # whole-file gzip: read through a gzip decoder (offsets not addressable)
    finished: bool = False


class CorruptGzip(Exception):
    pass


def _never(_exc: BaseException) -> bool:
    return False


# ------------------------------------------------------------------ warcio glue
def _strict_reader_class():
    from warcio.bufferedreaders import DecompressingBufferedReader

    class StrictReader(DecompressingBufferedReader):
        """warcio writes a gzip error to stderr and reports EOF; we raise instead."""

        def _decompress(self, data):
            if self.decompressor and data:
                try:
                    return self.decompressor.decompress(data)
                except Exception as e:  # noqa: BLE001
                    if self.num_block_read == 0:
                        return super()._decompress(data)
                    raise CorruptGzip(str(e)) from e
            return data

    return StrictReader


_STRICT = None


def _archive_iterator(stream: BinaryIO):
    global _STRICT
    from warcio.archiveiterator import ArchiveIterator

    if _STRICT is None:
        _STRICT = _strict_reader_class()
    it = ArchiveIterator(stream, arc2warc=True)
    it.reader = _STRICT(it.fh, block_size=16384)
    return it


# ------------------------------------------------------------------ pure helpers
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)
_CT_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)

# WHATWG: labels whose real-world meaning is a superset encoding
_ALIASES = {
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "l1": "cp1252", "us-ascii": "cp1252", "ascii": "cp1252", "iso_8859-1": "cp1252",
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "gb_2312-80": "gb18030",
    "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "x-sjis": "cp932", "windows-31j": "cp932",
    "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "tis-620": "cp874", "iso-8859-11": "cp874",
    "iso-8859-9": "cp1254", "big5": "big5hkscs", "utf8": "utf-8", "unicode": "utf-8",
}


def codec_name(label: Optional[str]) -> Optional[str]:
    """A Python codec for a declared charset label, or None when unknown."""
    if not label:
        return None
    lab = label.strip().strip("\"'").lower()
    lab = _ALIASES.get(lab, lab)
    try:
        info = codecs.lookup(lab)
    except LookupError:
        return None
    if info.name in ("utf-16", "utf-32"):   # a declared utf-16 in an 8-bit page is almost always wrong
        return None
    return info.name


def header_charset(content_type: Optional[str]) -> Optional[str]:
    m = _CT_CHARSET.search(content_type or "")
    return m.group(1) if m else None


def meta_charset(payload: bytes) -> Optional[str]:
    m = _META_CHARSET.search(payload[:8192])
    return m.group(1).decode("ascii", "ignore") if m else None


def _try(payload: bytes, codec: str, tolerance: float) -> Optional[str]:
    try:
        return payload.decode(codec)
    except UnicodeDecodeError:
        pass
    except LookupError:
        return None
    text = payload.decode(codec, errors="replace")
    bad = text.count("\ufffd")
    return text if bad <= tolerance * max(1, len(text)) else None


def decode_html(payload: bytes, content_type: Optional[str] = None) -> tuple[Optional[str], str]:
    """(text, codec) honouring BOM, HTTP charset, then <meta charset>, then detection.

    A declared charset is accepted when at most 0.5% of the characters fail to
    decode (a stray bad byte must not send a whole page through the detector).
    Returns (None, "") when nothing decodes.
    """
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if payload.startswith(bom):
            return payload[len(bom):].decode(codec, errors="replace"), codec
    tried = []
    for label in (header_charset(content_type), meta_charset(payload)):
        codec = codec_name(label)
        if codec and codec not in tried:
            tried.append(codec)
            text = _try(payload, codec, 0.005)
            if text is not None:
                return text, codec
    if "utf-8" not in tried:
        text = _try(payload, "utf-8", 0.0)
        if text is not None:
            return text, "utf-8"
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(payload[:100_000]).best()
    except Exception:  # noqa: BLE001
        best = None
    if best is not None and best.encoding:
        codec = codec_name(best.encoding) or best.encoding
        try:
            return payload.decode(codec, errors="replace"), codec
        except LookupError:
            pass
    return None, ""


def normalize_date(value: Optional[str]) -> Optional[str]:
    """WARC-Date (ISO 8601, or ARC's 14 digits) as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC; None if unparsable.

    Fixed width, so the strings sort in time order.
    """
    if not value:
        return None
    v = value.strip()
    try:
        if v.isdigit() and len(v) >= 14:
            dt = datetime.strptime(v[:14], "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)
        else:
            dt = datetime.fromisoformat(v.replace("Z", "+00:00"))
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=timezone.utc)
        return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None


def _mime(content_type: Optional[str]) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _looks_like_html(payload: bytes) -> bool:
    head = payload[:1024].lstrip().lower()
    return head.startswith(b"<!doctype html") or head.startswith(b"<html") or b"<html" in head


# ------------------------------------------------------------------ iteration
def _drain(raw) -> bool:
    """Read the rest of a record's raw block; True when it was complete."""
    while raw.read(65536):
        pass
    return getattr(raw, "limit", 0) <= 0


def _classify_record(record, cfg, counts: Counts, source: str, offset: Optional[int], transient=None):
    """The page of one record, or None with its reason counted (exactly one outcome per record).

    Every record's block is read to its end here: a record the stream ends
    inside of is ``truncated_record`` whatever else it was.
    """
    page, reason = None, None
    try:
        page, reason = _inspect(record, cfg, source, offset)
    except CorruptGzip:
        raise
    except Exception as e:  # noqa: BLE001 - bad chunking / content-encoding
        if (transient and transient(e)) or not _is_data_error(e):
            raise
        reason = "decode_failed"
    if not _drain(record.raw_stream):
        page, reason = None, "truncated_record"
    if page is None:
        counts.add(reason)
    return page, reason


def _inspect(record, cfg, source: str, offset: Optional[int]):
    if record.rec_type != "response":
        return None, "non_response"
    if "://" not in (record.rec_headers.get_header("WARC-Target-URI") or ""):
        # also what lines of junk parsed as ARC headers look like
        return None, "invalid_target_uri"
    http = record.http_headers
    if http is None:
        return None, "no_http_headers"
    try:
        status = int(http.get_statuscode() or 0)
    except ValueError:
        status = 0
    if status not in cfg.keep_status:
        return None, (f"http_status_{status // 100}xx" if 100 <= status < 600 else "http_status_invalid")
    ctype = http.get_header("Content-Type")
    mime = _mime(ctype)
    if mime and mime not in cfg.html_content_types:
        return None, "not_html"
    payload = record.content_stream().read(cfg.max_page_bytes + 1)
    if len(payload) > cfg.max_page_bytes:
        return None, "page_too_large"
    if not mime and not _looks_like_html(payload):
        return None, "not_html"
    html, codec = decode_html(payload, ctype)
    if html is None:
        return None, "decode_failed"
    url = strip_wrapper(record.rec_headers.get_header("WARC-Target-URI") or "")
    return WarcPage(url=url, html=html, warc_file=source, warc_offset=offset,
                    fetched_at=normalize_date(record.rec_headers.get_header("WARC-Date")), charset=codec), None


def _is_data_error(e: BaseException) -> bool:
    import zlib

    return isinstance(e, (zlib.error, EOFError, ValueError, AssertionError, UnicodeError, OSError)) \
        and not isinstance(e, (ConnectionError, TimeoutError))


_NON_CHUNKED = "non-chunked gzip"


def iter_records(
    stream: BinaryIO,
    source: str,
    cfg,
    counts: Counts,
    state: Optional[ReadState] = None,
    transient: Callable[[BaseException], bool] = _never,
    base: int = 0,
) -> Iterator[WarcPage]:
    """Yield the kept pages of one WARC stream; count everything else (see module doc).

    ``cfg`` is an :class:`~config.IngestConfig`.  With a ``state`` from an
    earlier, interrupted pass over the same file, records up to
    ``state.last_offset`` are skipped silently (neither counted nor yielded).
    ``base``: the file offset the stream starts at (a ranged re-open).
    """
    state = state or ReadState()
    stream = _Counting(stream)
    if state.gunzip:
        stream = gzip.GzipFile(fileobj=stream)
    it = _archive_iterator(stream)
    raw = stream if not state.gunzip else stream.fileobj
    addressable = not state.gunzip
    index = -1
    while True:
        try:
            record = next(it)
        except StopIteration:
            state.finished = True
            end = sum(it.member_info) if it.member_info else 0
            if addressable and raw.n - end > 8 and base + end > state.last_offset:
                # bytes after the last complete record that never formed one: a record cut short
                counts.add(RECORDS)
                counts.add("truncated_record")
                state.records += 1
                state.last_offset = base + end
            break
        except Exception as e:  # noqa: BLE001
            if transient(e):
                raise
            if _NON_CHUNKED in str(e) and not state.gunzip:
                # a whole-file gzip: warcio refuses it, a gzip decoder reads it (offsets not addressable)
                counts.add("non_chunked_gzip_file")
                state.gunzip = True
                raise _Reopen() from e
            counts.add("corrupt_gzip" if isinstance(e, CorruptGzip) else "corrupt_record")
            break
        index += 1
        offset = base + it.offset
        position = offset if addressable else index
        if position <= state.last_offset:
            continue
        try:
            page, reason = _classify_record(record, cfg, counts, source, offset if addressable else None,
                                            transient)
        except Exception as e:  # noqa: BLE001
            if transient(e):
                raise
            counts.add(RECORDS)
            counts.add("corrupt_gzip" if isinstance(e, CorruptGzip) else "truncated_record")
            state.records += 1
            state.last_offset = position
            break
        counts.add(RECORDS)
        state.records += 1
        if reason not in ("invalid_target_uri", "truncated_record"):
            state.valid += 1
        state.last_offset = position
        if page is not None:
            yield page


class _Counting:
    """Counts the bytes read from the underlying stream."""

    def __init__(self, f):
        self.f = f
        self.n = 0

    def read(self, n=-1):
        b = self.f.read(n)
        self.n += len(b)
        return b

    def readable(self):
        return True

    def close(self):
        pass


class _Reopen(Exception):
    """Internal: the file must be re-opened in another mode (state says which)."""


def read_file(
    opener: Callable[..., BinaryIO],
    source: str,
    cfg,
    counts: Counts,
    transient: Callable[[BaseException], bool] = _never,
    attempts: int = 1,
    backoff_s: float = 0.0,
    sleep: Callable[[float], None] = None,
    ranged: bool = False,
) -> Iterator[WarcPage]:
    """Open with ``opener()`` and iterate, re-opening after transient failures.

    With ``ranged``, ``opener(start)`` opens the file at byte ``start``: a
    re-open then starts at the last record already processed (skipped, not
    counted again) instead of reading the file again from its beginning.

    Counted statistics: ``files`` (1), ``files_read`` (the file gave at least
    one record, or was cleanly empty), ``file_retries``; a file that cannot be
    opened or keeps failing counts ``file_failed`` (after keeping every page
    yielded before the failure) and iteration ends without raising.
    """
    import time

    sleep = sleep or time.sleep
    state = ReadState()
    counts.add("files")
    failures = 0
    opened = False
    while True:
        try:
            start = state.last_offset if (ranged and not state.gunzip and state.last_offset > 0) else 0
            stream = opener(start) if ranged else opener()
            opened = True
            try:
                yield from iter_records(stream, source, cfg, counts, state, transient, base=start)
            finally:
                try:
                    stream.close()
                except Exception:  # noqa: BLE001
                    pass
            break
        except _Reopen:
            continue
        except FileNotFoundError as e:
            _warn(source, f"not found: {e}")
            counts.add("file_not_found")
            break
        except Exception as e:  # noqa: BLE001
            failures += 1
            if transient(e) and failures < attempts:
                counts.add("file_retries")
                _warn(source, f"attempt {failures} failed ({type(e).__name__}: {e}); retrying")
                sleep(backoff_s * (2 ** (failures - 1)))
                continue
            _warn(source, f"giving up after {failures} attempt(s): {type(e).__name__}: {e}")
            counts.add("file_failed")
            break
    if state.valid > 0 or (state.finished and opened and state.records == 0):
        counts.add("files_read")


def _warn(source: str, msg: str) -> None:
    print(f"[ingest] {source}: {msg}", file=sys.stderr, flush=True)
