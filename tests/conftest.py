"""Shared fixtures.

Real data comes from one setting: ``CORPUS_PIPELINE_DATA`` (default
``../shared/data`` next to the clone).  Where ``CI`` is set a missing folder
fails the test instead of skipping it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def shared_data_dir() -> Path:
    if DATA_DIR.is_dir():
        return DATA_DIR
    msg = f"real test data not found at {DATA_DIR} (set CORPUS_PIPELINE_DATA)"
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return shared_data_dir()


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for the whole test session."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from corpus_pipeline.config import SparkConfig
    from corpus_pipeline.spark.session import get_spark

    s = get_spark(SparkConfig(master="local[2]", conf={"spark.ui.enabled": "false",
                                                        "spark.sql.shuffle.partitions": "4"}), quiet=True)
    yield s
    s.stop()


# ------------------------------------------------------------------ running on several workers (pytest-xdist)
# `make test` runs the suite on two workers (`-n 2 --dist loadgroup`). A group is what one worker runs
# start to end: one test file, so its module fixtures are built once; the end-to-end files that share the
# session's runs (tests/e2e/conftest.py) form one group, so those runs are built once too. Groups holding a
# slow test are handed out first: the longest work starts early and the short files fill in around it.
SHARED_RUN_FILES = {"test_annotate_browser.py", "test_loop_e2e.py", "test_results_e2e.py", "test_resume_e2e.py"}


def _group(item) -> str:
    path = Path(str(item.fspath))
    if path.parent.name == "e2e" and path.name in SHARED_RUN_FILES:
        return "e2e-shared-runs"
    return str(path.relative_to(ROOT))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    slow_groups = set()
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_group(item)))
        if item.get_closest_marker("slow") is not None:
            slow_groups.add(item.get_closest_marker("xdist_group").args[0])
    order = {}
    for item in items:
        order.setdefault(item.get_closest_marker("xdist_group").args[0], len(order))
    items.sort(key=lambda it: (it.get_closest_marker("xdist_group").args[0] not in slow_groups,
                               order[it.get_closest_marker("xdist_group").args[0]]))
