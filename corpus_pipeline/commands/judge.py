"""`corpus-pipeline judge RUN`: precision and recall estimated from a judged random sample.

Draws (once per iteration, seed and margin) a stratified random sample of the iteration's pages
with Spark (the only step that starts a JVM: with the sample drawn, ``judge`` and ``judge --serve``
read the run folder through its markers and pyarrow, and keep the report's Spark-made details) (``spark/judge_sample.py``; strata, keys and sizes from ``judging.py``) and commits it
as ``RUN/iter=NNN/judge_sample/``; judgements are data in ``RUN/judgements/judgements.jsonl``
(page, verdict, who, when), shared by every iteration.  Then it prints the state of judging and
rewrites the report, whose summary.json holds ``estimated_precision`` and ``estimated_recall``.

``--serve`` starts the judging web page (``judge_web.py``) until Ctrl-C; ``--import F.jsonl`` adds
another person's judgements, ``--export F.jsonl`` writes them all out.
"""
from __future__ import annotations

import getpass
import json
import sys
from typing import Optional

from .. import arrowrun
from .. import fs as fsmod
from .. import judge_web as web
from .. import judging
from ..annotate_web import serve_until_interrupted
from ..errors import InputFileError, UsageError
from ..jsonl import iter_jsonl
from ..pipeline.runview import open_view
from ..report import write_report


def add_arguments(p) -> None:
    p.add_argument("run", metavar="RUN", help="Run folder.")
    p.add_argument("--iteration", type=int, default=None, metavar="N",
                   help="The iteration to sample (default: the latest with a committed collection).")
    p.add_argument("--margin", type=float, default=0.05, metavar="M",
                   help="95%% half-width asked for precision; sets the sample size (default 0.05).")
    p.add_argument("--uncollected", type=int, default=None, metavar="K",
                   help="Judgements of uncollected pages, for recall (default: half the precision sample).")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="Sampling seed (default: loop.random_seed).")
    p.add_argument("--judge", default=None, metavar="NAME", help="Who judges: the name stored with each verdict (default: the page asks once; "
                        "without --serve, the user name).")
    p.add_argument("--import", dest="import_file", default=None, metavar="F.jsonl",
                   help="Add the judgements of F.jsonl (another person's --export).")
    p.add_argument("--export", dest="export_file", default=None, metavar="F.jsonl",
                   help="Write every judgement of the run to F.jsonl.")
    p.add_argument("--serve", action="store_true", help="Start the judging web page (until Ctrl-C).")
    p.add_argument("--host", default="127.0.0.1",
                   help="Address to bind with --serve (default 127.0.0.1, loopback only).")
    p.add_argument("--port", type=int, default=8766, metavar="N", help="Port for --serve (default 8766; 0: any free port).")


def plan(args, cfg) -> list[str]:
    out = [f"draw (or reuse) the stratified sample of {args.run}'s iteration "
           f"{args.iteration if args.iteration is not None else '(latest)'} for a precision margin of {args.margin}",
           f"write it to {args.run}/iter=NNN/judge_sample/"]
    if args.import_file:
        out.append(f"add the judgements of {args.import_file} to {args.run}/judgements/judgements.jsonl")
    if args.export_file:
        out.append(f"write every judgement to {args.export_file}")
    if args.serve:
        out.append(f"serve the judging page on http://{args.host}:{args.port}/; saves go to "
                   f"{args.run}/judgements/judgements.jsonl")
    out.append(f"rewrite {args.run}/report with the estimates")
    return out


def _iteration(run, wanted):
    its = [i for i in run.iterations() if run.committed("collected", i)]
    if wanted is not None:
        return wanted if wanted in its else None
    return its[-1] if its else None


