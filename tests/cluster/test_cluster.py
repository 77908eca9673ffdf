"""`corpus-pipeline submit` against a real standalone Spark cluster (one master, one
worker) started from the installed pyspark on 127.0.0.1, compared with local runs.

The cluster is started once for this module and always stopped (fixture teardown),
also when a test fails.  Executors run this interpreter (PYSPARK_PYTHON set
explicitly); the project reaches them as the --py-files zip that submit builds.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

SUBMIT_TIMEOUT_S = 600
# the per-page extraction time limit depends on machine load: generous, so both runs keep the same pages
SAME_PAGES = ["--set", "ingest.extract_timeout_s=120"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from corpus_pipeline.spark.cluster import LocalCluster

    c = LocalCluster(cores=2, memory="3g", work_dir=str(tmp_path_factory.mktemp("cluster")))
    c.start()
    print(f"\n[cluster] {c.master_url}: master up in {c.timings['master_start_s']:.1f}s, "
          f"worker registered {c.timings['worker_register_s']:.1f}s later")
    procs = list(c._procs)
    try:
        yield c
    finally:
        c.stop()
        assert all(p.poll() is not None for p in procs)  # nothing left running


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    return str(tmp_path_factory.mktemp("dist"))


def submit(cluster, dist, *command: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYSPARK_PYTHON"] = sys.executable
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    cmd = [sys.executable, "-m", "corpus_pipeline", "submit", "--master", cluster.master_url, "--dist", dist,
           "--conf", "spark.executor.memory=1g", "--conf", "spark.cores.max=2",
           "--conf", "spark.ui.enabled=false", *command]
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=SUBMIT_TIMEOUT_S)
    print(f"[cluster] submit {command[0]}: exit {r.returncode} in {time.monotonic() - t0:.1f}s")
    return r


def _explain(r: subprocess.CompletedProcess) -> str:
    return f"exit {r.returncode}\n--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-6000:]}"


def _app_ids(cluster) -> set[str]:
    st = cluster.state() or {}
    return {a["id"] for a in st.get("completedapps", []) + st.get("activeapps", [])}


def _new_apps(cluster, before: set[str]) -> list[dict]:
    st = cluster.state() or {}
    return [a for a in st.get("completedapps", []) + st.get("activeapps", []) if a["id"] not in before]


def _table(spark, run: str, stage: str, cols: list[str]) -> set[tuple]:
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.io import read_table

    rf = RunFolder(run)
    return {tuple(r) for r in read_table(spark, rf.data(rf.path(stage))).select(*cols).collect()}


def test_submit_propagates_exit_codes_and_reuses_package(cluster, dist, tmp_path, capsys):
    from corpus_pipeline import packaging
    from corpus_pipeline.cli import main

    missing = str(tmp_path / "no-such-run")
    r = submit(cluster, dist, "report", missing)
    assert r.returncode == 2, _explain(r)               # UsageError in the driver, through spark-submit
    assert "no such run folder" in r.stdout + r.stderr  # the driver's output reaches the caller
    assert packaging.zip_is_current(dist)

    capsys.readouterr()
    assert main(["submit", "--dry-run", "--master", cluster.master_url, "--dist", dist,
                 "--conf", "spark.executor.memory=1g", "report", missing, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "reused (up to date)" in out
    line = next(x for x in out.splitlines() if "spark-submit" in x)
    assert f"--master {cluster.master_url}" in line and "--conf spark.executor.memory=1g" in line
    assert line.endswith(f"cli.py report {missing} --dry-run")  # COMMAND's arguments passed on unchanged

    # a local input path with the cluster's master (known to the driver only through spark-submit):
    # refused in the driver before any SparkContext, nothing written
    run = tmp_path / "refused"
    before = _app_ids(cluster)
    r = submit(cluster, dist, "ingest", "--input", str(tmp_path / "*.warc.gz"), "--run", str(run))
    assert r.returncode == 2, _explain(r)
    out = r.stdout + r.stderr                           # spark-submit merges the driver's stderr into stdout
    assert f"the Spark master is {cluster.master_url}" in out and "shared_local_paths" in out
    assert not run.exists() and _new_apps(cluster, before) == []


def test_submit_whole_loop_matches_local(cluster, dist, spark, tmp_path):
    """The contract's target: `submit ... run` on a mini-crawl equals a local run of the same input
    (checked stage by stage: pages, iteration 1's scores, the final corpus)."""
    from corpus_pipeline.cli import main

    crawl = str(tmp_path / "crawl")
    assert main(["minicrawl", "--out", crawl, "--pages", "400", "--random-seed", "3"]) == 0
    local_run, cluster_run = str(tmp_path / "local"), str(tmp_path / "cluster")
    args = ["--labels", crawl + "/labels.jsonl", "--annotate", "auto", "--max-iterations", "2", *SAME_PAGES]

    assert main(["run", "--input", crawl + "/warc/*.warc.gz", *args, "--run", local_run]) == 0
    before = _app_ids(cluster)
    # on the cluster the same files as a file:// URI: listed through Hadoop, stated to be on a shared mount
    r = submit(cluster, dist, "run", "--input", f"file://{crawl}/warc/*.warc.gz", *args, "--run", cluster_run)
    assert r.returncode == 0, _explain(r)
    assert len(_new_apps(cluster, before)) == 1, _explain(r)
    assert Path(cluster_run, "report", "summary.json").is_file()

    # the same pages and the same scores (same seed, same model), not only the same end result
    local_pages = _table(spark, local_run, "pages", ["page_id", "text"])
    assert local_pages and _table(spark, cluster_run, "pages", ["page_id", "text"]) == local_pages
    assert _table(spark, cluster_run, "iter=001/scores", ["page_id", "score"]) == \
        _table(spark, local_run, "iter=001/scores", ["page_id", "score"])

    cols = ["page_id", "text"]
    local_corpus = _table(spark, local_run, "final/corpus", cols)
    assert local_corpus, "the local run collected no page: two empty corpora would compare equal"
    assert _table(spark, cluster_run, "final/corpus", cols) == local_corpus


def test_zip_is_importable_and_ships_the_seed(dist, tmp_path):
    """What executors and the driver get from --py-files: the package and seeds/, usable from the zip."""
    import zipfile

    from corpus_pipeline import packaging

    z, _ = packaging.ensure_zip(dist)
    names = zipfile.ZipFile(z).namelist()
    assert "corpus_pipeline/cli.py" in names and "seeds/starter_seed.jsonl.gz" in names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import corpus_pipeline, corpus_pipeline.packaging as p; "
            "print(corpus_pipeline.__file__); print(p.project_file('seeds/starter_seed.jsonl.gz'))")
    r = subprocess.run([sys.executable, "-c", code, z], capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "TMPDIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    module_file, seed = r.stdout.split()
    assert module_file.startswith(z)                      # imported from the zip, not the checkout
    shipped = Path(packaging.project_root(), "seeds", "starter_seed.jsonl.gz").read_bytes()
    assert Path(seed).read_bytes() == shipped
