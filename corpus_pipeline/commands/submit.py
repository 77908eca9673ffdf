"""`corpus-pipeline submit --master URL [--conf k=v]... COMMAND ARGS...`

Packages the project (``dist/corpus_pipeline.zip`` + ``dist/cli.py``, reused
while up to date) and runs ``corpus-pipeline COMMAND ARGS...`` as a
``spark-submit`` application on the cluster::
    spark-submit --master URL --deploy-mode client --name "corpus_pipeline COMMAND" \\
        --py-files dist/corpus_pipeline.zip [--archives ...] --conf k=v ... \\
        dist/cli.py COMMAND [--config FILE] [--set k=v]... ARGS...

``submit``'s own options come before COMMAND; everything after COMMAND is passed
on unchanged (so ``submit --master X run --dry-run ...`` dry-runs ``run`` on the
cluster, while ``submit --dry-run --master X run ...`` only prints the
``spark-submit`` line).  ``--config``/``--set`` given to ``submit`` are handed
on to COMMAND as well.

Python on the cluster: the driver (client mode, on this machine) runs this very
interpreter (``spark.pyspark.driver.python``).  Executors run ``PYSPARK_PYTHON``
when it is set (passed on as ``spark.pyspark.python``), else the cluster's
default; ``--env-archive dist/environment.tar.gz`` ships a packed environment
(``python -m corpus_pipeline.packaging --pack-env``) and runs executors in it.
``spark-submit`` is the one of ``SPARK_HOME`` when set, else the installed
pyspark's; ``--spark-submit PATH`` picks another.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time

from .. import packaging
from ..cli import COMMANDS
from ..errors import UsageError

ENV_ALIAS = "environment"


def add_arguments(p) -> None:
    p.add_argument("--master", required=True, metavar="URL",
                   help="The Spark master: spark://HOST:PORT, yarn, k8s://https://HOST:PORT or local[*].")
    p.add_argument("--conf", dest="spark_conf", action="append", default=[], metavar="KEY=VALUE",
                   help="A Spark setting for spark-submit (repeatable).")
    p.add_argument("--deploy-mode", choices=["client", "cluster"], default="client",
                   help="Where the driver runs: client (default) here; cluster on the cluster, which needs paths the cluster can read.")
    p.add_argument("--dist", default="dist", metavar="DIR",
                   help="Where the package is built and reused while up to date (default: dist).")
    p.add_argument("--py-files", metavar="LIST", help="Comma-separated --py-files instead of the built zip.")
    p.add_argument("--archives", metavar="LIST", help="Comma-separated --archives (e.g. env.tar.gz#environment).")
    p.add_argument("--env-archive", metavar="TAR_GZ",
                   help="Packed environment for the executors (adds it to --archives and runs "
                        f"./{ENV_ALIAS}/bin/python on them).")
    p.add_argument("--files", metavar="LIST", help="Comma-separated --files for spark-submit.")
    p.add_argument("--spark-submit", metavar="PATH", help="The spark-submit to use (default: SPARK_HOME's or pyspark's).")
    p.add_argument("submit_command", metavar="COMMAND", help="The corpus-pipeline command to run on the cluster.")
    p.add_argument("command_args", nargs=argparse.REMAINDER, metavar="ARGS",
                   help="COMMAND's arguments, passed on unchanged.")


def _conf_pairs(items: list[str]) -> list[tuple[str, str]]:
    out = []
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k.strip():
            raise UsageError(f"--conf expects KEY=VALUE, got {item!r}")
        out.append((k.strip(), v))
    return out


def _spark_submit_path(args) -> str:
    if args.spark_submit:
        return args.spark_submit
    from ..spark.cluster import spark_bin

    return spark_bin("spark-submit")


def _dist_paths(args) -> tuple[str, str]:
    dist = os.path.abspath(args.dist)
    return os.path.join(dist, packaging.ZIP_NAME), os.path.join(dist, packaging.DRIVER_NAME)


def build_command(args, env: dict) -> list[str]:
    """The spark-submit argv (without building anything)."""

    if args.submit_command not in COMMANDS or args.submit_command == "submit":
        raise UsageError(f"submit: unknown COMMAND {args.submit_command!r} (one of: "
                         f"{', '.join(c for c in COMMANDS if c != 'submit')})")
    conf = _conf_pairs(args.spark_conf)
    keys = {k for k, _ in conf}
    zip_path, driver = _dist_paths(args)
    cmd = [_spark_submit_path(args), "--master", args.master, "--deploy-mode", args.deploy_mode,
           "--name", f"corpus_pipeline {args.submit_command}"]
    cmd += ["--py-files", args.py_files or zip_path]
    archives = [a for a in (args.archives or "").split(",") if a]
    if args.env_archive:
        archives.append(f"{os.path.abspath(args.env_archive)}#{ENV_ALIAS}")
    if archives:
        cmd += ["--archives", ",".join(archives)]
    if args.files:
        cmd += ["--files", args.files]
    extra: list[tuple[str, str]] = []
    if args.deploy_mode == "client" and "spark.pyspark.driver.python" not in keys:
        extra.append(("spark.pyspark.driver.python", env.get("PYSPARK_DRIVER_PYTHON") or sys.executable))
    if "spark.pyspark.python" not in keys:
        if args.env_archive:
            extra.append(("spark.pyspark.python", f"./{ENV_ALIAS}/bin/python"))
        elif env.get("PYSPARK_PYTHON"):
            extra.append(("spark.pyspark.python", env["PYSPARK_PYTHON"]))
    for k, v in extra + conf:
        cmd += ["--conf", f"{k}={v}"]
    cmd.append(driver)
    inner = [args.submit_command]
    if args.config:
        inner += ["--config", os.path.abspath(args.config)]
    for o in args.overrides:
        inner += ["--set", o]
    inner += list(args.command_args)
    return cmd + inner


def submit_env() -> dict:
    """This process's environment, plus where the driver finds the starter seed: the driver imports
    corpus_pipeline from the zip, where ``seeds/`` beside the package is not a real folder."""

    env = dict(os.environ)
    root = packaging.project_root()
    if "CORPUS_PIPELINE_SEEDS" not in env and root is not None and (root / "seeds").is_dir():
        env["CORPUS_PIPELINE_SEEDS"] = str(root / "seeds")
    return env


def _shown(cmd: list[str], env: dict) -> str:
    pre = [f"{k}={shlex.quote(env[k])}" for k in ("PYSPARK_PYTHON", "SPARK_LOCAL_IP", "CORPUS_PIPELINE_SEEDS")
           if env.get(k)]
    return " ".join(pre + [shlex.quote(c) for c in cmd])


def plan(args, cfg) -> list[str]:
    env = submit_env()
    cmd = build_command(args, env)
    lines = []
    if not args.py_files:
        state = "reused (up to date)" if packaging.zip_is_current(os.path.abspath(args.dist)) else "(re)built"
        lines.append(f"package: {_dist_paths(args)[0]} {state}")
    lines.append(_shown(cmd, env))
    return lines


def run(args, cfg) -> int:
    env = submit_env()
    cmd = build_command(args, env)
    if args.env_archive and not os.path.exists(args.env_archive):
        raise UsageError(f"--env-archive {args.env_archive}: no such file "
                         "(build it with: python -m corpus_pipeline.packaging --pack-env)")
    if cfg is not None and cfg.spark.master:
        print(f"[submit] warning: spark.master = {cfg.spark.master!r} in the configuration overrides "
              f"--master {args.master} inside the job", file=sys.stderr)
    dist = os.path.abspath(args.dist)
    if args.py_files:
        packaging.write_driver(dist)
    else:
        path, rebuilt = packaging.ensure_zip(dist)
        print(f"[submit] package {path} {'built' if rebuilt else 'reused'}", file=sys.stderr, flush=True)
    print(f"[submit] {_shown(cmd, env)}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    rc = subprocess.run(cmd, env=env).returncode
    print(f"[submit] spark-submit exited {rc} after {time.monotonic() - t0:.1f}s", file=sys.stderr, flush=True)
    return rc if rc in (0, 1, 2) else 1