def ensure_sample(spark, run, i: int, random_seed: int, margin: float, uncollected, log=print) -> dict:
    """The iteration's sample stage: reused when drawn with the same random seed and sizes, else drawn anew
    (a new attempt; the old one stays valid until the new marker replaces it)."""

    from ..spark import judge_sample as js

    path = run.location(judging.SAMPLE_STAGE, i)
    config = {"seed": random_seed, "margin": margin, "uncollected": uncollected}
    # judged pages the iteration's seed trained on (judge.add_to_seed) are left out of the frame
    exclude = js.judged_seed_pages(spark, run, i)
    n_excluded = exclude.count() if exclude is not None else 0
    if n_excluded:
        config["excluded_seed_pages"] = n_excluded        # absent when none: samples drawn before stay valid
    m = run.marker(path)
    if m is not None and m.get("config") == config:
        return m["counts"]
    key = ((run.stage_marker("domains", i) or {}).get("config") or {}).get("key", "host")

    def build(attempt: str) -> dict:
        df = js.frame(spark, run, i, key, exclude if n_excluded else None).cache()
        try:
            counts = js.strata_counts(df)
            sizes = judging.allocate(counts, margin, uncollected)
            rows = js.draw_sample(df, random_seed, sizes, counts)
        finally:
            df.unpersist()
        run.fs.mkdirs(attempt)
        run.fs.write_text(fsmod.join(attempt, judging.SAMPLE_FILE),
                          "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows))
        strata = {h: dict(c, k=sizes.get(h, 0)) for h, c in counts.items()}
        out = {"seed": random_seed, "margin": margin, "strata": strata, "pages": len(rows)}
        if n_excluded:
            out["excluded_seed_pages"] = n_excluded
        return out

    log(f"judge: iteration {i}: drawing the sample (seed {random_seed}, margin {margin}) ...")
    return run.stage(path, build, config=config, force=m is not None, log=log).counts


def sample_drawn(run, i: int, random_seed: int, margin: float, uncollected) -> bool:
    """The iteration's sample is committed with these settings (and the same judged seed pages left
    out): read from its marker and the seed table with pyarrow, no JVM."""
    m = run.stage_marker(judging.SAMPLE_STAGE, i)
    if m is None:
        return False
    config = {"seed": random_seed, "margin": margin, "uncollected": uncollected}
    n_excluded = arrowrun.judged_seed_count(run, i) or 0
    if n_excluded:
        config["excluded_seed_pages"] = n_excluded
    return m.get("config") == config


def last_details(run) -> Optional[dict]:
    """The ``details`` of the report last written (with Spark): sample pages, mark growth, near
    duplicates, decontamination removals, languages; judging changes none of the tables they come from."""
    try:
        return (run.read_json(fsmod.join(run.report_dir, "summary.json"), {}) or {}).get("details")
    except (OSError, ValueError):
        return None


def run(args, cfg) -> int:
    from ..spark.session import get_spark

    if not 0 < args.margin < 0.5:
        raise UsageError(f"--margin: expected a half-width in (0, 0.5), got {args.margin}")
    if args.uncollected is not None and args.uncollected < 0:
        raise UsageError("--uncollected must be >= 0")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: expected 0..65535, got {args.port}")
    spark = None
    if not arrowrun.readable(args.run):
        spark = get_spark(cfg.spark, quiet=True, run=args.run)      # a run folder only Hadoop reads
    run_folder = open_view(args.run, spark)                       # before any JVM
    i = _iteration(run_folder, args.iteration)
    if i is None:
        which = f"iteration {args.iteration}" if args.iteration is not None else "any iteration"
        print(f"judge: {args.run} has no committed collection in {which}; nothing to sample", file=sys.stderr)
        return 1
    random_seed = cfg.loop.random_seed if args.seed is None else args.seed
    judgements = judging.read_judgements(run_folder)
    if args.import_file:
        new = []
        for n, obj in iter_jsonl(args.import_file):
            try:
                new.append(judging.check_judgement(obj, "judgement", judging.run_positive(run_folder)))
            except ValueError as e:
                raise InputFileError(args.import_file, str(e), n) from None
        merged = judging.merge(judgements, new)
        judging.write_judgements(run_folder, merged)
        print(f"judge: imported {len(merged) - len(judgements)} new judgements from {args.import_file} "
              f"({len(new) - (len(merged) - len(judgements))} already there)")
        judgements = merged
    if args.export_file:
        with open(args.export_file, "w", encoding="utf-8") as f:
            for j in judgements:
                f.write(json.dumps(j, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"judge: exported {len(judgements)} judgements to {args.export_file}")
    if spark is None and not sample_drawn(run_folder, i, random_seed, args.margin, args.uncollected):
        spark = get_spark(cfg.spark, quiet=True, run=args.run)      # drawing a sample: a Spark job
        run_folder = open_view(args.run, spark)
    if spark is not None:
        ensure_sample(spark, run_folder, i, random_seed, args.margin, args.uncollected)
    if args.serve:
        serve(args, run_folder, i, spark)
        judgements = judging.read_judgements(run_folder)
    est = judging.iteration_estimates(run_folder, i, judging.page_verdicts(judgements))
    _print_state(i, est)
    # without Spark the report's numbers and estimates are rebuilt from the markers and judgements, and
    # its details (sample pages, near duplicates, ...: from tables judging never changes) kept as they were
    write_report(run_folder, spark=spark, details=None if spark is not None else last_details(run_folder))
    print(f"report: {run_folder.report_dir}/index.html")
    return 0


def _fmt(e) -> str:
    if not e:
        return "not yet (every stratum needs a verdict)"
    return f"{e['value']:.3f} (95% {e['low']:.3f}-{e['high']:.3f}, n={e['n']})"


def _print_state(i: int, est: dict) -> None:
    print(f"judge: iteration {i}: {est['judged']} pages judged, {est['to_judge']} of the sample left")
    for s in est["strata"]:
        print(f"  {s['stratum']:<28} {s['pages']:>9} pages  {s['judged']:>4}/{s['drawn']:<4} judged  "
              f"{s['maths']:>4} maths" + (f" {s['unsure']:>4} unsure" if s.get("unsure") else ""))
    print(f"  estimated precision: {_fmt(est['estimated_precision'])}")
    print(f"  estimated recall:    {_fmt(est['estimated_recall'])}")
    u = est.get("estimated_unsure") or {}
    if u.get("collected") is not None and u.get("all") is not None:
        c, a = u["collected"], u["all"]
        print(f"  (both over the pages a person can decide; judged unsure: {c['value']:.1%} of the collected "
              f"pages (95% {c['low']:.1%}-{c['high']:.1%}), {a['value']:.1%} of all)")
    if est.get("stopping"):
        print(f"  {est['stopping']}")


def serve(args, run_folder, i: int, spark) -> None:
    judge = args.judge or getpass.getuser() or "judge"
    view = web.build_view(run_folder, i, judge, ask_name=args.judge is None)   # no --judge: the page asks
    serve_until_interrupted(
        lambda: web.JudgeServer(view, args.host, args.port), args.host, args.port, "judge",
        lambda server: [f"serving iteration {i}'s sample ({len(view.pages)} pages) for "
                        f"{args.judge or 'the judge the page asks the name of'} at {server.url}",
                        "open that URL in a browser; stop this with Ctrl-C to rewrite the report"])
