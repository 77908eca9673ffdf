"""`corpus-pipeline inspect RUN`: look at pages of a run, as text or JSON.

Sections: pages of ``--host`` (and ``--prefix``) first, its collected and its missed pages each by
score; collected pages nearest the selection threshold and far above it (latest iteration or
``--iteration``), removed near duplicates with their
similarity and the page kept instead (``RUN/pages_duplicates``), and decontamination removals with
the benchmark item they matched (``RUN/final/contamination``; the item's text when the benchmarks
folder the run used is readable).  ``--show`` picks sections.  Nothing is written.

The run folder is read with pyarrow (:mod:`corpus_pipeline.arrowrun`: a local disk or object
storage, no JVM); ``--spark`` (or a run folder only Hadoop reads, ``hdfs://``) reads it with Spark.
"""
from __future__ import annotations

import json
import sys
from functools import partial

from .. import arrowrun
from .. import fs as fsmod
from ..errors import UsageError
from ..pipeline.runview import open_view

SECTIONS = ("collected", "pages", "duplicates", "contamination")


def add_arguments(p) -> None:
    p.add_argument("run", metavar="RUN", help="Run folder.")
    p.add_argument("--iteration", type=int, metavar="N", help="Iteration to sample (default: the latest collected).")
    p.add_argument("--host", help="Show pages of this host.")
    p.add_argument("--prefix", help="With --host: only pages whose URL path starts with this, e.g. /questions/.")
    p.add_argument("-n", "--limit", type=int, default=5, metavar="K", help="Rows per section (default 5).")
    p.add_argument("--show", action="append", choices=SECTIONS, metavar="SECTION",
                   help=f"Sections to show (repeatable; default all): {', '.join(SECTIONS)}.")
    p.add_argument("--json", action="store_true", help="Print one JSON object instead of text.")
    p.add_argument("--spark", action="store_true",
                   help="Read the run folder with Spark instead of pyarrow (the same output; pyarrow starts no JVM).")


def plan(args, cfg) -> list[str]:
    how = ("with Spark" if getattr(args, "spark", False) or not arrowrun.readable(args.run)
           else "with pyarrow (no JVM)")
    return [f"read tables of {args.run} {how} and print up to {args.limit} rows per section (writes nothing)"]


def lookups(run_uri: str, spark=None):
    """The look-up functions of the run folder: pyarrow's (no JVM) without ``spark``, else Spark's, both
    called as ``f(rf, ...)`` (the same rows, the same order: tests/test_arrowrun.py)."""
    if spark is None:
        return arrowrun
    from ..spark import inspect as spark_inspect

    class Spark:
        collected_samples = partial(spark_inspect.collected_samples, spark)
        pages_of = partial(spark_inspect.pages_of, spark)
        near_duplicates = partial(spark_inspect.near_duplicates, spark)
        contamination = partial(spark_inspect.contamination, spark)
    return Spark


def gather(rf, cfg, args, L) -> dict:
    """What ``inspect`` shows, read through ``L`` (:func:`lookups`)."""
    its = [i for i in rf.iterations() if rf.committed("collected", i)]
    it = args.iteration if args.iteration is not None else (its[-1] if its else None)
    if args.iteration is not None and args.iteration not in its:
        raise UsageError(f"{args.run}: iteration {args.iteration} has no committed collection "
                         f"(iterations: {', '.join(map(str, its)) or 'none'})")
    show = args.show or [s for s in SECTIONS if s != "pages" or args.host]
    out: dict = {"run": rf.uri}
    if "pages" in show:                  # the host asked for comes first
        if not args.host:
            raise UsageError("--show pages needs --host")
        out["pages"] = L.pages_of(rf, it, args.host, args.prefix, args.limit)
    if "collected" in show and it is not None:
        thr = ((rf.stage_marker("collected", it) or {}).get("config", {}).get("select") or {}).get(
            "threshold", cfg.select.threshold)
        out["collected"] = L.collected_samples(rf, it, thr, args.limit)
    if "duplicates" in show:
        out["duplicates"] = L.near_duplicates(rf, args.limit)
    if "contamination" in show:
        out["contamination"] = L.contamination(rf, args.limit, arrowrun.benchmark_items(rf))
    return out


