"""Where a Spark application's wall time goes, from its event log (``spark.eventLog.enabled``).

``python -m bench.eventlog EVENTLOG [EVENTLOG...]`` prints one line per job (its call site in the
product, stages, tasks, wall seconds, the tasks' summed run and CPU time, the share of the job's
wall the tasks kept the cores busy) and the application's totals: wall from the application start
to its end, time inside jobs, time between jobs (driver-side Python, planning, file listing,
commits), task run and CPU time.  Reads plain and zstd-compressed logs (Spark's default codec),
a file or an ``eventlog_v2_*`` folder.
"""
from __future__ import annotations

import glob
import io
import json
import os
import sys
from collections import defaultdict


def _lines(path: str):
    files = sorted(glob.glob(os.path.join(path, "events_*"))) if os.path.isdir(path) else [path]
    for f in files:
        raw = open(f, "rb").read()
        if f.endswith(".zstd"):
            import zstandard

            raw = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read()
        for line in raw.decode("utf-8", "replace").splitlines():
            if line.strip():
                yield json.loads(line)


def _site(props: dict) -> str:
    """The product's frame in the job's call site (``callSite.short`` / ``callSite.long``)."""
    long = props.get("callSite.long", "") or ""
    for line in long.splitlines():
        if "corpus_pipeline" in line and "/spark/io.py" not in line:
            return line.strip().split("corpus_pipeline/")[-1][:70]
    return (props.get("callSite.short") or "?")[:70]


def summarize(path: str) -> dict:
    jobs, stage_job, tasks = {}, {}, defaultdict(lambda: {"n": 0, "run_ms": 0, "cpu_ns": 0, "failed": 0})
    app, sql = {}, {}
    for e in _lines(path):
        ev = e["Event"]
        if ev.endswith("SparkListenerSQLExecutionStart"):
            sql[str(e["executionId"])] = (e.get("description") or "").split(" at ")[0]
        if ev == "SparkListenerApplicationStart":
            app["start"] = e["Timestamp"]
        elif ev == "SparkListenerApplicationEnd":
            app["end"] = e["Timestamp"]
        elif ev == "SparkListenerJobStart":
            props = e.get("Properties") or {}
            jobs[e["Job ID"]] = {"start": e["Submission Time"], "stages": len(e["Stage IDs"]),
                                 "site": _site(props), "desc": props.get("spark.job.description", ""),
                                 "sql": sql.get(str(props.get("spark.sql.execution.id")), "")}
            for s in e["Stage IDs"]:
                stage_job[s] = e["Job ID"]
        elif ev == "SparkListenerJobEnd":
            jobs[e["Job ID"]]["end"] = e["Completion Time"]
        elif ev == "SparkListenerStageCompleted":
            info = e["Stage Info"]
            j = stage_job.get(info["Stage ID"])
            if j is not None and "Submission Time" in info:
                jobs[j].setdefault("ran_stages", 0)
                jobs[j]["ran_stages"] += 1
        elif ev == "SparkListenerTaskEnd":
            j = stage_job.get(e["Stage ID"])
            m = e.get("Task Metrics") or {}
            t = tasks[j]
            t["n"] += 1
            t["run_ms"] += m.get("Executor Run Time", 0)
            t["cpu_ns"] += m.get("Executor CPU Time", 0)
            if e.get("Task End Reason", {}).get("Reason") != "Success":
                t["failed"] += 1
    return {"app": app, "jobs": jobs, "tasks": tasks}


def report(path: str, cores: int = 2) -> dict:
    s = summarize(path)
    jobs, tasks, app = s["jobs"], s["tasks"], s["app"]
    print(f"{'job':>4} {'site':<70} {'stg':>3} {'ran':>3} {'tasks':>5} {'wall s':>7} {'task s':>7} {'busy':>5}")
    intervals = []
    for j in sorted(jobs):
        d = jobs[j]
        wall = (d.get("end", d["start"]) - d["start"]) / 1000
        t = tasks.get(j, {"n": 0, "run_ms": 0})
        intervals.append((d["start"], d.get("end", d["start"])))
        busy = t["run_ms"] / 1000 / (wall * cores) if wall > 0 else 0
        print(f"{j:>4} {d['site']:<70} {d['stages']:>3} {d.get('ran_stages', 0):>3} {t['n']:>5} {wall:7.2f} "
              f"{t['run_ms'] / 1000:7.2f} {busy:5.0%}")
    # union of job intervals
    in_jobs, cur = 0, None
    for a, b in sorted(intervals):
        if cur is None or a > cur[1]:
            if cur:
                in_jobs += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    if cur:
        in_jobs += cur[1] - cur[0]
    total = {"jobs": len(jobs), "stages_ran": sum(d.get("ran_stages", 0) for d in jobs.values()),
             "tasks": sum(t["n"] for t in tasks.values()),
             "task_run_s": sum(t["run_ms"] for t in tasks.values()) / 1000,
             "task_cpu_s": sum(t["cpu_ns"] for t in tasks.values()) / 1e9,
             "in_jobs_s": in_jobs / 1000}
    if "start" in app:
        first = min((a for a, _ in intervals), default=app["start"])
        last = max((b for _, b in intervals), default=app["start"])
        total["app_start_to_first_job_s"] = (first - app["start"]) / 1000
        total["first_to_last_job_s"] = (last - first) / 1000
        total["between_jobs_s"] = total["first_to_last_job_s"] - total["in_jobs_s"]
        if "end" in app:
            total["after_last_job_s"] = (app["end"] - last) / 1000
    print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in total.items()))
    return total


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(p)
        report(p)
