"""WARC records in, typed HTML pages out (the only warcio/fastwarc reader; pure, no Spark).

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
``file_failed`` (still failing after ``file_attempts``), ``empty_file`` (no byte at
all) and ``not_warc`` (the first bytes are neither ``WARC/`` (or an ARC file's
``filedesc://``) nor a gzip stream that starts with one, :func:`sniff`: the file is
not read further), see :func:`read_file`.

Damage never raises: every good record before it has been yielded, the
damage is counted and iteration ends.  Exceptions that ``transient(exc)``
calls transient (network resets, timeouts) are re-raised so the caller can
re-open the stream and resume after ``state.last_offset``.
"""
from __future__ import annotations

import codecs
import gzip
import io
import io as _io
import re
import sys
import time
import zlib
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
    reader: str = "warcio"      # parser for the rest of the file: "fastwarc" hands over to "warcio"
    handover: bool = False      # the fastwarc pass stopped: warcio goes on after last_offset


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


# ------------------------------------------------------------------ what a file is
SNIFF_BYTES = 4096              # the first bytes that decide whether a file is a WARC at all
_STARTS = (b"WARC/", b"filedesc://")     # a WARC record header; an ARC file's first record
NOT_WARC, EMPTY_FILE = "not_warc", "empty_file"
WHY = {
    NOT_WARC: "neither a WARC file nor a gzip of one",
    EMPTY_FILE: "an empty file",
    "file_not_found": "not found",
    "file_failed": "could not be read",
    "truncated_record": "cut short before its first whole record",
    "corrupt_gzip": "damaged gzip data",
    "no_page": "no HTML page to keep",
    "corrupt_record": "an unparsable record header",
    "invalid_target_uri": "records without a URL",
}


def _starts_warc(data: bytes) -> bool:
    return data.lstrip(b"\r\n \t").startswith(_STARTS)


def sniff(head: bytes) -> Optional[str]:
    """What a file's first bytes (up to :data:`SNIFF_BYTES`) say: None for a WARC or ARC file,
    plain or gzipped (per record or whole-file); ``empty_file``; ``not_warc`` for anything else
    (a text or HTML file, another compressed format, a gzip of something else).  A gzip cut
    before its first bytes of content is left to the reader (it counts ``truncated_record``)."""
    if not head:
        return EMPTY_FILE
    if head[:2] != b"\x1f\x8b":
        return None if _starts_warc(head[:64]) else NOT_WARC
    out, data, ended = b"", head, True
    try:
        while data and len(out) < 16:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += d.decompress(data, 64)
            ended = d.eof
            if not d.eof:
                break
            data = d.unused_data          # an empty member: look at the next one
    except zlib.error:
        return NOT_WARC
    if not out.lstrip(b"\r\n \t"):
        if ended:
            return EMPTY_FILE             # a gzip of nothing
        if len(head) < SNIFF_BYTES:
            return "truncated_record"     # the file ends inside its first gzip header
    return None if _starts_warc(out) else NOT_WARC


class _Peeked:
    """A stream whose first bytes were read to :func:`sniff` it: they are served again first
    (a read of ``n`` bytes still returns ``n`` when the stream has them)."""

    def __init__(self, head: bytes, f):
        self.head, self.f = head, f

    def read(self, n=-1):
        if not self.head:
            return self.f.read(n)
        if n is None or n < 0:
            b, self.head = self.head + self.f.read(), b""
            return b
        b, self.head = self.head[:n], self.head[n:]
        if len(b) < n:
            b += self.f.read(n - len(b))
        return b

    def readable(self):
        return True

    def close(self):
        self.f.close()


