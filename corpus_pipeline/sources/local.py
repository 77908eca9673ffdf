"""Local WARC files: paths, ``file://`` URIs, directories (recursive) and globs."""
from __future__ import annotations

import glob
import os
from typing import BinaryIO

_GLOB_CHARS = set("*?[")


def strip_file_scheme(src: str) -> str:
    return src[len("file://"):] if src.startswith("file://") else src


def _is_warc_name(name: str, suffixes) -> bool:
    return name.lower().endswith(tuple(suffixes))


def _expand_dir(d: str, suffixes) -> list[str]:
    out = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            if _is_warc_name(f, suffixes):
                out.append(os.path.abspath(os.path.join(root, f)))
    return out


def resolve(src: str, suffixes) -> list[str]:
    """Files named by ``src``: an explicit file is taken whatever its name; directories
    and globs contribute files ending in a WARC/ARC suffix.  Empty list: nothing matched."""
    path = os.path.expanduser(strip_file_scheme(src))
    if any(c in path for c in _GLOB_CHARS):
        out = []
        for m in sorted(glob.glob(path, recursive=True)):
            if os.path.isdir(m):
                out.extend(_expand_dir(m, suffixes))
            elif os.path.isfile(m) and _is_warc_name(m, suffixes):
                out.append(os.path.abspath(m))
        return out
    if os.path.isdir(path):
        return _expand_dir(path, suffixes)
    if os.path.isfile(path):
        return [os.path.abspath(path)]
    return []


def open_file(ref: str, start: int = 0) -> BinaryIO:
    f = open(strip_file_scheme(ref), "rb", buffering=1 << 16)
    if start:
        f.seek(start)
    return f
