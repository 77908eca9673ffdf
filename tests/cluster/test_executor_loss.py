"""An executor lost mid-stage: ``corpus-pipeline ingest`` on a standalone cluster of two workers
(one core each) on 127.0.0.1, with one executor's JVM killed (SIGKILL) during extraction and again
during near dedup, each once the stage's first task has finished and another is running
(``executor_loss_run.py`` watches the status tracker).  The run completes, and every committed
stage (the extraction batches and their counter totals, the dedup removals, pages, skips, the
prepared lines; tables as multisets of rows, markers' counts) equals an undisturbed run's on
``local[2]``: retried tasks left no duplicate or missing row and no count twice.

The input is a 400-page mini-crawl (2 WARCs, near-duplicates included) and the three real WARCs of
``warc/derived_minicrawl``: five extraction tasks for two executors.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TIMEOUT_S = 900


def _env() -> dict:
    env = dict(os.environ)
    env["PYSPARK_PYTHON"] = sys.executable
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _real_warcs() -> list[str]:
    data = Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data"))
    files = sorted(str(p) for p in (data / "warc" / "derived_minicrawl").glob("*.warc.gz"))
    if not files:
        if os.environ.get("CI"):
            pytest.fail(f"no real WARCs under {data} (CORPUS_PIPELINE_DATA)")
        pytest.skip("real WARCs not available (CORPUS_PIPELINE_DATA)")
    return files


def test_executor_lost_during_extraction_and_near_dedup(tmp_path):
    from bench.compare_commits import compare
    from corpus_pipeline.spark.cluster import LocalCluster

    real = _real_warcs()
    mc = tmp_path / "mc"
    subprocess.run([sys.executable, "-m", "corpus_pipeline", "minicrawl", "--out", str(mc), "--pages", "400",
                    "--random-seed", "1"], check=True, env=_env(), capture_output=True, timeout=300)
    inputs = sorted(str(p) for p in (mc / "warc").glob("*.warc.gz")) + real

    calm = tmp_path / "calm"
    r = subprocess.run([sys.executable, "-m", "corpus_pipeline", "ingest", "--input", *inputs, "--run", str(calm),
                        "--set", "spark.master=\"local[2]\"", "--set", "ingest.files_per_task=1",
                        "--set", "ingest.extract_timeout_s=120"],
                       env=_env(), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert r.returncode == 0, r.stderr[-4000:]

    with LocalCluster(workers=2, cores=1, memory="1500m", work_dir=str(tmp_path / "cluster")) as c:
        hit = tmp_path / "hit"
        out = tmp_path / "killed.json"
        r = subprocess.run([sys.executable, str(HERE / "executor_loss_run.py"), c.master_url, *inputs, str(hit),
                            str(out)], env=_env(), capture_output=True, text=True, timeout=TIMEOUT_S)
        assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-5000:]}"
        killed = json.loads(out.read_text())["killed"]
        print("\n".join(f"[kill] {k}" for k in killed))
        # one kill per group, each after the stage's first task and with a task of it running
        assert [k["group"] for k in killed] == ["extract", "near_dedup"], (killed, r.stdout[-2000:], r.stderr[-3000:])
        assert all(k["completed"] >= 1 for k in killed)
        assert len({k["pid"] for k in killed}) == 2

    diffs = [d for d in compare(calm, hit) if not d["ok"]]
    assert not diffs, diffs
    import pyarrow.parquet as pq

    from corpus_pipeline.runfolder import RunFolder

    rf = RunFolder(str(hit))
    pages = pq.read_table(rf.data(rf.path("pages")), columns=["page_id"]).column("page_id").to_pylist()
    assert len(pages) == len(set(pages)) > 0
    counts = rf.counts(rf.path("pages"))
    assert counts["pages"] == len(pages)
    assert counts["near_duplicates"] > 0           # the near dedup stage had work to redo