def _read_head(stream, n: int = SNIFF_BYTES) -> bytes:
    out = b""
    while len(out) < n:
        b = stream.read(n - len(out))
        if not b:
            break
        out += b
    return out


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
    reader: Optional[str] = None,
) -> Iterator[WarcPage]:
    """Open with ``opener()`` and iterate, re-opening after transient failures.

    With ``ranged``, ``opener(start)`` opens the file at byte ``start``: a
    re-open then starts at the last record already processed (skipped, not
    counted again) instead of reading the file again from its beginning.

    ``reader`` (default ``cfg.warc_reader``): ``"warcio"`` parses every record
    with warcio; ``"fastwarc"`` parses with fastwarc while records are plain
    and hands over to warcio at the first one that is not (see
    :func:`iter_records_fastwarc`): the same records, offsets and counted
    reasons either way.

    Counted statistics: ``files`` (1), ``files_read`` (the file gave at least
    one record), ``file_retries``; a file whose first bytes are not a WARC's
    counts ``not_warc`` or ``empty_file`` (:func:`sniff`) and is not read; a file that cannot be
    opened or keeps failing counts ``file_failed`` (after keeping every page
    yielded before the failure) and iteration ends without raising.
    """

    sleep = sleep or time.sleep
    state = ReadState(reader=reader or getattr(cfg, "warc_reader", "warcio"))
    if state.reader not in READERS:
        raise ValueError(f"warc reader must be one of {READERS}, not {state.reader!r}")
    counts.add("files")
    failures = 0
    opened = False
    reread = False
    while True:
        try:
            resume = not state.gunzip and state.last_offset > 0 and not reread
            start = state.last_offset if (ranged and resume) else 0
            stream = opener(start) if ranged else opener()
            if not opened:                   # the first bytes say whether this is a WARC at all
                head = _read_head(stream)
                why = sniff(head)
                if why is not None:
                    try:
                        stream.close()
                    except Exception:  # noqa: BLE001
                        pass
                    _warn(source, f"{why}: {WHY[why]}; skipped")
                    counts.add(why)
                    return
                stream = _Peeked(head, stream)
            opened = True
            if state.handover and resume and not ranged \
                    and getattr(stream, "seekable", lambda: False)():
                stream.seek(state.last_offset)        # a local file or buffer: no need to re-read its start
                start = state.last_offset
            reread = False
            try:
                if state.reader == "fastwarc":
                    yield from iter_records_fastwarc(stream, source, cfg, counts, state, transient, base=start)
                else:
                    yield from iter_records(stream, source, cfg, counts, state, transient, base=start)
            finally:
                try:
                    stream.close()
                except Exception:  # noqa: BLE001
                    pass
            break
        except _Reopen:
            state.reader = "warcio"
            continue
        except _Handover as h:
            state.reader, state.handover, reread = "warcio", True, h.reread
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


# ------------------------------------------------------------------ fastwarc
READERS = ("fastwarc", "warcio")
_PEEK = 1 << 16
_MAX_BUFFER = 64 << 20      # bytes kept for the record-boundary checks and the tail


class _Told(_Counting):
    """What fastwarc reads: ``tell()`` (it needs one) and the recent bytes, so that each
    record's position can be checked to start a gzip member or a ``WARC/`` header."""

    def __init__(self, f):
        super().__init__(f)
        self.chunks = []        # (start, bytes) not yet checked past
        self.error = None       # what the stream raised (fastwarc may turn it into a short read)

    def read(self, n=-1):
        start = self.n
        try:
            b = super().read(n)
            while n is not None and 0 <= len(b) < n and b:   # fastwarc takes a short read for the end
                more = super().read(n - len(b))
                if not more:
                    break
                b += more
        except Exception as e:  # noqa: BLE001
            self.error = e
            raise
        if b:
            self.chunks.append((start, b))
            if start - self.chunks[0][0] > _MAX_BUFFER:   # one record this large: warcio's business
                self.chunks = [(start, b)]
        return b

    def tell(self):
        return self.n

    def between(self, start: int, end: Optional[int] = None) -> Optional[bytes]:
        """The bytes from ``start`` to ``end`` (None: to what was read last), or None when
        they are no longer buffered."""
        if not self.chunks:
            return b"" if start >= self.n else None
        first = self.chunks[0][0]
        if first > start:
            return None
        data = b"".join(b for _, b in self.chunks)
        return data[start - first:None if end is None else end - first]

    def trim(self, pos: int) -> None:
        """Forget the bytes before ``pos``."""
        while self.chunks and self.chunks[0][0] + len(self.chunks[0][1]) <= pos:
            self.chunks.pop(0)

    def starts_with(self, pos: int, magic: bytes) -> bool:
        got = self.between(pos, pos + len(magic))
        return got is not None and got == magic


