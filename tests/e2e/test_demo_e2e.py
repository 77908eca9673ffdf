"""The demo's done-criteria (issue: the iteration loop), measured by the report
of a run on the demo-size mini-crawl, exactly as `make demo` runs it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def test_demo_saturates_with_high_precision_and_recall(tmp_path):
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    out = tmp_path / "demo"
    p = subprocess.run(["make", "-s", "demo", f"DEMO_DIR={out}", f"BIN={Path(sys.executable).parent}"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    # quiet by default: Spark's own log lines (its WARN lines) are in the run folder, not on the console
    assert not re.search(r"\b(INFO|WARN)\s+[A-Z][\w$]*: ", p.stdout + p.stderr), p.stderr[-3000:]
    assert (out / "run" / "logs" / "spark.log").is_file()
    # the console as a user reads it: no JVM start-up warning, product stage names, the report path once
    console = p.stdout + p.stderr
    assert "incubator modules" not in console, p.stderr[-3000:]
    assert "NativeMethodAccessorImpl" not in console and "[spark] near dedup, " in console, console[-3000:]
    assert console.count("report/index.html") == 1, console[-3000:]
    s = json.loads((out / "run" / "report" / "summary.json").read_text())
    its = s["iterations"]
    first, last = its[0], its[-1]
    assert s["stopped_because"] == "saturated"
    # iteration 2's path step adds nothing, so iteration 3 would repeat iteration 2: the loop stops
    # after two iterations, saturated because the seed did not change (it ran a third, identical one)
    assert len(its) == 2 and s["stop_detail"] == "seed_unchanged" and last["seed_added"] == 0
    assert not (out / "run" / "iter=003" / "collected").exists()
    # the path step recovered pages the first classifier missed
    assert first["seed_added"] > 0
    assert last["true_recall"] > first["true_recall"]
    assert last["true_precision"] >= 0.99          # the real-web issue's floor for the mini-crawl
    assert last["true_recall"] >= 0.99
    assert json.loads((out / "run" / "loop.json").read_text())["last_iteration"] == 2
    # the final corpus is the last collection less the pages decontamination removed
    assert s["final"]["pages"] == last["collected_pages"] - s["final"]["pages_removed_by_decontamination"]
    # the final corpus is a Hugging Face dataset as it stands: its card names the data and the features
    import datasets
    ds = datasets.load_dataset(str(out / "run" / "final" / "corpus"), split="train", cache_dir=str(tmp_path / "hf"))
    assert ds.num_rows == s["final"]["pages"]
    card = (out / "run" / "final" / "corpus" / "README.md").read_text()
    assert str(out) not in card and "dtype: int64" in card
