"""`corpus-pipeline minicrawl --out DIR [--pages N] [--random-seed S] [--label-domain code] [--code-sites]`: a deterministic, labeled local crawl.

Writes ``DIR/warc/*.warc.gz`` (gzip WARCs: warcinfo, request and response
records), ``DIR/labels.jsonl`` (one ``{"url", "label"}`` per response URL) and
``DIR/manifest.json`` (counts per host, path prefix, document kind, maths
markup and phenomenon).  Same arguments give byte-identical files.

``--label-domain code`` also writes ``DIR/labels_code.jsonl``: the same URLs
labelled ``code`` (programming pages) or ``non-code``.  The WARCs and
``labels.jsonl`` are the same with and without it.

``--code-sites`` adds three hosts where only some path prefixes hold programming
pages (askcode.dev: /questions/; devnotes.io: /tutorials/; techweekly.net: part of
/howto/), so the code domain's path step has something to find; it is meant with
``--label-domain code``.  It makes a different crawl (their pages are ``non-math``
in ``labels.jsonl``); without it the files are what they were before the option.
"""
from __future__ import annotations

import time

from ..errors import UsageError
from ..minicrawl import generate


def add_arguments(p) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="Output folder (warc/, labels.jsonl, manifest.json).")
    p.add_argument("--pages", type=int, default=3000, metavar="N", help="Number of response records (default 3000).")
    p.add_argument("--random-seed", type=int, default=1, metavar="S", help="Random seed (default 1); the same arguments give byte-identical files.")
    p.add_argument("--label-domain", action="append", default=[], choices=["code"], metavar="DOMAIN",
                   help="Also label the same crawl for another domain profile (repeatable): 'code' writes "
                        "DIR/labels_code.jsonl, each URL labelled code or non-code; the WARCs and labels.jsonl "
                        "stay the same.")
    p.add_argument("--code-sites", action="store_true",
                   help="Add three programming sites where only some path prefixes hold code (askcode.dev "
                        "/questions/, devnotes.io /tutorials/, techweekly.net /howto/): a different crawl, meant "
                        "with --label-domain code; their pages are non-math (default: off, the crawl is unchanged).")


def _check(args) -> None:
    if args.pages < 1:
        raise UsageError(f"--pages must be >= 1 (got {args.pages})")
    if args.random_seed < 0:
        raise UsageError(f"--random-seed must be >= 0 (got {args.random_seed})")


def plan(args, cfg) -> list[str]:
    _check(args)
    sites = " (with the code sites)" if getattr(args, "code_sites", False) else ""
    return [f"generate {args.pages} pages with random seed {args.random_seed}{sites}",
            f"write {args.out}/warc/minicrawl-{args.random_seed}-NNNNN.warc.gz, {args.out}/labels.jsonl, "
            f"{args.out}/manifest.json"] + [f"write {args.out}/labels_{d}.jsonl" for d in _domains(args)]


def _domains(args) -> list[str]:
    return sorted(set(getattr(args, "label_domain", None) or []))


def run(args, cfg) -> int:
    _check(args)

    t0 = time.perf_counter()
    m = generate(args.out, pages=args.pages, random_seed=args.random_seed, label_domains=_domains(args),
                 code_sites=bool(getattr(args, "code_sites", False)))
    dt = time.perf_counter() - t0
    lc = m["label_counts"]
    size = sum(f["bytes"] for f in m["files"])
    print(f"minicrawl: {m['responses']} responses, {m['labels']} labelled URLs "
          f"(math {lc['math']}, non-math {lc['non-math']}, ambiguous {lc['ambiguous']}), {m['n_hosts']} hosts, "
          f"{len(m['files'])} WARC files, {size / 1e6:.1f} MB in {dt:.1f} s -> {args.out}")
    if m.get("code_sites"):
        print(f"minicrawl: code sites {', '.join(m['code_sites'])}: "
              f"{sum(m['hosts'].get(h, {}).get('urls', 0) for h in m['code_sites'])} labelled URLs")
    for d, dm in sorted(m.get("label_domains", {}).items()):
        counts = ", ".join(f"{k} {v}" for k, v in dm["label_counts"].items())
        print(f"minicrawl: {dm['file']}: {counts}; {d} pages on {len(dm[d + '_hosts'])} hosts")
    return 0