def _one_member(data: Optional[bytes], exact: bool) -> bool:
    """``data`` is one whole gzip member (``exact``: and nothing after it)."""

    if data is None:
        return False
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        d.decompress(data)
    except zlib.error:
        return False
    return d.eof and (not exact or not d.unused_data)


class _Handover(Exception):
    """Internal: the fastwarc pass stops here; warcio goes on after ``state.last_offset``,
    reading the file again from its start (skipping what was processed) when ``reread``:
    warcio then sees exactly the bytes a warcio-only read would (damage is judged alike)."""

    def __init__(self, reread: bool = True):
        super().__init__()
        self.reread = reread


class _Prefixed:
    """A stream whose first bytes were already read (served again first)."""

    def __init__(self, head: bytes, f):
        self.head, self.f = head, f

    def read(self, n=-1):
        if self.head:
            if n is None or n < 0:
                b, self.head = self.head + self.f.read(), b""
                return b
            b, self.head = self.head[:n], self.head[n:]
            return b
        return self.f.read(n)

    def readable(self):
        return True

    def close(self):
        pass


def _whole_file_gzip(head: bytes) -> bool:
    """A gzip stream whose first member does not end within ``head``, or is all of a short
    file (a whole-file gzip, a first record larger than the peek, or a one-member file:
    warcio's business either way)."""

    if head[:2] != b"\x1f\x8b":
        return False
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        d.decompress(head)
    except zlib.error:
        return False          # damaged: fastwarc fails, warcio counts it
    return not d.eof or (not d.unused_data and len(head) < _PEEK)


def _decoded_body(record, http, limit: int) -> tuple[bytes, int]:
    """(at most ``limit`` payload bytes, raw bytes read) with warcio's content_stream() decoding:
    chunked transfer encoding, then a content encoding warcio supports (gzip, deflate, br)."""

    from warcio.bufferedreaders import BufferedReader, ChunkedDataReader

    encoding = http.get("Content-Encoding")
    if encoding:
        encoding = encoding.lower()
        if encoding not in BufferedReader.get_supported_decompressors():
            encoding = None
    chunked = http.get("Transfer-Encoding") == "chunked"
    if not chunked and not encoding:
        payload = record.reader.read(limit)
        return payload, len(payload)
    raw = record.reader.read()
    stream = _io.BytesIO(raw)
    body = ChunkedDataReader(stream, decomp_type=encoding) if chunked else BufferedReader(stream, decomp_type=encoding)
    return body.read(limit), len(raw)


def _inspect_fastwarc(record, cfg, source: str, offset: int):
    """(page, reason, payload bytes read) like :func:`_inspect`, or raise :class:`_Handover` for a record warcio must judge:
    chunked or content-encoded HTTP bodies (warcio decodes them), a response without parsed HTTP."""
    from fastwarc.warc import WarcRecordType

    if record.record_type != WarcRecordType.response:
        return None, "non_response", 0
    uri = record.headers.get("WARC-Target-URI") or ""
    if "://" not in uri:
        return None, "invalid_target_uri", 0
    if not record.is_http:
        raise _Handover()
    http = record.http_headers
    status = int(http.status_code or 0)
    if status not in cfg.keep_status:
        return None, (f"http_status_{status // 100}xx" if 100 <= status < 600 else "http_status_invalid"), 0
    ctype = http.get("Content-Type")
    mime = _mime(ctype)
    if mime and mime not in cfg.html_content_types:
        return None, "not_html", 0
    try:
        payload, read = _decoded_body(record, http, cfg.max_page_bytes + 1)
    except Exception as e:  # noqa: BLE001 - bad chunking / content-encoding, as in _classify_record
        if not _is_data_error(e):
            raise
        return None, "decode_failed", 0
    if len(payload) > cfg.max_page_bytes:
        return None, "page_too_large", read
    if not mime and not _looks_like_html(payload):
        return None, "not_html", read
    html, codec = decode_html(payload, ctype)
    if html is None:
        return None, "decode_failed", read
    return WarcPage(url=strip_wrapper(uri), html=html, warc_file=source, warc_offset=offset,
                    fetched_at=normalize_date(record.headers.get("WARC-Date")), charset=codec), None, read


