"""`corpus-pipeline fetch-benchmarks --out DIR`: download the public test sets.

Writes them in the layout ``decontaminate --benchmarks DIR`` reads (see
``corpus_pipeline/benchmark_formats.py``: ``gsm8k/test.jsonl``, ``math/test.jsonl``,
``agieval/<task>.jsonl``, ``mgsm/mgsm_zh.jsonl``, ``extra/<name>_test.jsonl`` ...).
Needs network access; nothing else in the project downloads at run time.
Every downloaded file is checked with the same loader ``decontaminate`` uses
before it is moved into place (a Git LFS pointer or an HTML error page fails).
"""
from __future__ import annotations

import os
import sys
import tempfile
import urllib.request
from pathlib import Path

from ..benchmark_formats import downloads
from ..decontam import identify, read_benchmark_file
from ..errors import UsageError


def sources() -> list[tuple[str, str, str]]:
    """(benchmark group, URL, destination relative to the output folder), in download order: every
    registered benchmark format's downloads (:mod:`corpus_pipeline.benchmark_formats`)."""

    return downloads()


def _selected(only: list[str]) -> list[tuple[str, str, str]]:
    srcs = sources()
    if not only:
        return srcs
    names = {g for g, _u, _d in srcs} | {identify(d)[0] for _g, _u, d in srcs}
    bad = [o for o in only if o not in names]
    if bad:
        raise UsageError(f"--only: unknown benchmark(s) {', '.join(bad)} (known: {', '.join(sorted(names))})")
    return [s for s in srcs if s[0] in only or identify(s[2])[0] in only]


def add_arguments(p) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="Folder to write the benchmark files into.")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="Fetch only this benchmark or group (gsm8k, agieval, extra, aime24 ...); repeatable.")
    p.add_argument("--force", action="store_true", help="Download again even when the file exists.")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="Seconds per request (default 60).")


def plan(args, cfg) -> list[str]:
    return [f"download {url} -> {os.path.join(args.out, dest)}" for _g, url, dest in _selected(args.only)]


def _download(url: str, dest: Path, timeout: float) -> int:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "corpus-pipeline fetch-benchmarks"})
        with urllib.request.urlopen(req, timeout=timeout) as resp, os.fdopen(fd, "wb") as out:
            while True:
                chunk = resp.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        name, fmt = identify(dest.parent.name + "/" + dest.name)
        n = len(read_benchmark_file(tmp, name, fmt))  # InputFileError when it is not the expected format
        os.replace(tmp, dest)
        return n
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def run(args, cfg) -> int:
    failed = 0
    out = Path(args.out)
    for _group, url, rel in _selected(args.only):
        dest = out / rel
        if dest.exists() and not args.force:
            print(f"[skip]  {rel} (exists; --force to download again)")
            continue
        try:
            n = _download(url, dest, args.timeout)
            print(f"[saved] {rel}: {n} items from {url}")
        except Exception as e:  # noqa: BLE001 - one failed source does not stop the others
            failed += 1
            print(f"[fail]  {rel}: {url}: {e}", file=sys.stderr)
    if failed:
        print(f"{failed} file(s) could not be fetched", file=sys.stderr)
        return 1
    print(f"benchmarks in {out}: use `corpus-pipeline decontaminate --benchmarks {out} ...`")
    return 0
