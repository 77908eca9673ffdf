"""``corpus-pipeline ingest`` on a standalone cluster, killing one executor's JVM mid-stage (a helper
process of ``test_executor_loss.py``; arguments: MASTER INPUT... RUN OUT_JSON).

The extraction jobs run in the job group ``extract`` and near dedup's in ``near_dedup`` (the
Spark steps are wrapped here).  A watcher thread polls the status tracker: in each group in turn,
once a stage of the group has a finished task and a running one, it asks the application's REST
API which executor runs that running task and SIGKILLs that executor's JVM (a deterministic point:
after the stage's first task, with a task in flight).  The kills are written to OUT_JSON.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import urllib.request

GROUPS = ("extract", "near_dedup")


def _grouped(name, fn):
    def wrap(spark, *a, **k):
        sc = spark.sparkContext
        sc.setJobGroup(name, name)
        try:
            return fn(spark, *a, **k)
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)
    return wrap


def _running_executor(sc):
    """An executor running a task now (the application's REST API: ``activeTasks`` per executor)."""
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/executors"
    with urllib.request.urlopen(url, timeout=30) as r:   # a loaded machine answers slowly (5 s timed out once in CI)
        execs = json.loads(r.read().decode("utf-8"))
    busy = sorted(e["id"] for e in execs if e.get("id") != "driver" and e.get("isActive", True)
                  and e.get("activeTasks", 0) > 0)
    return busy[0] if busy else None


def _executor_pid(app_id: str, executor_id: str):
    from corpus_pipeline.spark.cluster import LocalCluster

    return LocalCluster.executor_pids(app_id).get(executor_id)


def watch(killed: list, stop: threading.Event) -> None:
    try:
        _watch(killed, stop)
    except Exception:  # noqa: BLE001 - shown by the test when no kill happened
        import traceback

        traceback.print_exc()


def _watch(killed: list, stop: threading.Event) -> None:
    from pyspark import SparkContext

    sc = None
    while sc is None and not stop.is_set():          # the context, once its JVM side is made
        sc = SparkContext._active_spark_context
        if sc is not None and getattr(sc, "_jsc", None) is None:
            sc = None
        time.sleep(0.2)
    if sc is None:
        return
    print(f"[watch] watching {sc.applicationId}, ui {sc.uiWebUrl}", file=sys.stderr, flush=True)
    tr = sc.statusTracker()
    for group in GROUPS:
        done = False
        while not done and not stop.is_set():
            for jid in tr.getJobIdsForGroup(group):
                info = tr.getJobInfo(jid)
                for sid in (info.stageIds if info else []):
                    st = tr.getStageInfo(sid)
                    if st is None or st.numCompletedTasks < 1 or st.numActiveTasks < 1:
                        continue
                    try:
                        ex = _running_executor(sc)
                    except OSError as e:
                        print(f"[watch] {e}", file=sys.stderr, flush=True)
                        ex = None
                    if ex is None:
                        # the UI's executor list lags the status tracker on a loaded machine (two clean-clone
                        # runs saw no kill at all): then one of the application's executors, both of which
                        # hold this stage's tasks or its shuffle files while a task of it is running
                        from corpus_pipeline.spark.cluster import LocalCluster
                        pids = LocalCluster.executor_pids(sc.applicationId)
                        ex = min(pids) if pids else None
                    pid = _executor_pid(sc.applicationId, ex) if ex is not None else None
                    if pid is None:
                        continue
                    os.kill(pid, signal.SIGKILL)
                    killed.append({"group": group, "job": jid, "stage": sid, "stage_name": st.name,
                                   "tasks": st.numTasks, "completed": st.numCompletedTasks,
                                   "executor": ex, "pid": pid})
                    print(f"[kill] {group}: stage {sid} ({st.numCompletedTasks}/{st.numTasks} done), "
                          f"executor {ex} (pid {pid}) killed", flush=True)
                    done = True
                    break
                if done:
                    break
            time.sleep(0.05)


def main(argv: list[str]) -> int:
    master, *inputs, run, out = argv
    from corpus_pipeline.cli import main as cli
    from corpus_pipeline.spark import ingest as sparkingest
    from corpus_pipeline.stages.near_dedup import step as near_step

    sparkingest.extract_to_staging = _grouped("extract", sparkingest.extract_to_staging)
    near_step.near_removals = _grouped("near_dedup", near_step.near_removals)
    killed: list = []
    stop = threading.Event()
    t = threading.Thread(target=watch, args=(killed, stop), daemon=True)
    t.start()
    sets = [f"spark.master={json.dumps(master)}", "ingest.files_per_task=1", "ingest.extract_timeout_s=120",
            "ingest.shared_local_paths=true",   # one machine: the workers see the driver's local paths
            'spark.conf={"spark.executor.memory" = "1g", "spark.ui.enabled" = "true", '
            '"spark.sql.adaptive.coalescePartitions.enabled" = "false"}']
    args = ["ingest", "--input", *inputs, "--run", run]
    for s in sets:
        args += ["--set", s]
    rc = cli(args)
    stop.set()
    with open(out, "w") as f:
        json.dump({"rc": rc, "killed": killed}, f)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
