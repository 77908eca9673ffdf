"""Quiet by default: Spark's own log lines go to RUN/logs/spark.log, not the console, and a Spark
failure still ends with the error and where the log is. Each command runs in its own process, which
starts its own JVM (the log configuration is given to a JVM when it starts)."""
from __future__ import annotations

import re

import pytest

from runs import SETTINGS, cli_process, run_ok

pytestmark = [pytest.mark.spark, pytest.mark.slow]

# a line of Spark's log4j layout, on the console or in the file: "<time> LEVEL Class: message"
SPARK_LINE = re.compile(r"\b(TRACE|DEBUG|INFO|WARN)\s+[A-Z][\w$]*: ", re.M)


def test_ingest_console_has_no_spark_log_lines_and_run_folder_has_them(tmp_path):
    crawl, run = tmp_path / "crawl", tmp_path / "run"
    run_ok(["minicrawl", "--out", str(crawl), "--pages", "60", "--random-seed", "7"])
    # INFO: Spark's INFO lines are always there (its WARN lines depend on the machine), and they must
    # reach the file and not the console, whose level stays ERROR
    p = cli_process(["ingest", "--input", str(crawl / "warc" / "*.warc.gz"), "--run", str(run), *SETTINGS,
                     "--set", "spark.log_level=INFO"], timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    log = run / "logs" / "spark.log"
    console = p.stdout + p.stderr
    assert not SPARK_LINE.search(console), console[-3000:]
    assert "Setting default log level" not in console and "log4j" not in console, console[-3000:]
    assert f"log={log}" in p.stdout                          # the [spark] line says where the log is
    assert "[ingest]" in p.stdout and "pages=" in p.stdout   # the product's own progress lines stay
    text = log.read_text()
    assert re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO +SparkContext: Running Spark version", text,
                     re.M), text[:2000]
    assert (run / "pages" / "_COMMIT.json").is_file()


def test_spark_failure_shows_the_error_and_points_at_the_log(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + bytes(range(256)) * 8 + b"PAR1")      # Parquet's magic, no valid footer
    bench = tmp_path / "benchmarks" / "gsm8k"
    bench.mkdir(parents=True)
    (bench / "test.jsonl").write_text('{"id": "q1", "question": "What is 2 + 2?", "answer": "#### 4"}\n')
    p = cli_process(["decontaminate", "--input", str(bad), "--benchmarks", str(tmp_path / "benchmarks"),
                     "--out", str(tmp_path / "out"), *SETTINGS], timeout=600)
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr[-3000:]
    assert not SPARK_LINE.search(p.stdout + p.stderr), p.stderr[-3000:]
    err = p.stderr.rstrip().splitlines()
    assert err[-1].startswith("corpus-pipeline: Spark's log: "), err[-5:]
    path = err[-1].split(": ", 2)[2]
    failed = next(i for i, ln in enumerate(err) if ln.startswith("corpus-pipeline decontaminate: failed: "))
    assert not any(ln.startswith("\tat ") for ln in err[failed:]), err[failed:]   # the message, not the stack
    assert re.search(r"^\S+Z ERROR +\w+: ", open(path).read(), re.M)              # Spark's error, in its log


_JVM_ARGS = """
import json, os, sys
from corpus_pipeline.config import load_config
from corpus_pipeline.spark.session import get_spark
cfg = load_config(overrides=sys.argv[1:])
before = os.environ.get("SPARK_SUBMIT_OPTS")
spark = get_spark(cfg.spark, quiet=True)
args = list(spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
print(json.dumps({"args": args, "env_kept": os.environ.get("SPARK_SUBMIT_OPTS") == before}))
spark.stop()
"""


def test_driver_jvm_options_reach_the_jvm_and_the_users_own_win():
    import json
    import os
    import subprocess
    import sys

    from runs import ENV

    env = {k: v for k, v in ENV.items() if k != "SPARK_SUBMIT_OPTS"}
    cases = {   # name: (SPARK_SUBMIT_OPTS or None, --set overrides)
        "default": (None, []),
        "user env": ("-XX:TieredStopAtLevel=4", []),
        "setting": (None, ["spark.driver_java_options=\"-XX:CICompilerCount=2\""]),
    }
    procs = {}
    for name, (opts, sets) in cases.items():     # three JVMs at once: one start's wait, not three
        e = dict(env, **({"SPARK_SUBMIT_OPTS": opts} if opts else {}))
        procs[name] = subprocess.Popen([sys.executable, "-c", _JVM_ARGS, "spark.master=\"local[1]\"", *sets], env=e,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    out = {}
    for name, p in procs.items():
        so, se = p.communicate(timeout=600)
        assert p.returncode == 0, se[-3000:]
        out[name] = json.loads(so.strip().splitlines()[-1])
    tier = {n: [a for a in o["args"] if a.startswith("-XX:TieredStopAtLevel=")] for n, o in out.items()}
    assert tier["default"] == ["-XX:TieredStopAtLevel=1"]
    assert tier["user env"] == ["-XX:TieredStopAtLevel=1", "-XX:TieredStopAtLevel=4"]   # the JVM takes the last
    assert tier["setting"] == [] and "-XX:CICompilerCount=2" in out["setting"]["args"]
    for name, o in out.items():
        assert o["env_kept"], name                      # the process's environment is given back unchanged
        assert any(a.startswith("-Dlog4j.configurationFile=") for a in o["args"]), name   # the log config too


def test_class_archive_written_then_mapped_and_a_bad_one_ignored(tmp_path):
    """`jvm-cache` writes the driver JVM's class archive; a later JVM loads Spark's classes from it
    (the JVM's own class-load log says where each class came from); a file that is no archive is
    ignored without a word, and the command's result is the same."""
    import json
    import os
    import subprocess
    import sys

    from runs import ENV

    archive = tmp_path / "classes.jsa"
    p = cli_process(["jvm-cache", "--out", str(archive), "--pages", "40"], timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert archive.is_file() and archive.stat().st_size > 10_000_000, p.stdout
    assert not list(tmp_path.glob("classes.jsa.tmp*"))             # written under another name, then renamed
    bogus = tmp_path / "bogus.jsa"
    bogus.write_bytes(os.urandom(1 << 16))
    env = {k: v for k, v in ENV.items() if k != "SPARK_SUBMIT_OPTS"}
    procs, logs = {}, {}
    for name, path in (("archive", archive), ("bogus", bogus)):
        logs[name] = tmp_path / f"{name}-classload.log"
        sets = [f"spark.class_archive=\"{path}\"",
                f"spark.driver_java_options=\"-XX:TieredStopAtLevel=1 -Xlog:class+load=info:file={logs[name]}\""]
        procs[name] = subprocess.Popen([sys.executable, "-c", _JVM_ARGS, "spark.master=\"local[1]\"", *sets], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    for name, proc in procs.items():
        so, se = proc.communicate(timeout=600)
        assert proc.returncode == 0, se[-3000:]
        args = json.loads(so.strip().splitlines()[-1])["args"]
        path = archive if name == "archive" else bogus
        assert f"-XX:SharedArchiveFile={path}" in args, args
        assert "shared archive" not in se.lower() and "cds" not in se.lower(), se[-3000:]
    spark_ctx = r"org\.apache\.spark\.SparkContext source: (.*)$"
    mapped = re.search(spark_ctx, logs["archive"].read_text(), re.M)
    assert mapped and "shared objects file (top)" in mapped.group(1), mapped
    unmapped = re.search(spark_ctx, logs["bogus"].read_text(), re.M)
    assert unmapped and "shared objects file" not in unmapped.group(1), unmapped
