"""Where WARCs come from: local files and globs, ``s3://`` objects and prefixes, ``warc.paths`` manifests.

* :func:`resolve` (driver side) expands the user's ``SRC`` arguments into a
  list of file references (absolute local paths or ``s3://bucket/key``),
  raising :class:`~errors.UsageError` for an input that matches nothing.
* :func:`open_stream` opens one reference as a binary stream (never read whole).
* :func:`iter_pages` reads one reference into :class:`~warc.WarcPage` objects,
  re-opening after transient failures (``ingest.file_attempts``) at the last
  record already processed (a ranged GET on S3), so nothing is yielded twice.
"""
from __future__ import annotations

from typing import BinaryIO, Iterator

from ..counters import Counts
from ..errors import UsageError
from . import local, manifest, s3

WARC_SUFFIXES = (".warc.gz", ".warc", ".arc.gz", ".arc")


def is_s3(ref: str) -> bool:
    return ref.startswith("s3://") or ref.startswith("s3a://") or ref.startswith("s3n://")


def resolve(inputs: list[str], cfg) -> list[str]:
    """Expand SRC arguments into file references, in input order, without duplicates.

    ``cfg`` is the :class:`~config.IngestConfig`.
    """
    if not inputs:
        raise UsageError("ingest: no --input given")
    out: list[str] = []
    seen: set[str] = set()
    for src in inputs:
        src = str(src).strip()
        if not src:
            raise UsageError("ingest: empty --input")
        if manifest.is_manifest(src):
            refs = manifest.read(src, cfg)
        elif is_s3(src):
            refs = s3.resolve(src, cfg, WARC_SUFFIXES)
        else:
            refs = local.resolve(src, WARC_SUFFIXES)
        if not refs:
            raise UsageError(f"{src}: matches no WARC file")
        for r in refs:
            if r not in seen:
                seen.add(r)
                out.append(r)
    return out


def open_stream(ref: str, cfg, start: int = 0) -> BinaryIO:
    """A binary stream of one file (local or S3) from byte ``start``, read incrementally."""
    if is_s3(ref):
        return s3.open_object(ref, cfg, start)
    return local.open_file(ref, start)


def is_transient(exc: BaseException) -> bool:
    """Network trouble worth a retry (resets, timeouts, throttling), not damaged data."""
    return s3.is_transient(exc)


def iter_pages(ref: str, cfg, counts: Counts) -> Iterator:
    """The kept pages of one WARC file; see :func:`warc.read_file` for what is counted."""
    from .. import warc

    return warc.read_file(
        lambda start=0: open_stream(ref, cfg, start), ref, cfg, counts,
        transient=is_transient, attempts=cfg.file_attempts, backoff_s=cfg.file_retry_backoff_s, ranged=True,
    )


def fetch_page(ref: str, offset: int, cfg, counts: Counts):
    """The page of the record at byte ``offset`` of one WARC file (a ranged GET on S3, a seek
    locally), or None with the reason counted (``refetch_failed``, or the record's own skip
    reason).  Pure (no Spark): a Spark task calls it per row.  Transient failures are retried
    ``ingest.file_attempts`` times with backoff, like whole-file reads."""
    import time

    from .. import warc

    for attempt in range(1, max(1, cfg.file_attempts) + 1):
        got = Counts()
        stream = None
        try:
            stream = open_stream(ref, cfg, int(offset))
            for page in warc.iter_records(stream, ref, cfg, got, base=int(offset), transient=is_transient):
                return page if page.warc_offset == int(offset) else None
            break
        except Exception as e:  # noqa: BLE001
            if is_transient(e) and attempt < cfg.file_attempts:
                time.sleep(cfg.file_retry_backoff_s * (2 ** (attempt - 1)))
                continue
            counts.add("refetch_failed")
            return None
        finally:
            if stream is not None:
                try:
                    stream.close()
                except Exception:  # noqa: BLE001
                    pass
    reasons = [k for k in got.as_dict() if k != warc.RECORDS]
    counts.add(reasons[0] if reasons else "refetch_failed")
    return None
