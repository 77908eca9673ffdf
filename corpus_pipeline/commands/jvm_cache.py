"""`corpus-pipeline jvm-cache [--out FILE] [--pages N] [--if-missing]`: write the driver JVM's class archive.

Runs the whole recipe once on a small generated crawl (``--pages``, 150 by default) in a child process
whose JVM writes every class it loaded to a class-data-sharing archive when it exits; later commands
that start their driver JVM themselves map that archive and start faster (``[spark] class_archive``,
:mod:`corpus_pipeline.spark.jvmcache`).  The archive is written under a temporary name and renamed when
complete; archives of other keys (another virtualenv's Spark) are left alone.  Run it again after
changing the JDK or Spark (commands never start from a mismatched archive: they start without one).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from ..errors import UsageError
from ..minicrawl import generate
from ..spark import jvmcache


def add_arguments(p) -> None:
    p.add_argument("--out", metavar="FILE",
                   help="Write the archive here instead of the cache folder (then name it with "
                        "--set spark.class_archive=FILE).")
    p.add_argument("--pages", type=int, default=150, metavar="N",
                   help="Pages of the generated crawl the recipe runs on while the classes load (default 150).")
    p.add_argument("--if-missing", action="store_true",
                   help="Do nothing when the archive is already there (what `make setup` runs).")


def _target(args) -> str:
    if args.out:
        return os.path.abspath(args.out)
    path = jvmcache.default_archive()
    if path is None:
        raise UsageError("no java executable (JAVA_HOME or java on the PATH) or no Spark jars found: "
                         "nothing to archive")
    return path


def plan(args, cfg) -> list[str]:
    return [f"generate a {args.pages}-page crawl in a temporary folder and run the recipe on it once",
            f"write the driver JVM's class archive to {_target(args)}"]


def run(args, cfg) -> int:
    if args.pages < 20:
        raise UsageError(f"--pages must be >= 20 (got {args.pages})")
    target = _target(args)
    if args.if_missing and os.path.isfile(target) and os.path.getsize(target) > 0:
        print(f"jvm-cache: {target} is already there")
        return 0
    os.makedirs(os.path.dirname(target), exist_ok=True)
    partial = f"{target}.tmp{os.getpid()}"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="corpus_pipeline-jvm-cache-") as tmp:
        crawl = os.path.join(tmp, "crawl")
        generate(crawl, pages=args.pages, random_seed=1)
        cmd = [sys.executable, "-m", "corpus_pipeline", "run", "--input", os.path.join(crawl, "warc", "*.warc.gz"),
               "--run", os.path.join(tmp, "run"), "--labels", os.path.join(crawl, "labels.jsonl"),
               "--benchmarks", os.path.join(crawl, "benchmarks"), "--annotate", "auto", "--max-iterations", "2"]
        if args.config:
            cmd += ["--config", args.config]
        for o in args.overrides:
            cmd += ["--set", o]
        env = dict(os.environ, **{jvmcache.DUMP_ENV: partial})
        env.pop("SPARK_REMOTE", None)
        log = os.path.join(tmp, "run.log")
        print(f"jvm-cache: running the recipe on a {args.pages}-page crawl; its JVM writes the classes it "
              f"loaded when it exits (about a minute)", flush=True)
        with open(log, "w") as out:
            rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        if rc != 0 or not os.path.isfile(partial) or os.path.getsize(partial) == 0:
            if os.path.exists(partial):
                os.remove(partial)
            with open(log) as f:
                tail = f.read()[-3000:]
            print(tail, file=sys.stderr)
            raise RuntimeError(f"the recipe's run exited {rc} and wrote no class archive "
                               f"(the JVM needs JDK 13 or later to write one)")
    os.replace(partial, target)
    removed = jvmcache.prune(target) if not args.out else []
    size = os.path.getsize(target)
    print(f"jvm-cache: wrote {target} ({size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s"
          + (f"; removed {len(removed)} unfinished file(s)" if removed else ""))
    if args.out:
        print(f"jvm-cache: commands use it with --set spark.class_archive={target}")
    else:
        print("jvm-cache: commands that start their own driver JVM now map it ([spark] class_archive = auto)")
    return 0
