"""Where a small ``corpus-pipeline ingest`` (or ``run``) spends its wall time: per product stage, its Spark
jobs, stages and tasks, time inside jobs (tasks running, scheduling) and time between them (driver).

``python -m bench.profile_ingest --input SRC... [--run RUN] [--set K=V ...] [--command run -- ARGS...]``
runs the command (``ingest`` by default; ``run`` profiles the whole loop, e.g. the demo's with
``--command run -- --labels L --benchmarks B --annotate auto``) in this
process with Spark's event log on, records when each stage of the recipe starts and ends (the
runner's ``ensure``), then reads the event log back (:mod:`bench.eventlog`) and prints per stage:
wall seconds, Spark jobs, stages run, tasks, seconds inside jobs, summed task run time, and the
driver's share (the stage's wall outside any job).  Command start to session, session to the
first stage and the rest are printed too.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", nargs="+", required=True)
    ap.add_argument("--run")
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--command", default="ingest", choices=("ingest", "run"))
    ap.add_argument("rest", nargs="*", help="further arguments of the command (after --)")
    args = ap.parse_args(argv)
    t_cmd = time.time()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    tmp = tempfile.mkdtemp(prefix="profile_ingest_")
    ev = os.path.join(tmp, "events")
    os.makedirs(ev)
    run = args.run or os.path.join(tmp, "run")

    from corpus_pipeline.pipeline import runner as runner_mod

    spans = []
    orig = runner_mod.Runner.ensure

    def ensure(self, stage, i=None):
        t0 = time.time()
        try:
            return orig(self, stage, i)
        finally:
            spans.append((stage.name if i is None else f"{i}:{stage.name}", t0, time.time()))

    runner_mod.Runner.ensure = ensure
    from corpus_pipeline.cli import main as cli

    conf = os.path.join(tmp, "eventlog.toml")
    Path(conf).write_text(f'[spark.conf]\n"spark.eventLog.enabled" = "true"\n"spark.eventLog.dir" = "file://{ev}"\n'
                          '"spark.eventLog.compress" = "false"\n')
    argv2 = [args.command, "--config", conf, "--input", *args.input, "--run", run, *args.rest]
    for s in args.sets:
        argv2 += ["--set", s]
    rc = cli(argv2)
    t_end = time.time()
    runner_mod.Runner.ensure = orig
    try:
        from pyspark.sql import SparkSession

        s = SparkSession.getActiveSession()
        if s is not None:
            s.stop()
    except Exception:  # noqa: BLE001
        pass
    from bench.eventlog import summarize

    logs = [os.path.join(ev, p) for p in os.listdir(ev)]
    summ = summarize(logs[0])
    jobs, tasks, app = summ["jobs"], summ["tasks"], summ["app"]
    print(f"\nexit {rc}; command wall {t_end - t_cmd:.1f} s; session start (command start -> SparkContext) "
          f"{app['start'] / 1000 - t_cmd:.1f} s")
    print(f"{'stage':<18} {'wall s':>7} {'jobs':>4} {'stg':>4} {'tasks':>5} {'in jobs':>7} {'task s':>7} "
          f"{'driver s':>8}")
    tot = {"wall": 0.0, "jobs": 0, "in_jobs": 0.0, "task": 0.0}
    per_stage = []
    for name, a, b in spans:
        js = [j for j, d in jobs.items() if a * 1000 <= d["start"] <= b * 1000]
        iv = sorted((jobs[j]["start"], jobs[j].get("end", jobs[j]["start"])) for j in js)
        inj, cur = 0, None
        for x, y in iv:
            if cur is None or x > cur[1]:
                inj += (cur[1] - cur[0]) if cur else 0
                cur = [x, y]
            else:
                cur[1] = max(cur[1], y)
        inj += (cur[1] - cur[0]) if cur else 0
        task_s = sum(tasks[j]["run_ms"] for j in js if j in tasks) / 1000
        n_tasks = sum(tasks[j]["n"] for j in js if j in tasks)
        stg = sum(jobs[j].get("ran_stages", 0) for j in js)
        wall = b - a
        print(f"{name:<18} {wall:7.2f} {len(js):>4} {stg:>4} {n_tasks:>5} {inj / 1000:7.2f} {task_s:7.2f} "
              f"{wall - inj / 1000:8.2f}")
        for j in sorted(js):
            d, t = jobs[j], tasks.get(j, {"n": 0, "run_ms": 0})
            w = (d.get("end", d["start"]) - d["start"]) / 1000
            print(f"    job {j:>3} {d['sql'] or d['site'][:20]:<12} stages {d['stages']} (ran {d.get('ran_stages', 0)}) "
                  f"tasks {t['n']:>3} wall {w:6.2f} task {t['run_ms'] / 1000:6.2f}")
        per_stage.append({"stage": name, "wall_s": wall, "jobs": len(js), "stages": stg, "tasks": n_tasks})
        tot["wall"] += wall
        tot["jobs"] += len(js)
        tot["in_jobs"] += inj / 1000
        tot["task"] += task_s
    first = spans[0][1] if spans else t_end
    print(f"{'all stages':<18} {tot['wall']:7.2f} {tot['jobs']:>4} {'':>4} {'':>5} {tot['in_jobs']:7.2f} "
          f"{tot['task']:7.2f} {tot['wall'] - tot['in_jobs']:8.2f}")
    print(f"SparkContext -> first stage {first - app['start'] / 1000:.1f} s; after the last stage "
          f"{t_end - (spans[-1][2] if spans else t_end):.1f} s")
    if not args.run:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"spans": spans, "jobs": jobs, "per_stage": per_stage}


if __name__ == "__main__":
    main()
