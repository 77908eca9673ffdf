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
