"""`corpus-pipeline annotate RUN`: where the current path worksheet is and what to mark.

Reads the latest iteration of RUN that has an annotations folder with a
worksheet (``RUN/iter=NNN/annotations/``), prints the worksheet's and the
marked file's paths, the flagged hosts with their candidate prefixes, what is
marked now (validated: an invalid marked file is reported with its line and
exit code 2) and what the proposer would mark with the current
``[annotate]`` settings.  Nothing is written.

With ``--serve`` it starts the annotation web page instead (``annotate_web.py``):
the page's data is computed once from the run folder (with pyarrow, no JVM, for a run
folder on a local disk or object storage; with Spark for one only Hadoop reads), then served
from memory until Ctrl-C; saving writes ``marked_paths.txt`` and
``rejected_paths.txt`` in the annotations folder.
"""
from __future__ import annotations

import sys

from .. import annotate
from .. import annotate_web as web
from .. import arrowrun
from .. import fs as fsmod
from ..annotate import MARKED
from ..errors import InputFileError, UsageError
from ..pipeline.runview import RunView, open_view
from ..runfolder import RunFolder


def add_arguments(p) -> None:
    p.add_argument("run", metavar="RUN", help="Run folder.")
    p.add_argument("--iteration", type=int, default=None, metavar="N",
                   help="Show iteration N instead of the latest one with a worksheet.")
    p.add_argument("--top", type=int, default=10, metavar="K",
                   help="Candidate prefixes shown per host (default 10).")
    p.add_argument("--serve", action="store_true", help="Start the annotation web page (until Ctrl-C).")
    p.add_argument("--host", default="127.0.0.1",
                   help="Address to bind with --serve (default 127.0.0.1, loopback only).")
    p.add_argument("--port", type=int, default=8765, metavar="N", help="Port for --serve (default 8765; 0: any free port).")
    p.add_argument("--top-hosts", type=int, default=50, metavar="K",
                   help="Flagged hosts shown on the page, by impact (default 50).")


def plan(args, cfg) -> list[str]:
    if getattr(args, "serve", False):
        return [f"find the latest iteration of {args.run} waiting for marks",
                f"compute hosts, prefixes and sample pages (pyarrow; Spark for hdfs://), serve them on http://{args.host}:{args.port}/",
                "on save: write marked_paths.txt and rejected_paths.txt in its annotations folder"]
    return [f"find the latest iteration of {args.run} with annotations/{_marked()}",
            "print the worksheet path, the file to mark and a summary (writes nothing)"]


def _marked() -> str:
    return MARKED


def latest_annotations(run, iteration=None):
    """(iteration, annotations folder) of the latest iteration holding a worksheet, or None."""

    its = [iteration] if iteration is not None else sorted(run.iterations(), reverse=True)
    for i in its:
        adir = run.location("annotations", i)
        if run.fs.exists(fsmod.join(adir, annotate.MARKED)):
            return i, adir
    return None


def already_applied(run_uri: str, i: int, adir: str, run_folder) -> str:
    """What ``annotate --serve`` says when nothing waits for a person: an auto run's marks were made by the
    proposer (a person's step needs ``run --annotate manual``), a manual run's were applied already."""
    mode = ((run_folder.marker(adir) or {}).get("config") or {}).get("mode")
    if mode == "auto":
        return (f"annotate: {run_uri} ran with --annotate auto: the proposer marked iteration {i}'s paths and they "
                f"were applied; nothing waits for a person. A person's step needs `corpus-pipeline run ... "
                f"--annotate manual` (into a new --run folder: this run's marks are committed). To review what the "
                f"proposer marked: `corpus-pipeline annotate {run_uri}` (or {fsmod.join(adir, annotate.MARKED)}), and the "
                f"report's marks ({run_uri}/report/index.html)")
    return (f"annotate: the marks of iteration {i} were already applied ({adir}); nothing waits for a person. "
            f"`corpus-pipeline annotate {run_uri}` shows them; the next worksheet comes when the same "
            f"`corpus-pipeline run ... --annotate manual` command reaches the next path step")


