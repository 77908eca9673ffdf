"""Look-ups without a JVM (corpus_pipeline.arrowrun): on one committed run folder, every look-up of
`inspect`, the annotation page and judging returns what the Spark path returns, row for row; and the
commands read it with no JVM started (pyspark's gateway is made to fail in their process)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_pipeline import arrowrun as A
from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.runfolder import RunFolder

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SETTINGS = ["--set", "ingest.extract_timeout_s=120"]

# Run in a fresh process: any attempt to launch Spark's JVM gateway fails the command.
NO_JVM = """
import sys
import pyspark.java_gateway as g
import pyspark.context as c

def refuse(*a, **k):
    raise SystemExit("the JVM gateway was launched")
g.launch_gateway = c.launch_gateway = refuse
from corpus_pipeline.cli import main
rc = main(sys.argv[1:])
from pyspark import SparkContext
assert SparkContext._gateway is None and SparkContext._active_spark_context is None
sys.exit(rc)
"""


def no_jvm(*argv) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([sys.executable, "-c", NO_JVM, *argv], capture_output=True, text=True, env=env,
                          timeout=600)


@pytest.fixture(scope="module")
def finished(spark, tmp_path_factory):
    """A 400-page mini-crawl run for one iteration with its planted benchmark (pages, duplicates,
    scores, collected, seed, domains, final corpus, contamination)."""
    from corpus_pipeline.cli import main

    d = tmp_path_factory.mktemp("lookups")
    assert main(["minicrawl", "--out", str(d / "crawl"), "--pages", "400", "--random-seed", "3"]) == 0
    run = d / "run"
    assert main(["run", "--input", str(d / "crawl" / "warc" / "*.warc.gz"), "--run", str(run),
                 "--benchmarks", str(d / "crawl" / "benchmarks"), "--max-iterations", "1", *SETTINGS]) == 0
    return RunView(RunFolder(str(run)))


def test_every_lookup_equals_the_spark_path(spark, finished):
    from corpus_pipeline.spark import annotate_view as V
    from corpus_pipeline.spark import inspect as I
    rf = RunView(RunFolder(finished.uri, spark))
    run = RunView(RunFolder(finished.uri))
    assert A.collected_samples(run, 1, 0.5, 6) == I.collected_samples(spark, rf, 1, 0.5, 6)
    dup, sdup = A.near_duplicates(run, 8), I.near_duplicates(spark, rf, 8)
    assert dup == sdup and dup["total"] > 0
    items = A.benchmark_items(run)
    con = A.contamination(run, 5, items)
    assert con == I.contamination(spark, rf, 5, items) and con["total"] > 0
    flagged = sorted(A.flagged_domains(run, 1), key=lambda r: r["host"])
    assert flagged and flagged == sorted((r.asDict() for r in rf.table(spark, "domains", 1)
                                          .where("flagged").collect()), key=lambda r: r["host"])
    for host in [r["host"] for r in flagged[:3]]:
        for prefix in (None, "/questions/", "/q"):
            for it in (1, None):
                got = A.pages_of(run, it, host, prefix, 4)
                assert got == I.pages_of(spark, rf, it, host, prefix, 4), (host, prefix, it)
        if it == 1:
            assert got["collected"] or got["missed"]
    # the annotation page's prefixes: joins and samples as Spark draws them
    pairs = [(r["host"], "/") for r in flagged[:2]] + [(flagged[0]["host"], "/questions/"),
                                                     (flagged[0]["host"], "/nothing-here/")]
    joins, samples = A.prefix_view(run, 1, pairs)
    sjoins, ssamples = V.prefix_view(spark, rf, 1, pairs)
    assert joins == sjoins and samples == ssamples and samples
    assert A.judged_seed_count(run, 1) == 0


def test_commands_read_the_run_without_a_jvm(spark, finished, capsys):
    from corpus_pipeline.cli import main

    host = A.flagged_domains(finished, 1)[0]["host"]
    for argv in (["--json"], ["--json", "--host", host, "-n", "3"], ["--host", host]):
        p = no_jvm("inspect", finished.uri, *argv)
        assert p.returncode == 0, p.stderr[-2000:]
        assert main(["inspect", finished.uri, "--spark", *argv]) == 0          # the Spark path, same run
        spark_out = capsys.readouterr().out
        assert p.stdout == spark_out, argv
    text = no_jvm("inspect", finished.uri, "--host", host).stdout
    assert text.index(f"pages of {host}") < text.index("nearest the threshold")      # the host first
    assert "collected pages of " in text and "missed pages of " in text


def test_lookups_follow_the_commit_marker(finished, tmp_path):
    """A failed attempt's folder beside the committed one is never read; an uncommitted stage is refused."""
    import shutil

    run = RunView(RunFolder(str(tmp_path / "run")))
    shutil.copytree(finished.uri, run.uri)
    col = Path(run.path("iter=001", "collected"))
    good = A.collected_samples(run, 1, 0.5, 3)
    committed = Path(run.data(str(col)))
    stray = col / "attempt=00000000-failed"
    shutil.copytree(committed, stray)
    import pyarrow as pa
    import pyarrow.parquet as pq

    for f in stray.glob("*.parquet"):
        t = pq.read_table(f)
        pq.write_table(t.set_column(t.schema.get_field_index("score"), "score",
                                    pa.array([2.0] * t.num_rows)), f)
    assert A.collected_samples(run, 1, 0.5, 3) == good
    (col / "_COMMIT.json").unlink()
    with pytest.raises(FileNotFoundError):
        A.collected_samples(run, 1, 0.5, 3)
    assert json.loads(json.dumps(good))["iteration"] == 1


