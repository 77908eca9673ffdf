"""`corpus-pipeline inspect RUN`: look at pages of a run, as text or JSON.

Sections: collected pages nearest the selection threshold and far above it (latest iteration or
``--iteration``), pages of ``--host`` (and ``--prefix``), removed near duplicates with their
similarity and the page kept instead (``RUN/pages_duplicates``), and decontamination removals with
the benchmark item they matched (``RUN/final/contamination``; the item's text when the benchmarks
folder the run used is readable).  ``--show`` picks sections.  Nothing is written.
"""
from __future__ import annotations

import json
import sys

from .. import fs as fsmod
from ..errors import UsageError
from ..pipeline.recipe import stage_path
from ..runfolder import open_existing

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


def plan(args, cfg) -> list[str]:
    return [f"read tables of {args.run} with Spark and print up to {args.limit} rows per section (writes nothing)"]


def run(args, cfg) -> int:
    if args.prefix and not args.host:
        raise UsageError("--prefix needs --host")
    if args.prefix and not args.prefix.startswith("/"):
        raise UsageError(f"--prefix must start with '/', got {args.prefix!r}")
    if args.limit < 1:
        raise UsageError("--limit must be >= 1")
    if fsmod.is_local(args.run):
        open_existing(args.run, need_pages=True)           # before the JVM starts
    from ..spark import inspect as I
    from ..spark.session import get_spark

    spark = get_spark(cfg.spark, quiet=True, run=args.run)
    rf = open_existing(args.run, spark, need_pages=True)
    its = [i for i in rf.iterations() if rf.is_committed(stage_path(rf, "collected", i))]
    it = args.iteration if args.iteration is not None else (its[-1] if its else None)
    if args.iteration is not None and args.iteration not in its:
        raise UsageError(f"{args.run}: iteration {args.iteration} has no committed collection "
                         f"(iterations: {', '.join(map(str, its)) or 'none'})")
    show = args.show or [s for s in SECTIONS if s != "pages" or args.host]
    out: dict = {"run": rf.uri}
    if "collected" in show and it is not None:
        thr = ((rf.marker(stage_path(rf, "collected", it)) or {}).get("config", {}).get("select") or {}).get(
            "threshold", cfg.select.threshold)
        out["collected"] = I.collected_samples(spark, rf, it, thr, args.limit)
    if "pages" in show:
        if not args.host:
            raise UsageError("--show pages needs --host")
        out["pages"] = I.pages_of(spark, rf, it, args.host, args.prefix, args.limit)
    if "duplicates" in show:
        out["duplicates"] = I.near_duplicates(spark, rf, args.limit)
    if "contamination" in show:
        out["contamination"] = I.contamination(spark, rf, args.limit, I.benchmark_items(rf))
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
    c = out.get("collected")
    if c:
        lines += ["", f"collected pages of iteration {c['iteration']} nearest the threshold ({c['threshold']}):"]
        lines += _page_lines(c["near_threshold"]) or ["  (none)"]
        lines += ["", f"collected pages of iteration {c['iteration']} far above the threshold:"]
        lines += _page_lines(c["far_above"]) or ["  (none)"]
    p = out.get("pages")
    if p:
        where = p["host"] + (p["prefix"] or "")
        lines += ["", f"pages of {where}: {p['pages']}" + (f" (showing {len(p['rows'])})" if p["rows"] else "")]
        lines += _page_lines(p["rows"], lambda r: "" if r.get("collected") is None else
                             ("  [collected]" if r["collected"] else "  [not collected]")) or ["  (none)"]
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
