"""``warc.paths`` / ``warc.paths.gz`` manifests: one path a line.

Relative lines are resolved against ``ingest.manifest_base`` (by default
Common Crawl's bucket, ``s3://commoncrawl/``; ``https://data.commoncrawl.org/``
outside AWS; any other URI or a local folder); absolute lines (``s3://...``,
``https://...``, ``hdfs://...``, ``file://...``, ``/...``) are taken as they are.
The manifest itself may be local, on S3, on HTTP or on a Hadoop filesystem.  Blank
lines and ``#`` comments are ignored.  Entries are not checked one by one (a
crawl's manifest lists ~90,000 files): a missing one is counted when read.
"""
from __future__ import annotations

import gzip
import io
import os

from ..errors import InputFileError


def is_manifest(src: str) -> bool:
    name = src.rstrip("/").rsplit("/", 1)[-1].lower()
    return name.endswith(".paths") or name.endswith(".paths.gz") or name in ("paths", "paths.gz")


def join_base(base: str, rel: str) -> str:
    rel = rel.lstrip("/") if "://" in base else rel
    if "://" in base:
        return base.rstrip("/") + "/" + rel
    return os.path.abspath(os.path.join(os.path.expanduser(base), rel))


def parse_lines(lines, base: str) -> list[str]:
    out = []
    for line in lines:
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if "://" in s:
            out.append(s)
        elif s.startswith("/"):
            out.append(s)
        else:
            out.append(join_base(base, s))
    return out


def parse_stream(raw, src: str, base: str) -> list[str]:
    """The file references of the manifest ``src`` from its open binary stream ``raw`` (gunzipped when
    the name ends in ``.gz``); closes the stream."""
    try:
        stream = gzip.GzipFile(fileobj=raw) if src.lower().endswith(".gz") else raw
        return parse_lines(io.TextIOWrapper(stream, encoding="utf-8"), base)
    except (OSError, UnicodeDecodeError, EOFError) as e:
        raise InputFileError(src, f"not a readable warc.paths manifest: {e}") from e
    finally:
        raw.close()
