"""`corpus-pipeline decontaminate --input FILE --benchmarks DIR --out DIR`.

Removes benchmark text (10-gram overlap, whole short questions) from any
JSONL/Parquet file with a ``text`` column and a ``page_id`` or ``url``
column.  Writes ``DIR/corpus`` (Parquet: the input's columns, ``text``
cleaned, removed pages absent), ``DIR/contamination`` (Parquet:
page_id, benchmark, item_id, action, reason) and ``DIR/counts.json``.
"""
from __future__ import annotations

import sys

from ..decontam import scan_dir, use_file


def add_arguments(p) -> None:
    p.add_argument("--input", required=True, metavar="FILE", help="JSONL or Parquet file with a text column.")
    p.add_argument("--benchmarks", required=True, metavar="DIR",
                   help="Folder of benchmark test sets (see `corpus-pipeline fetch-benchmarks`).")
    p.add_argument("--out", required=True, metavar="DIR", help="Output folder: corpus/, contamination/, counts.json.")


def plan(args, cfg) -> list[str]:
    lines = [f"read {args.input}"]
    try:
        known, unknown = scan_dir(args.benchmarks)
    except Exception as e:  # noqa: BLE001 - the plan only reports
        known, unknown = [], []
        lines.append(f"benchmarks: {e}")
    wanted = cfg.decontam.benchmarks
    for f in known:
        use = use_file(f, wanted)
        why = "" if use else (" (not a maths task: used only when named in decontam.benchmarks)"
                              if not f.default else " (not selected)")
        lines.append(f"benchmark {f.benchmark}: {f.path}" + why)
    for u in unknown:
        lines.append(f"skip unknown file {u}")
    lines.append(f"{cfg.decontam.ngram}-gram overlap removes lines; short questions of "
                 f"{cfg.decontam.short_min_grams}-{cfg.decontam.ngram - 1} grams remove pages"
                 + (f" (except {', '.join(cfg.decontam.exclude_short)})" if cfg.decontam.exclude_short else "")
                 + f"; pages under {cfg.decontam.min_chars_after} chars after cleaning are dropped")
    lines.append(f"write {args.out}/corpus, {args.out}/contamination, {args.out}/counts.json")
    return lines


def run(args, cfg) -> int:
    from ..spark.decontam import decontaminate_file
    from ..spark.session import get_spark

    scan_dir(args.benchmarks)  # fail fast (exit 2) before starting Spark
    spark = get_spark(cfg.spark)
    res = decontaminate_file(spark, args.input, args.benchmarks, args.out, cfg.decontam)
    for u in res.skipped_files:
        print(f"skipped unknown benchmark file: {u}", file=sys.stderr)
    c = res.counts
    print(f"benchmarks: {', '.join(res.benchmarks)}")
    print(f"pages in {c['pages_in']}, out {c['pages_out']}, removed {c['pages_removed']}, "
          f"cleaned {c['pages_cleaned']} ({c['segments_removed']} lines removed)")
    for b, d in c["by_benchmark"].items():
        print(f"  {b}: " + ", ".join(f"{k} {v}" for k, v in d.items()))
    print(f"wrote {args.out}/corpus, {args.out}/contamination, {args.out}/counts.json")
    return 0
