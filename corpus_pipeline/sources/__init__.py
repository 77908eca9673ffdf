"""Where WARCs come from: local files and globs, ``s3://`` objects and prefixes, any Hadoop
filesystem (``hdfs://``, ``gs://``, ``abfs://``, ``file://``, ...), ``http(s)://`` URLs and
``warc.paths`` manifests.

* :func:`resolve` (driver side) expands the user's ``SRC`` arguments into a
  list of file references (absolute local paths, ``s3://bucket/key``, qualified
  Hadoop URIs, URLs), raising :class:`~errors.UsageError` for an input that
  matches nothing, and, given the SparkSession, for local paths that a
  non-local master's executors cannot read (:func:`check_shared`).
* :func:`open_stream` opens one reference as a binary stream (never read whole).
* :func:`iter_pages` reads one reference into :class:`~warc.WarcPage` objects,
  re-opening after transient failures (``ingest.file_attempts``) at the last
  record already processed (a ranged GET on S3 and HTTP, a seek on Hadoop
  filesystems), so nothing is yielded twice.
"""
from __future__ import annotations

import io
import os
import time
from typing import BinaryIO, Iterator, Optional

from .. import warc
from ..counters import Counts
from ..errors import NoInputError, UsageError, shown_master
from .. import fs as fsmod
from ..noinput import no_input_message
from . import hadoop, http, local, manifest, s3

WARC_SUFFIXES = (".warc.gz", ".warc", ".arc.gz", ".arc")


def is_s3(ref: str) -> bool:
    return ref.startswith("s3://") or ref.startswith("s3a://") or ref.startswith("s3n://")


def kind(ref: str) -> str:
    """``local`` (a path of this machine), ``s3``, ``http`` or ``hadoop`` (any other scheme, ``file://`` too)."""
    if is_s3(ref):
        return "s3"
    if http.is_http(ref):
        return "http"
    if "://" not in ref:
        return "local"
    return "hadoop"


def is_local_master(master: Optional[str]) -> bool:
    """Masters whose executors share the driver's filesystem: ``local``, ``local[N]``, ``local-cluster[...]``."""
    m = (master or "local").strip().lower()
    return m == "local" or m.startswith("local[") or m.startswith("local-cluster[")


def local_paths_error(paths: list[str], master: str) -> UsageError:
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return UsageError(
        f"{shown}: a local path, but the Spark master is {shown_master(master)}: executors on other machines cannot "
        f"read this machine's files (they would all count as file_not_found). Put the WARCs where every "
        f"node reads them (hdfs://..., s3://..., gs://..., abfs://..., https://...), or, if the path is "
        f"on a filesystem every node mounts at the same place (NFS, a cluster filesystem), say so with "
        f"--set ingest.shared_local_paths=true or give it as a file:// URI.")


def check_shared(inputs: list[str], master: Optional[str], cfg) -> None:
    """UsageError when a non-local master would get local input paths (no I/O, no JVM).

    Checks the ``SRC`` arguments (or resolved references) themselves; for
    manifests, a local ``ingest.manifest_base`` (relative lines become local paths).
    """
    if is_local_master(master) or cfg.shared_local_paths:
        return
    bad = []
    for src in inputs:
        src = str(src).strip()
        if manifest.is_manifest(src):
            if kind(cfg.manifest_base) == "local":
                bad.append(f"{src} (relative lines against ingest.manifest_base={cfg.manifest_base})")
        elif kind(src) == "local":
            bad.append(src)
    if bad:
        raise local_paths_error(bad, str(master))


def check_shared_run(run: str, master: Optional[str], cfg) -> None:
    """UsageError when a Spark Connect endpoint (not ``local[...]``) would get a local run folder: its
    executors write the tables there, the client reads them back (no I/O, no JVM)."""
    remote = str(master or "").startswith("sc://")
    if not remote or is_local_master(master) or cfg.shared_local_paths or kind(run) != "local":
        return
    raise UsageError(f"{run}: a local run folder, but the Spark master is the Spark Connect endpoint "
                     f"{shown_master(master)}: its executors write the run's tables and the client reads them "
                     f"back, so the run folder must be on storage both reach (s3://..., hdfs://..., gs://..., "
                     f"abfs://..., dbfs:/...), or, on a filesystem both mount at the same place, say so with "
                     f"--set ingest.shared_local_paths=true.")


