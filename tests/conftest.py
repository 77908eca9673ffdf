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
if str(ROOT) not in sys.path:            # devtools/ and bench/ (development material outside the package)
    sys.path.insert(0, str(ROOT))
DATA_DIR = Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()

# The tests' JVMs (this session's and every CLI process a test starts, which inherit the setting) compile
# with the client compiler only and collect with one thread: they live minutes, not hours, and on two cores
# C2's compiler threads and G1's collector threads took a third of the JVM's CPU time (measured on the
# shared uninterrupted run: 107 JVM CPU-seconds with the defaults, 73 with these). Spark reads the variable
# when it starts a driver; an explicitly set value wins. The client compiler alone reserves 48 MB of code
# cache: the demo-size loop filled it once ("CodeCache is full. Compiler has been disabled.", then a lost
# task), so the cache is reserved larger.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=160m")


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

    # whole-stage code generation off: the tests' tables are small, so compiling each query's Java code
    # cost more than running it (the shared uninterrupted run: 73 JVM CPU-seconds with it, 54 without, the
    # same tables). The runs that start their own process (the demo, scale, cluster, submit and kill tests)
    # keep Spark's default, so code generation stays covered.
    s = get_spark(SparkConfig(master="local[2]", conf={"spark.ui.enabled": "false",
                                                        "spark.sql.shuffle.partitions": "4",
                                                        "spark.sql.codegen.wholeStage": "false"}), quiet=True)
    yield s
    s.stop()


# ------------------------------------------------------------------ running on several workers (pytest-xdist)
# `make test` runs the suite on two workers (`-n 2 --dist loadgroup`). A group is what one worker runs
# start to end: one test file, so its module fixtures are built once; the files whose tests use the runs
# the end-to-end files share (session fixtures of tests/e2e/conftest.py) form one group, so those runs are
# built once too. The groups are handed out longest first (`--no-loadscope-reorder` keeps this order): the
# costliest measured groups (`LONGEST`, the README's per-file table), then every other group holding a slow
# test, then the rest, which fill in around them.
SHARED_RUNS = {"crawl", "straight_run", "decontaminated_run", "paused_run"}
LONGEST = ["e2e-shared-runs", "tests/test_devcrawl.py", "tests/e2e/test_scale_e2e.py", "tests/cluster/test_cluster.py",
           "tests/spark/test_near_dedup.py", "tests/e2e/test_demo_e2e.py"]


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    _group_and_order(items)
    result = yield
    if getattr(config.option, "loadgroup", False):      # an xdist worker under --dist loadgroup
        for item in items:
            _add_group_to_id(item)
    return result


def _add_group_to_id(item) -> None:
    """What pytest-xdist's worker does for ``--dist loadgroup``: the group joins the test's id
    (``path::test@group``), and the controller hands out the tests of one group as one unit.
    pytest-xdist 3.8 writes ``item._nodeid``, which pytest 9.2 no longer reads (it keeps the id as a
    ``NodeId`` in ``item._id``), so each test became its own unit and both workers built the same
    module and session fixtures (measured: the development-crawl loop built twice). Done here when
    the id has no group yet; ``tests/test_layout.py`` checks that a group stays on one worker."""
    group = item.get_closest_marker("xdist_group").args[0]
    if item.nodeid.endswith("@" + group):
        return
    new = f"{item.nodeid}@{group}"
    if hasattr(item, "_id"):
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(new)
    else:
        item._nodeid = new


def _group_and_order(items) -> None:
    def file_of(item) -> str:
        return str(Path(str(item.fspath)).relative_to(ROOT))

    sharing = {file_of(it) for it in items
               if file_of(it).startswith("tests/e2e/") and SHARED_RUNS & set(getattr(it, "fixturenames", ()))}
    group, slow = {}, set()
    for item in items:
        f = file_of(item)
        g = "e2e-shared-runs" if f in sharing else f
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(g))
        group[item.nodeid] = g = item.get_closest_marker("xdist_group").args[0]
        if item.get_closest_marker("slow") is not None:
            slow.add(g)
    first_seen = {}
    for item in items:
        first_seen.setdefault(group[item.nodeid], len(first_seen))
    rank = {g: i for i, g in enumerate(LONGEST)}
    items.sort(key=lambda it: (rank.get(group[it.nodeid], len(rank)), group[it.nodeid] not in slow,
                               first_seen[group[it.nodeid]]))


@pytest.fixture(scope="module")
def moto_url():
    """moto's S3 server on a free loopback port, one per test module (its own buckets): real HTTP."""
    from moto.server import ThreadedMotoServer

    from corpus_pipeline.spark.cluster import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()