def serve_without_jvm(*argv) -> str:
    """Start a ``--serve`` command in a process where the JVM gateway cannot start, wait for its
    'serving' line, fetch its state, stop it with SIGINT; its output."""
    import signal
    import urllib.request

    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    p = subprocess.Popen([sys.executable, "-c", NO_JVM, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    lines = []
    try:
        for line in p.stdout:
            lines.append(line)
            if " at http" in line:
                url = line.split(" at ", 1)[1].split()[0]
                with urllib.request.urlopen(url, timeout=30) as r:
                    assert r.status == 200
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, "".join(lines) + err[-3000:]
    return "".join(lines) + out


def test_judge_and_annotate_serve_without_a_jvm(spark, finished, tmp_path, capsys):
    import shutil

    from corpus_pipeline.cli import main

    run = tmp_path / "run"
    shutil.copytree(finished.uri, run)
    assert main(["judge", str(run), "--margin", "0.2"]) == 0          # draws the sample (a Spark job)
    drawn = capsys.readouterr().out
    with_spark = json.loads((run / "report" / "summary.json").read_text())
    p = no_jvm("judge", str(run), "--margin", "0.2")
    assert p.returncode == 0, p.stderr[-2000:]
    assert "drawing the sample" in drawn and "drawing the sample" not in p.stdout
    assert p.stdout.splitlines()[-6:] == drawn.splitlines()[-6:]   # the same state of judging
    without = json.loads((run / "report" / "summary.json").read_text())
    assert without == with_spark and without["details"]["iterations"]      # details kept, numbers rebuilt
    out = serve_without_jvm("judge", str(run), "--margin", "0.2", "--serve", "--port", "0")
    assert "judge: serving iteration 1's sample" in out and "judge: stopped" in out


def test_annotate_serve_without_a_jvm(spark, finished, tmp_path, capsys):
    import shutil

    from corpus_pipeline.cli import main

    run = tmp_path / "run"
    shutil.copytree(finished.uri, run)
    inputs = json.loads((run / "run.json").read_text())["inputs"]
    assert main(["run", "--input", *inputs, "--run", str(run), "--annotate", "manual", "--max-iterations", "2",
                 *SETTINGS]) == 0
    assert json.loads((run / "loop.json").read_text())["stopped_because"] == "awaiting_annotation"
    out = capsys.readouterr().out
    assert out.lower().count("waiting for annotation") == 1 and "None pages" not in out
    assert f"corpus-pipeline annotate {run} --serve" in out
    got = serve_without_jvm("annotate", str(run), "--serve", "--port", "0")
    assert "annotate: serving iteration 1" in got and "annotate: stopped" in got
