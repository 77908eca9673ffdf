"""The loop on real content: the development crawl (``devtools.devcrawl``), the starter
seed and the defaults, per iteration, with and without the path step, beside the mini-crawl.

Builds the crawl from ``$CORPUS_PIPELINE_DATA`` (real pages under their real URLs and real text
under made-up ones, ``synthetic_url`` in the labels; no page of the starter seed), runs
``corpus-pipeline run ... --labels ... --annotate auto`` on ``local[2]`` and prints per iteration:
collected pages, true precision and recall, seed size, flagged domains, marks, the pages the path
step added to the next seed and, from the labels (evaluation only), how many of them are maths.
Then the same loop with the path step disabled (``annotate.max_seed_additions=0``, started on the
first run's committed pages), the share of the maths pages under flagged hosts that iteration 1
missed and iteration 2 collected, and the targets of the real-web issue:

* final precision >= 0.95 and recall >= 0.95; without the path step recall at least 0.10 lower;
* the path step recovers at least half of the uncollected maths pages under flagged hosts;
* seed additions >= 90% maths; saturated within 4 iterations; no precision drop > 0.02;
* the mini-crawl (``make demo``'s 3,000 pages): precision and recall >= 0.99.

``BENCH_DEVLOOP_SET`` adds ``--set`` overrides (comma-separated ``section.key=value``) to both runs.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NO_PATH_STEP = "annotate.max_seed_additions=0"


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def loop_args(crawl: Path, run: Path, sets=()) -> list[str]:
    args = ["run", "--input", str(crawl / "warc"), "--run", str(run), "--labels", str(crawl / "labels.jsonl"),
            "--annotate", "auto", "--set", "spark.master=local[2]"]
    for s in sets:
        args += ["--set", s]
    return args


def _run(args: list[str], in_process: bool) -> None:
    if in_process:                 # against the active SparkSession (the tests' own)
        import contextlib
        import io

        from corpus_pipeline.cli import main

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(args)
        if code != 0:
            raise RuntimeError(f"run failed ({code}): {out.getvalue()[-3000:]}")
        return
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "corpus_pipeline", *args], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"run failed ({p.returncode}): {p.stderr[-3000:]}")


def run_devloop(work: Path, sets: list[str] = (), in_process: bool = False, crawl: Path = None,
                pages_from: Path = None, name: str = "run") -> tuple[list[dict], dict, float]:
    """(iteration table, loop.json, seconds) of one run on the development crawl in ``work``
    (built there unless ``crawl`` is given; ``pages_from``: a run whose committed pages to start from)."""
    from devtools import devcrawl

    if crawl is None:
        crawl = work / "crawl"
        devcrawl.build(str(data_dir()), str(crawl))
    run = work / name
    if pages_from is not None:
        run.mkdir(parents=True)
        for part in ("run.json", "ingest", "pages", "pages_skips", "pages_duplicates"):
            (shutil.copytree if (pages_from / part).is_dir() else shutil.copy)(pages_from / part, run / part)
    t0 = time.time()
    _run(loop_args(crawl, run, sets), in_process)
    return devcrawl.iteration_table(str(run)), json.loads((run / "loop.json").read_text()), time.time() - t0


def path_recovery(run: Path, labels: Path) -> tuple[int, int]:
    """(maths pages under hosts flagged in iteration 1 that iteration 1 did not collect, how many of
    them iteration 2 collected), from the run folder and the labels (evaluation only)."""
    import pyarrow.parquet as pq

    from corpus_pipeline.runfolder import committed_data

    if not (run / "iter=002" / "collected" / "_COMMIT.json").exists():
        return 0, 0
    lab = {}
    for line in open(labels, encoding="utf-8"):
        r = json.loads(line)
        lab[r["url"]] = r["label"]
    pages = pq.read_table(committed_data(str(run / "pages")), columns=["page_id", "url", "host"]).to_pylist()
    ids = lambda stage: set(pq.read_table(committed_data(str(run / stage)), columns=["page_id"])  # noqa: E731
                            .column("page_id").to_pylist())
    c1, c2 = ids("iter=001/collected"), ids("iter=002/collected")
    flagged = {r["host"] for r in pq.read_table(committed_data(str(run / "iter=001" / "domains"))).to_pylist()
               if r["flagged"]}
    missed = [p["page_id"] for p in pages if p["host"] in flagged and lab.get(p["url"]) == "math"
              and p["page_id"] not in c1]
    return len(missed), sum(1 for p in missed if p in c2)


def targets(rows: list[dict], loop: dict, no_path: list[dict] = None, recovery: tuple = None,
            minicrawl: dict = None) -> dict:
    """The issue's targets, measured: name -> (value, met)."""
    last = rows[-1]
    drops = [a["true_precision"] - b["true_precision"] for a, b in zip(rows, rows[1:])
             if a["true_precision"] is not None and b["true_precision"] is not None]
    m = sum(r["seed_added_math"] or 0 for r in rows)
    n = sum(r["seed_added_non_math"] or 0 for r in rows)
    add_p = m / (m + n) if (m + n) else None
    out = {
        "final precision >= 0.95": (last["true_precision"], (last["true_precision"] or 0) >= 0.95),
        "final recall >= 0.95": (last["true_recall"], (last["true_recall"] or 0) >= 0.95),
        "largest precision drop <= 0.02": (max(drops, default=0.0), max(drops, default=0.0) <= 0.02),
        "seed additions >= 90% maths": (add_p, add_p is None or add_p >= 0.9),
        "saturated within 4 iterations": (len(rows), loop.get("stopped_because") == "saturated" and len(rows) <= 4),
    }
    if no_path is not None:
        gap = (last["true_recall"] or 0) - (no_path[-1]["true_recall"] or 0)
        out["recall without the path step >= 0.10 lower"] = (gap, gap >= 0.10)
    if recovery is not None:
        share = recovery[1] / recovery[0] if recovery[0] else None
        out["path step recovers >= half of the missed maths under flagged hosts"] = \
            (share, share is not None and share >= 0.5)
    if minicrawl is not None:
        out["mini-crawl precision >= 0.99"] = (minicrawl["precision"], minicrawl["precision"] >= 0.99)
        out["mini-crawl recall >= 0.99"] = (minicrawl["recall"], minicrawl["recall"] >= 0.99)
    return out


