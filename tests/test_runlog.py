"""RUN/logs/run.log and the progress line (no Spark)."""
from __future__ import annotations

import re

import pytest

from corpus_pipeline.runfolder import RunFolder
from corpus_pipeline.runlog import logger, run_log
from corpus_pipeline.spark.progress import progress_line

LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO|WARNING|ERROR) +corpus_pipeline\.(\w+): (.*)$")


def test_run_log_appends_timestamped_levelled_lines_and_records_failures(tmp_path):
    run = RunFolder(tmp_path / "run")
    with run_log(run) as path:
        logger("loop").info("iteration 1: collected 3 pages")
        logger("loop").debug("not written (below INFO)")
    logger("loop").info("after the run: not in the file")
    with pytest.raises(ValueError):
        with run_log(run):
            logger("spark").warning("slow stage")
            raise ValueError("boom")
    lines = (tmp_path / "run" / "logs" / "run.log").read_text().splitlines()
    got = [LINE.match(ln).groups() for ln in lines if LINE.match(ln)]
    assert got == [("INFO", "loop", "iteration 1: collected 3 pages"), ("WARNING", "spark", "slow stage"),
                   ("ERROR", "run", "run failed: ValueError: boom")]
    # the failure's traceback follows its line (the console shows one line)
    tail = lines[lines.index(next(ln for ln in lines if "run failed" in ln)) + 1:]
    assert tail[0] == "Traceback (most recent call last):" and tail[-1] == "ValueError: boom"
    assert path.endswith("logs/run.log")


def test_progress_line_has_rate_and_time_left():
    assert progress_line(3, "parquet", 37, 120, 2, 10.0) == \
        "[spark] stage 3 (parquet): 37/120 tasks, 2 running, 3.7 tasks/s, 10 s, ~22 s left"
    assert progress_line(3, "x", 0, 8, 2, 5.0).endswith("0.0 tasks/s, 5 s")      # no estimate before a task ends
    assert progress_line(3, "x", 8, 8, 0, 5.0).endswith("1.6 tasks/s, 5 s")


def test_spark_log_goes_to_the_local_run_folder_else_to_the_temporary_folder(tmp_path):
    import tempfile

    from corpus_pipeline.spark.session import spark_log_path

    run = tmp_path / "run"
    assert spark_log_path(str(run)) == str(run / "logs" / "spark.log")
    assert (run / "logs").is_dir()                          # created for the JVM's file appender
    for where in ("s3://bucket/run", None):                 # an object store cannot be appended to
        path = spark_log_path(where)
        assert path.startswith(tempfile.gettempdir()) and path.endswith(".log"), path


def test_spark_log_settings_reach_the_launcher_quoted_and_are_checked():
    from corpus_pipeline.config import ConfigError, load_config
    from corpus_pipeline.spark.session import _java_property

    # the launcher splits SPARK_SUBMIT_OPTS like a shell: one option, whatever the path holds
    assert _java_property("a.b", '/x y/"q"\\z') == '"-Da.b=/x y/\\"q\\"\\\\z"'
    assert load_config(overrides=["spark.console_log_level=off"]).spark.console_log_level == "off"
    for bad in ("spark.log_level=warning", "spark.console_log_level=quiet"):
        with pytest.raises(ConfigError, match=bad.split("=")[0]):
            load_config(overrides=[bad])


