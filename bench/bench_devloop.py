"""The loop on real content: the development crawl (``corpus_pipeline.devcrawl``), the starter
seed and the defaults, per iteration.

Builds the crawl from ``$CORPUS_PIPELINE_DATA`` (real pages with their real URLs, maths sources
served as MathJax HTML, mixed sites, number-heavy non-maths; no page of the starter seed), runs
``corpus-pipeline run ... --labels ... --annotate auto`` on ``local[2]`` and prints per iteration:
collected pages, true precision and recall, seed size, flagged domains, marks, the pages the
path step added to the next seed and, from the labels (evaluation only), how many of them are
maths; then iterations to saturation, against the targets of the real-web issue (final
precision >= 0.95, recall >= 0.9, precision never down by more than 0.02, seed additions >= 90%
maths, saturation within 4 iterations).

``BENCH_DEVLOOP_SET`` adds ``--set`` overrides (comma-separated ``section.key=value``), to compare a
setting side by side with the defaults: ``BENCH_DEVLOOP_SET=classifier.negatives_exclude_math_markup=true``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def run_devloop(work: Path, sets: list[str] = ()) -> tuple[list[dict], dict, float]:
    """(iteration table, loop.json, seconds) of one run on a fresh development crawl in ``work``."""
    import json

    from corpus_pipeline import devcrawl

    crawl = work / "crawl"
    devcrawl.build(str(data_dir()), str(crawl))
    run = work / "run"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "corpus_pipeline", "run", "--input", str(crawl / "warc"), "--run", str(run),
           "--labels", str(crawl / "labels.jsonl"), "--annotate", "auto", "--set", "spark.master=local[2]"]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    secs = time.time() - t0
    if p.returncode != 0:
        raise RuntimeError(f"run failed ({p.returncode}): {p.stderr[-3000:]}")
    return devcrawl.iteration_table(str(run)), json.loads((run / "loop.json").read_text()), secs


def targets(rows: list[dict], loop: dict) -> dict:
    """The issue's targets, measured: name -> (value, met)."""
    last = rows[-1]
    drops = [a["true_precision"] - b["true_precision"] for a, b in zip(rows, rows[1:])
             if a["true_precision"] is not None and b["true_precision"] is not None]
    m = sum(r["seed_added_math"] or 0 for r in rows)
    n = sum(r["seed_added_non_math"] or 0 for r in rows)
    add_p = m / (m + n) if (m + n) else None
    return {
        "final precision >= 0.95": (last["true_precision"], (last["true_precision"] or 0) >= 0.95),
        "final recall >= 0.9": (last["true_recall"], (last["true_recall"] or 0) >= 0.9),
        "largest precision drop <= 0.02": (max(drops, default=0.0), max(drops, default=0.0) <= 0.02),
        "seed additions >= 90% maths": (add_p, add_p is None or add_p >= 0.9),
        "saturated within 4 iterations": (len(rows), loop.get("stopped_because") == "saturated" and len(rows) <= 4),
    }


def main() -> None:
    from corpus_pipeline.devcrawl import format_table

    sets = [s for s in os.environ.get("BENCH_DEVLOOP_SET", "").split(",") if s.strip()]
    work = Path(tempfile.mkdtemp(prefix="bench_devloop_"))
    try:
        rows, loop, secs = run_devloop(work, sets)
        print(f"development crawl, starter seed, defaults{' + ' + ', '.join(sets) if sets else ''}: "
              f"{secs:.0f} s wall, stopped because {loop.get('stopped_because')}")
        print(format_table(rows))
        for r in rows:
            if r["marks"]:
                print(f"  iteration {r['iteration']} marks: {', '.join(r['marks'])}")
        print("\n| target | measured | met |\n|---|---:|---|")
        for k, (v, ok) in targets(rows, loop).items():
            print(f"| {k} | {v if not isinstance(v, float) else f'{v:.3f}'} | {'yes' if ok else 'NO'} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
