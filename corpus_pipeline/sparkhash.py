"""Spark SQL's ``xxhash64`` in pure Python (no Spark), for pure cores that must decide exactly
as a Spark expression does: the held-out split of the classifier's documents is computed in
Spark by ``train_iteration`` and in memory by ``corpus-pipeline train``, and both call a
document held out by the same hash.

Spark hashes its arguments in order, each with the previous result as seed (the first with 42):
an ``int`` that fits in 32 bits as 4 little-endian bytes (``IntegerType``, what ``F.lit`` makes of a
small Python int), a larger one as 8 (``LongType``), a string as its UTF-8 bytes, ``None`` leaves
the hash unchanged. Each step is the standard XXH64 of those bytes. The result is a signed 64-bit
integer, as Spark returns it.
"""
from __future__ import annotations

import struct

_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5
_M = (1 << 64) - 1
SPARK_SEED = 42


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _M, 31) * _P1) & _M


def _merge(h: int, acc: int) -> int:
    return ((h ^ _round(0, acc)) * _P1 + _P4) & _M


def xxh64(data: bytes, seed: int) -> int:
    """The standard XXH64 of ``data`` (unsigned 64-bit result; ``seed`` taken modulo 2**64)."""
    seed &= _M
    n = len(data)
    i = 0
    if n >= 32:
        v1, v2, v3, v4 = (seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M
        lanes = struct.unpack_from(f"<{(n // 32) * 4}Q", data)
        for k in range(0, len(lanes), 4):
            v1 = _round(v1, lanes[k])
            v2 = _round(v2, lanes[k + 1])
            v3 = _round(v3, lanes[k + 2])
            v4 = _round(v4, lanes[k + 3])
        i = (n // 32) * 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        (lane,) = struct.unpack_from("<Q", data, i)
        h = (_rotl(h ^ _round(0, lane), 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        (lane,) = struct.unpack_from("<I", data, i)
        h = (_rotl(h ^ (lane * _P1) & _M, 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ (data[i] * _P5) & _M, 11) * _P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M
    h ^= h >> 29
    h = (h * _P3) & _M
    h ^= h >> 32
    return h


def spark_xxhash64(*values) -> int:
    """What Spark SQL's ``xxhash64(values...)`` returns for these literals (ints, strings, None)."""
    h = SPARK_SEED
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            raise TypeError("booleans are not hashed here")
        if isinstance(v, int):
            data = struct.pack("<i", v) if -2 ** 31 <= v < 2 ** 31 else struct.pack("<q", v)
        elif isinstance(v, str):
            data = v.encode("utf-8")
        else:
            raise TypeError(f"cannot hash {type(v).__name__} as Spark does")
        h = xxh64(data, h)
    return h - (1 << 64) if h >= 1 << 63 else h


def unit_interval(*values) -> float:
    """``xxhash64(values) / 2**64 + 0.5``: the hash as a number in [0, 1), as Spark computes it."""
    return spark_xxhash64(*values) / 2.0 ** 64 + 0.5
