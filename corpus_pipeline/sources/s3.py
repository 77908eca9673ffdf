"""S3 through boto3 (the project's only boto3 user).

* Anonymous (unsigned) requests for buckets in ``ingest.s3_anonymous_buckets``
  (``commoncrawl``) or for every bucket when ``ingest.s3_anonymous`` is true;
  the standard credential chain otherwise (``s3_anonymous = false`` forces it).
* ``ingest.s3_endpoint_url`` points at another S3 (a loopback server in tests).
* botocore's "standard" retry mode retries 503 SlowDown, 5xx, resets and
  timeouts per request with exponential backoff and jitter, up to
  ``ingest.s3_max_attempts`` attempts.  A failure in the middle of a streamed
  body is not a request failure: :func:`sources.iter_pages` re-opens the object
  with a ranged GET at the last processed record and goes on from there.
* Listing (driver side) is paginated; a key may contain a glob (``*.warc.gz``).
"""
from __future__ import annotations

import fnmatch
import threading
from typing import BinaryIO

from ..errors import UsageError
from . import stream
from .stream import Body

_clients: dict = {}
_lock = threading.Lock()


def parse_uri(uri: str) -> tuple[str, str]:
    rest = uri.split("://", 1)[1]
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise UsageError(f"{uri}: no bucket in S3 URI")
    return bucket, key


def anonymous_for(bucket: str, cfg) -> bool:
    if cfg.s3_anonymous is not None:
        return bool(cfg.s3_anonymous)
    return bucket in (cfg.s3_anonymous_buckets or [])


def client(bucket: str, cfg):
    """A cached boto3 S3 client for this bucket's access mode (one per process and settings)."""
    anon = anonymous_for(bucket, cfg)
    key = (anon, cfg.s3_endpoint_url, cfg.s3_max_attempts, cfg.s3_read_timeout_s, cfg.s3_connect_timeout_s)
    with _lock:
        c = _clients.get(key)
        if c is None:
            import boto3
            from botocore import UNSIGNED
            from botocore.config import Config as BotoConfig

            bc = BotoConfig(
                retries={"max_attempts": int(cfg.s3_max_attempts), "mode": "standard"},
                read_timeout=float(cfg.s3_read_timeout_s),
                connect_timeout=float(cfg.s3_connect_timeout_s),
                signature_version=UNSIGNED if anon else None,
            )
            c = boto3.session.Session().client("s3", endpoint_url=cfg.s3_endpoint_url, config=bc)
            _clients[key] = c
    return c


def _is_not_found(e: BaseException) -> bool:
    resp = getattr(e, "response", None) or {}
    code = str(resp.get("Error", {}).get("Code", ""))
    status = resp.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in ("404", "NoSuchKey", "NotFound", "NoSuchBucket") or status == 404


def list_keys(bucket: str, prefix: str, cfg, page_size: int = 1000) -> list[str]:
    paginator = client(bucket, cfg).get_paginator("list_objects_v2")
    keys = []
    for page in paginator.paginate(Bucket=bucket, Prefix=prefix, PaginationConfig={"PageSize": page_size}):
        for obj in page.get("Contents", []) or []:
            keys.append(obj["Key"])
    return keys


def exists(bucket: str, key: str, cfg) -> bool:
    try:
        client(bucket, cfg).head_object(Bucket=bucket, Key=key)
        return True
    except Exception as e:  # noqa: BLE001
        if _is_not_found(e):
            return False
        raise


def resolve(src: str, cfg, suffixes) -> list[str]:
    """Object URIs for ``s3://bucket/key``, ``s3://bucket/prefix/`` or a key glob."""
    bucket, key = parse_uri(src)
    scheme_bucket = f"s3://{bucket}/"
    try:
        if any(c in key for c in "*?["):
            cut = min(key.index(c) for c in "*?[" if c in key)
            prefix = key[:cut]
            keys = [k for k in list_keys(bucket, prefix, cfg) if fnmatch.fnmatchcase(k, key)]
            return [scheme_bucket + k for k in sorted(keys) if k.lower().endswith(tuple(suffixes))]
        if key and not key.endswith("/") and exists(bucket, key, cfg):
            return [scheme_bucket + key]
        prefix = key if (not key or key.endswith("/")) else key + "/"
        keys = list_keys(bucket, prefix, cfg)
        return [scheme_bucket + k for k in sorted(keys) if k.lower().endswith(tuple(suffixes))]
    except UsageError:
        raise
    except Exception as e:  # noqa: BLE001
        if _is_not_found(e):
            return []
        raise UsageError(f"{src}: cannot list S3 objects: {type(e).__name__}: {e}") from e


def open_object(uri: str, cfg, start: int = 0) -> BinaryIO:
    """The object's body from byte ``start`` (a ranged GET when > 0), streamed."""
    bucket, key = parse_uri(uri)
    extra = {"Range": f"bytes={int(start)}-"} if start else {}
    try:
        resp = client(bucket, cfg).get_object(Bucket=bucket, Key=key, **extra)
    except Exception as e:  # noqa: BLE001
        if _is_not_found(e):
            raise FileNotFoundError(uri) from e
        raise
    body = resp["Body"]
    return Body(lambda n=-1: body.read(None if n is None or n < 0 else n), body.close, name=uri)


_TRANSIENT_CODES = {"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "RequestTimeoutException",
                    "InternalError", "ServiceUnavailable", "503", "500", "502", "504"}


def _botocore_transient(e: BaseException) -> bool:
    if not (type(e).__module__ or "").startswith("botocore"):
        return False
    if type(e).__name__ in ("ReadTimeoutError", "ConnectTimeoutError", "EndpointConnectionError",
                            "ConnectionClosedError", "IncompleteReadError", "ResponseStreamingError",
                            "ProxyConnectionError", "ConnectionError", "HTTPClientError"):
        return True
    resp = getattr(e, "response", None) or {}
    code = str(resp.get("Error", {}).get("Code", ""))
    status = resp.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
    return code in _TRANSIENT_CODES or int(status) >= 500


def is_transient(exc: BaseException) -> bool:
    """Resets, timeouts, throttling and 5xx (after botocore's own retries), anywhere in the chain."""
    return stream.is_transient(exc, _botocore_transient)
