"""The whole loop on Spark Connect: a Connect server started on 127.0.0.1 from the installed pyspark,
whose Python workers run an interpreter where the product is NOT installed (the venv's own Python
without its ``.pth`` files: the dependencies are there, the editable ``corpus_pipeline`` is not), so
the product's code reaches them only as the session's artifact (``spark.ship_code``).  The client is
a process of its own with no JVM (``--remote sc://...``).  Its run must equal the classic
``local[2]`` run of the same arguments (``decontaminated_run``): every committed table and marker
count, the final corpus, the report."""
from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def _bare_python(folder: Path) -> str:
    """This venv's interpreter without site processing (``-S``): its site-packages on ``PYTHONPATH``
    (fasttext, resiliparse, pyspark...), its ``.pth`` files -- the editable install of the product
    among them -- not read."""
    path = folder / "bare-python"
    site = sysconfig.get_paths()["purelib"]
    path.write_text("#!/bin/sh\n"
                    f'PYTHONPATH="{site}${{PYTHONPATH:+:$PYTHONPATH}}" exec {sys.executable} -S "$@"\n')
    path.chmod(0o755)
    return str(path)


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    from corpus_pipeline.spark.cluster import LocalConnectServer

    d = tmp_path_factory.mktemp("connect")
    python = _bare_python(d)
    probe = subprocess.run([python, "-c", "import fasttext, resiliparse, fastwarc, pyarrow; import corpus_pipeline"],
                           capture_output=True, text=True, cwd=d)
    assert "No module named 'corpus_pipeline'" in probe.stderr, probe.stderr   # only the product is missing
    server = LocalConnectServer(cores=2, memory="2g", python=python, work_dir=str(d / "server"),
                                timeout_s=180, conf={"spark.sql.shuffle.partitions": "4"})
    server.start()
    print(f"\n[connect] {server.url} up in {server.timings['server_start_s']:.1f}s")
    try:
        yield server
    finally:
        server.stop()


def _summary(run: Path) -> dict:
    from bench.compare_commits import _untimed

    s = _untimed(json.loads((run / "report" / "summary.json").read_text()))
    s.pop("run")
    return s


def test_loop_on_spark_connect_equals_the_classic_run(connect_server, decontaminated_run, crawl, tmp_path):
    from bench.compare_commits import compare
    from runs import cli_process, run_args

    run = tmp_path / "run"
    t0 = time.monotonic()
    p = cli_process(run_args(crawl, run, "--benchmarks", str(crawl / "benchmarks"),
                             "--remote", connect_server.url, "--set", "ingest.shared_local_paths=true"))
    print(f"[connect] loop in {time.monotonic() - t0:.1f}s")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-4000:] + open(connect_server.log).read()[-3000:]
    assert f"[spark] remote={connect_server.url} (Spark Connect)" in p.stdout

    rows = {r["stage"]: r for r in compare(decontaminated_run, run)}
    assert len(rows) > 20 and {"final/corpus", "final/contamination", "pages", "prepared", "iter=001/scores"} <= set(rows)
    assert [r for r in rows.values() if not r["ok"]] == []
    assert rows["final/corpus"]["rows"][0] > 100 and rows["final/contamination"]["rows"][0] > 0
    assert _summary(run) == _summary(decontaminated_run)
    md = (run / "report" / "summary.md").read_text().replace(str(run), "RUN")
    assert md == (decontaminated_run / "report" / "summary.md").read_text().replace(str(decontaminated_run), "RUN")