def resolve(inputs: list[str], cfg, spark=None, list_hadoop: bool = True, master: Optional[str] = None
            ) -> list[str]:
    """Expand SRC arguments into file references, in input order, without duplicates.

    ``cfg`` is the :class:`~config.IngestConfig`.  Hadoop URIs are listed through
    ``spark``'s JVM (the active session when None); ``list_hadoop=False`` keeps
    them as given (a dry run, no JVM).  With ``master`` (the session's master URL),
    local references are refused for a non-local master (:func:`check_shared`).
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
            refs = read_manifest(src, cfg, spark)
        elif kind(src) == "s3":
            refs = s3.resolve(src, cfg, WARC_SUFFIXES)
        elif kind(src) == "http":
            refs = http.resolve(src, cfg, WARC_SUFFIXES)
        elif kind(src) == "hadoop":
            refs = hadoop.resolve(src, WARC_SUFFIXES, spark) if list_hadoop else [src]
        else:
            refs = local.resolve(src, WARC_SUFFIXES)
        if not refs:
            raise UsageError(f"{src}: matches no WARC file")
        for r in refs:
            if r not in seen:
                seen.add(r)
                out.append(r)
    for scheme in sorted({hadoop.scheme(r) for r in out if kind(r) == "hadoop"}):
        hadoop.check_readable(next(r for r in out if hadoop.scheme(r) == scheme))
    if master is not None:
        if not is_local_master(master) and not cfg.shared_local_paths:
            bad = [r for r in out if kind(r) == "local"]
            if bad:
                raise local_paths_error(bad, master)
    return out


def sniff_local(ref: str) -> Optional[str]:
    """Why the local file ``ref`` cannot be a WARC by its first bytes (:func:`warc.sniff`):
    ``file_not_found``, ``file_failed`` (cannot be opened), ``empty_file``, ``not_warc``; None when it
    may be one."""
    try:
        with local.open_file(ref) as f:
            head = f.read(warc.SNIFF_BYTES)
    except FileNotFoundError:
        return "file_not_found"
    except OSError:
        return "file_failed"
    return warc.sniff(head)


def precheck(inputs: list[str], cfg) -> Optional[dict]:
    """Before any Spark work: when every input is local (files, folders, globs, and manifests on this
    machine whose lines are local paths), the first bytes of each file (:func:`sniff_local`).  Raises
    :class:`~errors.NoInputError` (exit 2, one line naming the files and why) when none can be a WARC,
    :class:`~errors.UsageError` when an input matches nothing; returns {file: reason} of the files that
    are skipped beside good ones (the reader counts them again), or None when an input is not local
    (checked where it is read)."""
    for src in inputs:
        src = str(src).strip()
        if kind(src) != "local" and not src.startswith("file://"):
            return None
        if manifest.is_manifest(src) and kind(cfg.manifest_base) != "local":
            return None
    refs = resolve(inputs, cfg, list_hadoop=False)
    if any(kind(r) != "local" for r in refs):
        return None
    bad = {}
    for r in refs:
        why = sniff_local(r)
        if why is not None:
            bad[r] = why
    if len(bad) == len(refs):
        raise NoInputError(no_input_message({r: {why: 1} for r, why in bad.items()}, len(refs)))
    return bad


def read_manifest(src: str, cfg, spark=None) -> list[str]:
    """The file references a ``warc.paths`` manifest lists (UsageError when it cannot be read).

    The manifest may be local, on S3, on HTTP or on a Hadoop filesystem (read on the driver through
    ``spark``'s JVM, or the active session's; through pyarrow without a classic session).
    """
    ref = src
    if "://" not in src or src.startswith("file://"):
        path = local.strip_file_scheme(src)
        if not os.path.isfile(path):
            raise UsageError(f"{src}: manifest not found")
        ref = os.path.abspath(path)
    try:
        if kind(ref) == "hadoop":
            raw = io.BytesIO(fsmod.get_fs(ref, spark).read_bytes(ref))   # the JVM's on a classic session
        else:
            raw = open_stream(ref, cfg)
    except FileNotFoundError as e:
        raise UsageError(f"{src}: manifest not found") from e
    except Exception as e:  # noqa: BLE001
        raise UsageError(f"{src}: cannot open manifest: {e}") from e
    return manifest.parse_stream(raw, src, cfg.manifest_base)


def open_stream(ref: str, cfg, start: int = 0, counts: Optional[Counts] = None) -> BinaryIO:
    """A binary stream of one file from byte ``start``, read incrementally.

    ``counts`` receives ``http_retries`` (request attempts retried on HTTP).
    """
    k = kind(ref)
    if k == "s3":
        return s3.open_object(ref, cfg, start)
    if k == "http":
        on_retry = (lambda: counts.add("http_retries")) if counts is not None else None
        return http.open_url(ref, cfg, start, on_retry)
    if k == "hadoop":
        return hadoop.open_file(ref, start)
    return local.open_file(ref, start)


def is_transient(exc: BaseException) -> bool:
    """Network trouble worth a retry (resets, timeouts, throttling, storage read errors), not damaged data."""
    return s3.is_transient(exc)


def iter_pages(ref: str, cfg, counts: Counts) -> Iterator:
    """The kept pages of one WARC file; see :func:`warc.read_file` for what is counted."""

    return warc.read_file(
        lambda start=0: open_stream(ref, cfg, start, counts), ref, cfg, counts,
        transient=is_transient, attempts=cfg.file_attempts, backoff_s=cfg.file_retry_backoff_s, ranged=True,
    )


def fetch_page(ref: str, offset: int, cfg, counts: Counts):
    """The page of the record at byte ``offset`` of one WARC file (a ranged GET on S3, a seek
    locally), or None with the reason counted (``refetch_failed``, or the record's own skip
    reason).  Pure (no Spark): a Spark task calls it per row.  Transient failures are retried
    ``ingest.file_attempts`` times with backoff, like whole-file reads."""


    for attempt in range(1, max(1, cfg.file_attempts) + 1):
        got = Counts()
        stream = None
        try:
            stream = open_stream(ref, cfg, int(offset))
            for page in warc.iter_records(stream, ref, cfg, got, base=int(offset), transient=is_transient):
                if page.warc_offset == int(offset):
                    return page
                counts.add("refetch_failed")     # the offset held another record than the one asked for
                return None
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