def run(args, cfg) -> int:
    if args.prefix and not args.host:
        raise UsageError("--prefix needs --host")
    if args.prefix and not args.prefix.startswith("/"):
        raise UsageError(f"--prefix must start with '/', got {args.prefix!r}")
    if args.limit < 1:
        raise UsageError("--limit must be >= 1")
    spark = None
    if args.spark or not arrowrun.readable(args.run):
        if fsmod.is_local(args.run):
            open_view(args.run, need_pages=True)               # before the JVM starts
        from ..spark.session import get_spark

        spark = get_spark(cfg.spark, quiet=True, run=args.run)
    rf = open_view(args.run, spark, need_pages=True)
    out = gather(rf, cfg, args, lookups(args.run, spark))
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1, default=str))
    else:
        sys.stdout.write(render_text(out))
    return 0


def _score(x) -> str:
    return "   –  " if x is None else f"{x:.3f}"


def _page_lines(rows: list, extra=lambda r: "") -> list[str]:
    out = []
    for r in rows:
        out.append(f"  {_score(r.get('score'))}  {r.get('url')}{extra(r)}")
        if r.get("title"):
            out.append(f"         title: {r['title']}")
        if r.get("excerpt"):
            out.append(f"         {r['excerpt']}")
    return out


def render_text(out: dict) -> str:
    lines = [f"run: {out['run']}"]
    p = out.get("pages")
    if p:
        where = p["host"] + (p["prefix"] or "")
        if p.get("iteration") is None:
            lines += ["", f"pages of {where}: {p['pages']}" + (f" (showing {len(p['rows'])})" if p["rows"] else "")]
            lines += _page_lines(p["rows"]) or ["  (none)"]
        else:
            got, missed = p["collected"], p["missed"]
            lines += ["", f"pages of {where}: {p['pages']}, iteration {p['iteration']} collected "
                          f"{p['collected_pages']}, missed {p['pages'] - p['collected_pages']}"]
            lines += ["", f"collected pages of {where}, highest score first"
                      + (f" (showing {len(got)})" if got else "") + ":"]
            lines += _page_lines(got) or ["  (none)"]
            lines += ["", f"missed pages of {where} (not collected), highest score first"
                      + (f" (showing {len(missed)})" if missed else "") + ":"]
            lines += _page_lines(missed) or ["  (none)"]
    c = out.get("collected")
    if c:
        lines += ["", f"collected pages of iteration {c['iteration']} nearest the threshold ({c['threshold']}):"]
        lines += _page_lines(c["near_threshold"]) or ["  (none)"]
        lines += ["", f"collected pages of iteration {c['iteration']} far above the threshold:"]
        lines += _page_lines(c["far_above"]) or ["  (none)"]
    d = out.get("duplicates")
    if d is not None:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted((d.get("by_kind") or {}).items()))
        lines += ["", f"near duplicates removed: {d['total']} (least similar first)"
                  + (f"; duplicates by kind: {kinds}" if kinds else "")]
        for r in d["pairs"]:
            sim = "exact" if r.get("similarity") is None else f"{r['similarity']:.3f}"
            lines.append(f"  {r['page_id']} ({r.get('kind')}, similarity {sim}) -> kept {r.get('kept_url')}")
            if r.get("kept_excerpt"):
                lines.append(f"         {r['kept_excerpt']}")
        if not d["pairs"]:
            lines.append("  (none)")
    k = out.get("contamination")
    if k is not None:
        if not k["decontaminated"]:
            lines += ["", "decontamination: not run (no --benchmarks) or not finished"]
        else:
            lines += ["", f"decontamination removals: {k['total']}"]
            for r in k["rows"]:
                lines.append(f"  {r['action']} ({r['reason']}): {r.get('url') or r['page_id']}")
                lines.append(f"         matched {r['benchmark']} item {r['item_id']}"
                             + (f": {r['item_text'][:200]}" if r.get("item_text") else ""))
                if r.get("evidence"):
                    lines.append(f"         evidence: {r['evidence'][:300]}")
                if r.get("removed_text"):
                    lines.append("         removed: " + " / ".join(r["removed_text"].splitlines())[:300])
            if not k["rows"]:
                lines.append("  (none)")
    return "\n".join(lines) + "\n"
