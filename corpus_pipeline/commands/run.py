"""`corpus-pipeline run`: ingest once, iterate until saturation, decontaminate, report."""
from __future__ import annotations

from .. import scratch
from ..labels import load_labels
from ..pipeline.stage import Stage
from ..report import write_report
from ..runfolder import RunFolder
from ..seeds import check_seed_source
from ..sources import check_shared, check_shared_run
from . import INPUT_HELP


def add_arguments(p) -> None:
    p.add_argument("--input", nargs="+", required=True, metavar="SRC",
                   help=INPUT_HELP)
    p.add_argument("--run", required=True, metavar="RUN", help="Run folder (local path or Hadoop URI).")
    p.add_argument("--seed-corpus", metavar="FILE", help="File, folder or glob of JSONL(.gz)/Parquet with a text column, on any filesystem "
                        "(default: the starter seed in seeds/).")
    p.add_argument("--labels", metavar="FILE", help="A labels.jsonl file ({url, label} per line), only to measure true precision and recall.")
    p.add_argument("--benchmarks", metavar="DIR", help="Folder of benchmark test sets to decontaminate against "
                        "(see `corpus-pipeline fetch-benchmarks`; default: no decontamination).")
    p.add_argument("--annotate", choices=["auto", "manual"], help="Path annotation: auto marks path prefixes itself, manual waits for your "
                        "worksheet (default: annotate.mode of the configuration).")
    p.add_argument("--max-iterations", type=int, metavar="N",
                   help="Stop after N iterations even if the collection has not saturated "
                        "(default: loop.max_iterations of the configuration).")
    p.add_argument("--recompute", action="store_true",
                   help="Accept changed settings: redo the first committed stage they shape and every later one.")


def _inputs(args):
    from ..loop import LoopInputs

    return LoopInputs(inputs=args.input, run=args.run, seed_corpus=args.seed_corpus, labels=args.labels,
                      benchmarks=args.benchmarks, annotate=args.annotate, max_iterations=args.max_iterations,
                      recompute=args.recompute)


def plan(args, cfg) -> list[str]:
    """The recipe as this command would run it: every stage, in order, from the recipe list."""
    from ..pipeline.recipe import default_recipe

    recipe = default_recipe()
    mode = args.annotate or cfg.annotate.mode
    n = args.max_iterations or cfg.loop.max_iterations

    def line(s: Stage, where: str) -> str:
        out = f"  {s.name:<17} {s.describe(cfg)}"
        return out + (f"  -> {args.run}/{s.path.replace('{iter}', where)}" if s.commits else "")

    lines = [f"ingest {' '.join(args.input)} (once; reused by every iteration):"]
    lines += [line(s, "") for s in recipe.ingest]
    lines.append(f"seed: {args.seed_corpus or 'starter seed in seeds/'}; up to {n} iterations, path annotation "
                 f"{mode}; each iteration:")
    lines += [line(s, "iter=NNN") for s in recipe.iteration]
    lines.append("after the last iteration:")
    lines += [line(s, "") for s in recipe.final]
    lines += [
        f"decontaminate against {args.benchmarks}" if args.benchmarks else "no decontamination (no --benchmarks)",
        f"labels for true precision/recall: {args.labels}" if args.labels else "no labels",
        f"report -> {args.run}/report/summary.json, index.html",
    ]
    return lines


def run(args, cfg) -> int:
    from ..loop import AWAITING, Loop
    from ..spark.session import get_spark

    if args.labels:
        load_labels(args.labels)           # a bad labels file fails before any work
    if args.seed_corpus:
        check_seed_source(args.seed_corpus)    # exists, JSONL or Parquet; Spark checks the content
    from ..spark.progress import progress
    from ..spark.session import configured_master

    check_shared(args.input, configured_master(cfg.spark), cfg.ingest)   # local inputs on a cluster: exit 2
    check_shared_run(args.run, configured_master(cfg.spark), cfg.ingest)  # a local run folder on Connect: exit 2
    from ..loop import precheck_inputs

    precheck_inputs(args.input, args.run, cfg)     # no WARC among local inputs: exit 2 before any JVM
    spark = get_spark(cfg.spark, run=args.run)
    with scratch.scope(), progress(spark):     # temporary files are removed, success or failure
        outcome = Loop(spark, _inputs(args), cfg).execute()
    write_report(RunFolder(args.run, spark), echo=print)     # a run waiting for marks: its last line says so
    if outcome.stopped_because != AWAITING:
        print(f"stopped because: {outcome.stopped_because}; report: {args.run}/report/index.html")
    return 0