def minicrawl_figures(work: Path, pages: int = 3000, in_process: bool = False) -> dict:
    """The mini-crawl loop with the defaults (``make demo``'s crawl): final true precision and recall."""
    from corpus_pipeline.minicrawl import generate

    crawl = work / "minicrawl"
    generate(str(crawl), pages=pages, random_seed=1)
    run = work / "minicrawl_run"
    _run(["run", "--input", str(crawl / "warc"), "--run", str(run), "--labels", str(crawl / "labels.jsonl"),
          "--annotate", "auto", "--set", "spark.master=local[2]"], in_process)
    s = json.loads((run / "report" / "summary.json").read_text())
    last = s["iterations"][-1]
    return {"precision": last["true_precision"], "recall": last["true_recall"], "iterations": len(s["iterations"])}


def main() -> None:
    from devtools.devcrawl import format_table

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
        no_path, _, secs2 = run_devloop(work, sets + [NO_PATH_STEP], crawl=work / "crawl",
                                        pages_from=work / "run", name="no_path")
        print(f"\nthe same without the path step ({NO_PATH_STEP}), {secs2:.0f} s:")
        print(format_table(no_path))
        rec = path_recovery(work / "run", work / "crawl" / "labels.jsonl")
        print(f"\nmaths pages under hosts flagged in iteration 1 that it missed: {rec[0]}; collected by "
              f"iteration 2: {rec[1]}")
        mini = minicrawl_figures(work)
        print(f"mini-crawl (3,000 pages, defaults): precision {mini['precision']:.3f}, recall {mini['recall']:.3f}, "
              f"{mini['iterations']} iterations")
        print("\n| target | measured | met |\n|---|---:|---|")
        for k, (v, ok) in targets(rows, loop, no_path, rec, mini).items():
            print(f"| {k} | {v if not isinstance(v, float) else f'{v:.3f}'} | {'yes' if ok else 'NO'} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
