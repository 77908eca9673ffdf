"""Bulk-pass extraction speed at two commits, side by side in one run.

    python -m bench.extract_vs BASE [--rounds 3] [--extractor resiliparse]

``extract_html`` (the Spark-free bulk-pass call, ``ingest.extractor``'s default unless
``--extractor``) over the HTML responses of ``warc/derived_minicrawl`` (245 real pages, as
``bench ingest`` reads them), in a child process per (commit, round): BASE's package exported with
``git archive``, the working tree as it is; rounds alternate BASE / working tree so load drift hits
both alike.  Each child reports pages/s/core from its CPU time (``time.process_time``) after one
warm-up pass; the median per side and their ratio are printed.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()

_CHILD = r"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from bench.bench_ingest import _files
from corpus_pipeline.extract import extract_html
from corpus_pipeline.warc import decode_html
import warcio
pages = []
for f in _files():
    with open(f, "rb") as fh:
        for rec in warcio.ArchiveIterator(fh):
            if rec.rec_type != "response" or rec.http_headers is None:
                continue
            if "html" not in (rec.http_headers.get_header("Content-Type") or ""):
                continue
            html = decode_html(rec.content_stream().read(), rec.http_headers.get_header("Content-Type"))[0]
            if html:
                pages.append((rec.rec_headers.get_header("WARC-Target-URI"), html))
for u, h in pages[:20]:
    extract_html(h, u, extractor=sys.argv[2])
t0 = time.process_time()
for u, h in pages:
    extract_html(h, u, extractor=sys.argv[2])
cpu = time.process_time() - t0
import corpus_pipeline
print(json.dumps({"pages": len(pages), "rate": len(pages) / cpu, "package": corpus_pipeline.__file__}))
"""


def _export(commit: str, dest: Path) -> Path:
    tar = dest / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(tar), commit, "corpus_pipeline", "bench"],
                   check=True)
    with tarfile.open(tar) as t:
        t.extractall(dest, filter="data")
    return dest


def _rate(src: Path, extractor: str) -> dict:
    env = dict(os.environ, CORPUS_PIPELINE_DATA=str(data_dir()))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(src), extractor], capture_output=True, text=True,
                         cwd=str(src), env=env)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["package"].startswith(str(src)), res["package"]   # that commit's code, not the installed one
    return res


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--extractor", default="resiliparse")
    a = ap.parse_args(argv if argv is not None else sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        base = _export(a.base, Path(tmp))
        rates = {"base": [], "head": []}
        n = 0
        for _ in range(a.rounds):
            for side, src in (("base", base), ("head", ROOT)):
                r = _rate(src, a.extractor)
                rates[side].append(r["rate"])
                n = r["pages"]
    b, h = statistics.median(rates["base"]), statistics.median(rates["head"])
    print(f"{n} pages, extractor {a.extractor}, {a.rounds} rounds alternating")
    print(f"  {a.base[:12]:<14} {b:7.1f} pages/s/core  ({', '.join(f'{x:.1f}' for x in rates['base'])})")
    print(f"  {'working tree':<14} {h:7.1f} pages/s/core  ({', '.join(f'{x:.1f}' for x in rates['head'])})")
    print(f"  ratio {h / b:.3f}")


if __name__ == "__main__":
    main()
