"""`corpus-pipeline ingest --input SRC... --run RUN`: WARCs -> extracted, deduplicated RUN/pages."""
from __future__ import annotations

from ..pipeline.runview import RunView
from ..runfolder import RunFolder
from ..sources import check_shared, check_shared_run, kind, resolve
from . import INPUT_HELP


def add_arguments(p) -> None:
    p.add_argument("--input", dest="inputs", nargs="+", action="extend", required=True, metavar="SRC",
                   help=INPUT_HELP)
    p.add_argument("--run", required=True, metavar="RUN", help="Run folder (local path or Hadoop URI).")
    p.add_argument("--recompute", action="store_true",
                   help="Accept changed settings: redo the first committed stage they shape and every later one.")


def plan(args, cfg) -> list[str]:
    from ..pipeline.ingest import Dedup
    from ..pipeline.recipe import default_recipe

    refs = resolve(args.inputs, cfg.ingest, list_hadoop=False)
    lines = [f"resolve {len(args.inputs)} input(s) -> {len(refs)} WARC file(s)"]
    if any(kind(r) == "hadoop" for r in refs):
        lines.append("  (Hadoop URIs are listed through Spark's JVM when the command runs)")
    lines += [f"  {r}" for r in refs[:10]]
    if len(refs) > 10:
        lines.append(f"  ... and {len(refs) - 10} more")
    tasks = -(-len(refs) // cfg.ingest.files_per_task)
    lines.append(f"extract in {tasks} Spark task(s) ({cfg.ingest.files_per_task} file(s) per task), "
                 f"time limit {cfg.ingest.extract_timeout_s}s per page")
    stages = default_recipe().ingest
    lines.append("dedup: " + (", ".join(s.kind for s in stages if isinstance(s, Dedup) and s.enabled(cfg)) or "none"))
    per = cfg.ingest.files_per_commit
    lines.append(f"extraction committed in batches of {f'{per} file(s)' if per else 'two task waves'} "
                 f"({args.run}/ingest/extract/batch=NNNNN; a rerun reads only files in no committed batch)")
    lines.append("committed stages, in order: " + ", ".join(s.path for s in stages))
    return lines


def run(args, cfg) -> int:
    from ..loop import run_ingest
    from ..pipeline.ingest import summarize
    from ..spark.progress import progress
    from ..spark.session import configured_master, get_spark

    check_shared(args.inputs, configured_master(cfg.spark), cfg.ingest)   # before any JVM or write
    check_shared_run(args.run, configured_master(cfg.spark), cfg.ingest)
    from ..loop import precheck_inputs

    precheck_inputs(args.inputs, args.run, cfg)    # no WARC among local inputs: exit 2 before any JVM
    spark = get_spark(cfg.spark, run=args.run)
    rf = RunFolder(args.run, spark)
    with progress(spark):       # a line every 10 s for each stage running 5 s or more
        result = run_ingest(spark, args.inputs, rf, cfg, recompute=args.recompute)   # NoInputError: exit 2
    print(f"[ingest] {RunView(rf).location('pages')}: {summarize(result.counts)}")
    return 0
