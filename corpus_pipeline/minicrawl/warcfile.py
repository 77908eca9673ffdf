"""A tiny deterministic WARC/1.0 writer: one gzip member per record, gzip mtime 0 (pure I/O)."""
from __future__ import annotations

import base64
import hashlib
import zlib


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


class WarcFile:
    """Append records to a ``.warc.gz``; ``record(..., truncate=True)`` writes a gzip member cut short."""

    def __init__(self, path, level: int = 6):
        self.path = path
        self.level = level
        self.f = open(path, "wb")
        self.records = 0
        self.bytes = 0

    def record(self, headers: list[tuple[str, str]], block: bytes, truncate: bool = False) -> int:
        """Write one record; returns its offset in the file."""
        head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
        head += f"Content-Length: {len(block)}\r\n\r\n"
        raw = head.encode("utf-8") + block + b"\r\n\r\n"
        c = zlib.compressobj(self.level, zlib.DEFLATED, 31)   # gzip wrapper: mtime 0, no file name
        data = c.compress(raw) + c.flush()
        if truncate:
            data = data[: max(10, len(data) // 2)]
        off = self.bytes
        self.f.write(data)
        self.bytes += len(data)
        self.records += 1
        return off

    def close(self) -> None:
        self.f.close()