def test_connect_progress_lines_follow_the_streamed_stages():
    from types import SimpleNamespace as NS

    from corpus_pipeline.spark.progress import ConnectProgress

    now = [100.0]
    lines = []
    h = ConnectProgress(interval=10, after=5, echo=lines.append, clock=lambda: now[0])

    def stage(done_tasks, finished=False):
        return NS(stage_id=7, num_tasks=40, num_completed_tasks=done_tasks, num_bytes_read=0, done=finished)

    h([stage(0)], 2, "4f1c2a9e-1111", False)            # first seen: too young for a line
    now[0] = 106.0
    h([stage(12)], 2, "4f1c2a9e-1111", False)
    now[0] = 110.0
    h([stage(20)], 2, "4f1c2a9e-1111", False)            # within the interval: no second line
    now[0] = 117.0
    h([stage(30)], 1, "4f1c2a9e-1111", False)
    h([stage(40, finished=True)], 0, "4f1c2a9e-1111", True)   # a finished stage: no line
    h(None, 0, None, True)                                # nothing streamed: nothing shown
    assert lines == ["[spark] stage 7 (operation 4f1c2a9e): 12/40 tasks, 2 running, 2.0 tasks/s, 6 s, ~14 s left",
                     "[spark] stage 7 (operation 4f1c2a9e): 30/40 tasks, 1 running, 1.8 tasks/s, 17 s, ~6 s left"]
    h([object()], 0, "x", False)                          # a malformed update never raises


def test_progress_lines_name_the_product_stage_and_cover_driver_work():
    from types import SimpleNamespace as NS

    from corpus_pipeline.spark.progress import SparkProgress, current_stage, product_stage, stage_label

    now = [1000.0]
    stages = {}

    class Tracker:
        def getActiveStageIds(self):
            return list(stages)

        def getStageInfo(self, sid):
            return stages.get(sid)

    lines = []
    p = SparkProgress(Tracker(), interval=10, after=5, echo=lines.append, clock=lambda: now[0])
    assert stage_label("near_dedup") == "near dedup" and stage_label("model", 2) == "iteration 2: model"
    with product_stage(None, "near dedup", clock=lambda: now[0]):
        assert current_stage() == ("near dedup", 1000.0)
        for t, sid in ((1002, 3), (1006, 4), (1009, 5), (1016, 6)):    # short Spark stages, one after another
            now[0] = t
            stages.clear()
            stages[sid] = NS(name="parquet at NativeMethodAccessorImpl.java:0", numTasks=4, numCompletedTasks=1,
                             numActiveTasks=2)
            p.tick()
    with product_stage(None, stage_label("model", 2), clock=lambda: now[0]):
        stages.clear()                                              # fastText training: no Spark stage
        now[0] = 1022.0
        p.tick()
    assert current_stage() == (None, 0.0)
    assert lines == ["[spark] near dedup, 6 s: Spark stage 4, 1/4 tasks, 2 running",
                     "[spark] near dedup, 16 s: Spark stage 6, 1/4 tasks, 2 running",
                     "[spark] iteration 2: model, 6 s: no Spark stage running (work on the driver)"]
    assert not any("NativeMethodAccessorImpl" in ln for ln in lines)


def test_progress_outside_a_product_stage_names_the_spark_stage():
    from types import SimpleNamespace as NS

    from corpus_pipeline.spark.progress import SparkProgress

    now = [0.0]

    class Tracker:
        def getActiveStageIds(self):
            return [9]

        def getStageInfo(self, sid):
            return NS(name="count at x.py:1", numTasks=10, numCompletedTasks=min(10, int(now[0])), numActiveTasks=2)

    lines = []
    p = SparkProgress(Tracker(), interval=10, after=5, echo=lines.append, clock=lambda: now[0])
    for t in (0, 4, 6, 8, 16):
        now[0] = float(t)
        p.tick()
    assert lines == ["[spark] stage 9 (count at x.py:1): 6/10 tasks, 2 running, 1.0 tasks/s, 6 s, ~4 s left",
                     "[spark] stage 9 (count at x.py:1): 10/10 tasks, 2 running, 0.6 tasks/s, 16 s"]


def test_jvm_stderr_filter_drops_the_incubator_warning_only(tmp_path):
    import io
    import os

    from corpus_pipeline.spark.session import jvm_stderr_filter

    src = io.BytesIO(b"WARNING: Using incubator modules: jdk.incubator.vector\n"
                     b"ERROR SparkContext: real trouble\n"
                     b"a Python worker's traceback\n")
    out = tmp_path / "err"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT)
    try:
        jvm_stderr_filter(src, fd)
    finally:
        os.close(fd)
    assert out.read_bytes() == b"ERROR SparkContext: real trouble\na Python worker's traceback\n"