def iter_records_fastwarc(
    stream: BinaryIO,
    source: str,
    cfg,
    counts: Counts,
    state: ReadState,
    transient: Callable[[BaseException], bool] = _never,
    base: int = 0,
) -> Iterator[WarcPage]:
    """Like :func:`iter_records`, parsed by fastwarc (about twice warcio's speed).

    fastwarc reads only what it can vouch for: per-record gzip (every record
    starts a gzip member and its member ends where the next record starts, as
    warcio requires) or plain WARC (every record starts with ``WARC/``), each
    record's body read to its declared length; chunked or compressed HTTP
    bodies are decoded with warcio's own decoders.  At the first record that is
    anything else (a whole-file gzip, ARC, a record cut short or split over
    gzip members, a damaged member, a parse error) it raises
    :class:`_Handover` before counting that record: :func:`read_file` re-opens
    the file and warcio reads it from the start, skipping what was processed,
    so whatever it finds is counted exactly as a warcio-only read would.  What
    follows the last record (a cut, trailing bytes) is judged by warcio on the
    buffered bytes from that record on.  Transient stream errors are re-raised
    for :func:`read_file` to retry.  Measured on every WARC of the shared data
    (Common Crawl, wget, warcio's broken test files) and on cut, corrupted,
    decompressed copies: the same pages, offsets and counts as warcio.
    """
    from fastwarc.warc import ArchiveIterator

    head = stream.read(_PEEK)
    if base == 0 and _whole_file_gzip(head):
        raise _Handover()
    gz = head[:2] == b"\x1f\x8b"
    magic = b"\x1f\x8b" if gz else b"WARC/"
    src = _Told(_Prefixed(head, stream))
    pending = None            # (position, offset, page, reason) of the record read last, not yet committed

    def commit(pend):
        _pos, offset, page, reason = pend
        if page is None:
            counts.add(reason)
        counts.add(RECORDS)
        state.records += 1
        if reason != "invalid_target_uri":
            state.valid += 1
        state.last_offset = offset
        return page

    last_pos = 0
    try:
        for record in ArchiveIterator(src, parse_http=True, auto_decode="none", fsspec_args=False):
            pos = last_pos = record.stream_pos
            if not src.starts_with(pos, magic):
                raise _Handover()    # not at a member/record boundary: not a per-record gzip
            if pending is not None:
                # a record counts once its gzip member is seen to end exactly where the next begins
                # (warcio reads member by member: a record split over members is damage to it)
                if gz and not _one_member(src.between(pending[0], pos), exact=True):
                    raise _Handover()
                page = commit(pending)
                pending = None
                if page is not None:
                    yield page
            src.trim(pos)
            offset = base + pos
            if offset <= state.last_offset:
                record.reader.consume()
                continue
            page, reason, read = _inspect_fastwarc(record, cfg, source, offset)
            if read + record.reader.consume() < record.content_length:
                raise _Handover()    # cut short: warcio counts it
            pending = (pos, offset, page, reason)
    except _Handover:
        if src.error is not None and transient(src.error):
            raise src.error from None    # a reset fastwarc read as the end of a record
        raise
    except Exception as e:  # noqa: BLE001
        if transient(e):
            raise
        if src.error is not None and transient(src.error):
            raise src.error from None
        raise _Handover() from e
    if src.error is not None and transient(src.error):
        raise src.error
    if pending is not None:
        if gz and not _one_member(src.between(pending[0]), exact=False):
            raise _Handover()
        page = commit(pending)
        if page is not None:
            yield page
    # warcio judges what follows the last record (a cut, trailing bytes) on the buffered bytes
    # from that record on: it skips the record itself (already processed) and counts the rest
    tail = src.between(last_pos)
    if tail is None:
        raise _Handover(reread=False)
    yield from iter_records(io.BytesIO(tail), source, cfg, counts, state, transient, base=base + last_pos)


def _warn(source: str, msg: str) -> None:
    print(f"[ingest] {source}: {msg}", file=sys.stderr, flush=True)