def run(args, cfg) -> int:
    if args.serve:
        return serve(args, cfg)
    spark = None
    if not fsmod.is_local(args.run):
        from ..spark.session import get_spark

        spark = get_spark(cfg.spark, quiet=True, run=args.run)
    run_folder = open_view(args.run, spark)
    found = latest_annotations(run_folder, args.iteration)
    if found is None:
        which = f"iteration {args.iteration}" if args.iteration is not None else "any iteration"
        print(f"annotate: {args.run} has no path worksheet in {which} yet; it is written by "
              f"`corpus-pipeline run ... --annotate manual` when an iteration reaches the path step",
              file=sys.stderr)
        return 1
    i, adir = found
    index = annotate.read_index(adir, spark) or {}
    rows = index.get("rows", [])
    known = {tuple(k) for k in index["known"]} if "known" in index else None
    marked = fsmod.join(adir, annotate.MARKED)
    committed = run_folder.is_committed(adir)
    print(f"iteration {i}: path worksheet {'(already applied)' if committed else '(waiting for marks)'}")
    print(f"  read:  {fsmod.join(adir, annotate.WORKSHEET)}")
    print(f"  mark:  {marked}")
    print("         one <host><prefix> per line, e.g. mathoverflow.net/questions/ ; uncomment candidates")
    hosts: dict[str, list] = {}
    for r in rows:
        hosts.setdefault(r["host"], []).append(r)
    print(f"flagged hosts: {len(hosts)}, candidate prefixes: {len(rows)}")
    try:
        marks = annotate.read_marks(marked, known, spark)
    except InputFileError as e:
        print(f"marked file is invalid, nothing would be applied: {e}", file=sys.stderr)
        return 2
    by = {}
    for m in marks:
        by[m.decided_by] = by.get(m.decided_by, 0) + 1
    detail = ", ".join(f"{n} {k}" for k, n in sorted(by.items()))
    print(f"marked now: {len(marks)}" + (f" ({detail})" if detail else ""))
    for m in marks:
        print(f"  {m.path}  [{m.decided_by}{'' if m.decided_by != 'carried' else ': ' + m.first_decider}]")
    proposed = annotate.propose(rows, cfg.annotate)
    if proposed:
        print(f"the proposer (annotate.propose_min_fraction={cfg.annotate.propose_min_fraction}, "
              f"min_pages={cfg.annotate.propose_min_pages}, min_collected={cfg.annotate.propose_min_collected}) "
              f"would mark:")
        for m in proposed:
            print(f"  {m.path}  ({m.note})")
    marked_keys = [(m.host, m.prefix) for m in marks]
    for host in sorted(hosts):
        cands = sorted(hosts[host], key=lambda r: (-r["pages"], r["prefix"]))[: max(args.top, 0)]
        print(f"{host}:")
        for r in cands:
            frac = r["collected"] / r["pages"] if r["pages"] else 0.0
            under = next((p for h, p in marked_keys if h == host and r["prefix"].startswith(p)), None)
            state = "" if under is None else ("  <- marked" if under == r["prefix"] else f"  <- under {under}")
            print(f"  {r['prefix']:<40} {r['pages']:>7} pages {r['collected']:>7} collected {frac:6.1%}{state}")
        if len(hosts[host]) > len(cands):
            print(f"  ... {len(hosts[host]) - len(cands)} more in the worksheet")
    if not committed:
        print("when done, rerun the same `corpus-pipeline run` command to apply the marks and continue")
    return 0


def serve(args, cfg) -> int:
    """``annotate RUN --serve``: compute the page's data once, then serve it from memory."""
    from ..spark.annotate_view import prefix_view
    from ..spark.session import get_spark

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: expected 0..65535, got {args.port}")
    if args.top_hosts < 1:
        raise UsageError("--top-hosts must be >= 1")
    # a run folder pyarrow reads (a local disk, object storage) starts no JVM; one only Hadoop reads does
    spark = None if arrowrun.readable(args.run) else get_spark(cfg.spark, quiet=True, run=args.run)
    run_folder = open_view(args.run, spark)
    found = latest_annotations(run_folder, args.iteration)
    if found is None:
        print(f"annotate: {args.run} has no path worksheet yet; `corpus-pipeline run ... --annotate manual` "
              f"writes one when an iteration reaches the path step", file=sys.stderr)
        return 1
    i, adir = found
    if run_folder.is_committed(adir):
        print(already_applied(args.run, i, adir, run_folder), file=sys.stderr)
        return 1
    index = annotate.read_index(adir, spark) or {}
    rows = index.get("rows", [])
    known = {tuple(k) for k in index["known"]} if "known" in index else None
    try:
        marks = annotate.read_marks(fsmod.join(adir, annotate.MARKED), known, spark)
        rejected = annotate.read_rejections(adir, known, spark)
    except InputFileError as e:
        print(f"annotate: fix the file first, nothing is served: {e}", file=sys.stderr)
        return 2
    use_arrow = spark is None and not getattr(args, "spark", False) and arrowrun.readable(args.run)
    if spark is None and not use_arrow:
        spark = get_spark(cfg.spark, quiet=True, run=args.run)
        run_folder = RunView(RunFolder(args.run, spark))
    proposed = annotate.propose(rows, cfg.annotate)
    max_listed = cfg.annotate.worksheet_max_prefixes
    listed = set()
    per_host: dict = {}
    for r in rows:
        per_host.setdefault(r["host"], []).append(r)
    for host, hr in per_host.items():
        listed.update((host, r["prefix"]) for r in sorted(hr, key=lambda r: (-r["pages"], r["prefix"]))[:max_listed])
    print(f"annotate: iteration {i}: computing {len(listed)} prefixes of {len(per_host)} flagged hosts ...",
          flush=True)
    if use_arrow:          # the committed tables through pyarrow: no JVM (the same rows as Spark's)
        joins, samples = arrowrun.prefix_view(run_folder, i, sorted(listed))
        domains = arrowrun.flagged_domains(run_folder, i)
    else:
        joins, samples = prefix_view(spark, run_folder, i, sorted(listed))
        domains = [r.asDict() for r in run_folder.table(spark, "domains", i).where("flagged").collect()]
    view = web.build_view(run_folder.uri, i, adir, index, marks, rejected, proposed, joins, samples, domains,
                          top_hosts=args.top_hosts, max_listed=max_listed, cfg=cfg.annotate)
    web.serve_until_interrupted(
        lambda: web.AnnotateServer(view, args.host, args.port, spark=spark), args.host, args.port, "annotate",
        lambda server: [f"serving iteration {i} ({len(view.hosts)} hosts) at {server.url}",
                        "open that URL in a browser; save there, then stop this with Ctrl-C and rerun the same "
                        "`corpus-pipeline run` command"])
    return 0
