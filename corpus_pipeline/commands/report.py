"""`corpus-pipeline report RUN`: (re)write RUN/report from the run folder."""
from __future__ import annotations

from .. import fs as fsmod
from ..pipeline.runview import RunView, open_view
from ..report import write_report
from ..runfolder import RunFolder


def add_arguments(p) -> None:
    p.add_argument("run", metavar="RUN", help="Run folder.")


def plan(args, cfg) -> list[str]:
    return [f"read commit markers under {args.run} (and sample tables with Spark when pages are ingested)", f"write {args.run}/report/summary.json, index.html, summary.md, and the final corpus's "
            f"dataset card {args.run}/final/corpus/README.md once the corpus is committed"]


def run(args, cfg) -> int:
    spark = None
    if not fsmod.is_local(args.run):
        from ..spark.session import get_spark

        spark = get_spark(cfg.spark, run=args.run)
    run = open_view(args.run, spark)
    if spark is None and run.committed("pages"):
        from ..spark.session import get_spark

        spark = get_spark(cfg.spark, quiet=True, run=args.run)      # sample pages, duplicates, languages come from the tables
        run = RunView(RunFolder(args.run, spark))
    write_report(run, echo=print)
    print(f"report: {run.report_dir}/index.html")
    return 0
