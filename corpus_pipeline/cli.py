"""``corpus-pipeline``: one entry point, the subcommands of the contract.

This module only parses arguments, loads the configuration and hands over to
``corpus_pipeline.commands.<name>``; each command module has
``add_arguments(parser)``, ``plan(args, cfg) -> list[str]`` (what ``--dry-run``
prints besides the configuration) and ``run(args, cfg) -> int``.
"""
from __future__ import annotations

import argparse
import json
import importlib
import sys
import traceback
from typing import Optional

from .config import ConfigError, load_config
from .errors import UsageError

COMMANDS = {
    "minicrawl": "write a deterministic, labeled local crawl (gzip WARCs + labels.jsonl)",
    "ingest": "WARCs -> extracted, deduplicated RUN/pages",
    "train": "train the fastText maths classifier from JSONL/Parquet files",
    "score": "add a maths score column to a JSONL/Parquet file",
    "run": "the whole loop: ingest, iterate to saturation, decontaminate, report",
    "annotate": "show the worksheet of flagged domains and path prefixes to mark",
    "decontaminate": "remove benchmark text from a JSONL/Parquet corpus",
    "report": "(re)write RUN/report from the run folder",
    "judge": "estimate precision and recall from a judged random sample (draw it, judge it in a browser)",
    "inspect": "print sample pages, near duplicates and decontamination removals of a run",
    "submit": "run a command on a Spark cluster through spark-submit",
    "fetch-benchmarks": "download the public benchmark test sets used by decontaminate (needs network)",
}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="TOML configuration file")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a setting, e.g. --set classifier.dim=128 (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="print the resolved configuration and the plan; write nothing")
    p.add_argument("--remote", metavar="sc://HOST:PORT", default=None,
                   help="run on a Spark Connect endpoint (= --set spark.remote=...; also SPARK_REMOTE), with its "
                        "standard ;token=... and ;use_ssl=true parameters")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="corpus-pipeline", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p)
        _module(name).add_arguments(p)
    return parser


def _module(name: str):
    return importlib.import_module(f"corpus_pipeline.commands.{name.replace('-', '_')}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 2 on bad usage, 0 on --help
        return int(e.code or 0)
    mod = _module(args.command)
    try:
        overrides = list(args.overrides)
        if getattr(args, "remote", None):
            overrides.append("spark.remote=" + json.dumps(args.remote))     # a TOML string
        cfg = load_config(args.config, overrides)
        if args.dry_run:
            # valid TOML as a whole (the plan is comments): `--dry-run > my.toml` starts a config file
            print("# resolved configuration")
            print(cfg.to_toml())
            print("# plan")
            for line in mod.plan(args, cfg):
                print(f"# - {line}")
            return 0
        return int(mod.run(args, cfg) or 0)
    except (ConfigError, UsageError) as e:
        print(f"corpus-pipeline {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - last resort: exit 1 with the cause
        traceback.print_exc()
        print(f"corpus-pipeline {args.command}: failed: {_message(e)}", file=sys.stderr)
        _point_at_spark_log()
        return 1


def _message(e: Exception) -> str:
    """The error in one message: for an exception raised in Spark's JVM (py4j's Py4JJavaError, whose
    text holds the JVM's whole stack, already printed with the traceback) the JVM exception alone."""
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:  # noqa: BLE001 - the JVM may be gone: its text as it is
            pass
    return str(e)


def _point_at_spark_log() -> None:
    """After a failure: where Spark's own log lines are, when this process started the JVM with them
    sent to a file (the console shows only Spark's errors)."""
    session = sys.modules.get("corpus_pipeline.spark.session")
    path = session.spark_log() if session is not None else None
    if path:
        print(f"corpus-pipeline: Spark's log: {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
