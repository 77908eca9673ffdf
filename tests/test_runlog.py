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
    got = [LINE.match(ln).groups() for ln in lines]
    assert got == [("INFO", "loop", "iteration 1: collected 3 pages"), ("WARNING", "spark", "slow stage"),
                   ("ERROR", "run", "run failed: ValueError: boom")]
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
