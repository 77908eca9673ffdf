"""``corpus-pipeline``: one entry point; each command is a module of ``corpus_pipeline.commands``.

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
from importlib.metadata import PackageNotFoundError, version
from typing import Optional

from .config import ConfigError, load_config
from .errors import UsageError

COMMANDS = {
    "minicrawl": "Write a small labelled crawl to try the pipeline on (gzip WARCs and labels.jsonl).",
    "ingest": "Read WARCs, extract the text with its maths, deduplicate: RUN/pages.",
    "train": "Train the fastText maths classifier on positive and negative texts.",
    "score": "Add a maths score column to a JSONL or Parquet file.",
    "run": "The whole recipe: ingest, iterate until the collection saturates, decontaminate, report.",
    "annotate": "Mark the flagged domains' URL path prefixes (worksheet, or a web page with --serve).",
    "decontaminate": "Remove benchmark text (10-gram matches) from a JSONL or Parquet corpus.",
    "report": "Write RUN/report again from the run folder.",
    "judge": "Estimate precision and recall from a random sample you judge in a browser.",
    "inspect": "Print sample pages, near duplicates and decontamination removals of a run.",
    "submit": "Run a command on a Spark cluster through spark-submit.",
    "fetch-benchmarks": "Download the public benchmark test sets that decontamination uses (needs network).",
    "jvm-cache": "Write the driver JVM's class archive, which cuts every later command's Spark start-up.",
}

DESCRIPTION = """Mine a maths corpus from web crawls (the DeepSeekMath recipe) on Spark.

Start with `corpus-pipeline minicrawl --out crawl` and `corpus-pipeline run --input 'crawl/warc/*.warc.gz'
--run myrun --labels crawl/labels.jsonl`, then open myrun/report/index.html. `corpus-pipeline COMMAND -h`
describes a command's options."""

EPILOG = """Every command also takes --config FILE, --set KEY=VALUE, --dry-run and --remote sc://HOST:PORT.
Exit codes: 0 success; 2 bad usage, invalid configuration or an input that is not what it claims; 1 other
failures."""


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="TOML configuration file (see docs/configuration.md).")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="Override a setting, e.g. --set classifier.dim=128 (repeatable).")
    p.add_argument("--dry-run", action="store_true",
                   help="Print the resolved configuration and the plan; write nothing.")
    p.add_argument("--remote", metavar="sc://HOST:PORT", default=None,
                   help="Run on a Spark Connect endpoint (= --set spark.remote=...; also SPARK_REMOTE), with its "
                        "standard ;token=... and ;use_ssl=true parameters.")


def _version() -> str:
    try:
        return version("corpus_pipeline")
    except PackageNotFoundError:    # run from a source tree that is not installed
        return "unknown (not installed)"


def _sentence_help(p: argparse.ArgumentParser) -> None:
    """argparse's own -h text, as a sentence like every other option's."""
    for a in p._actions:
        if isinstance(a, argparse._HelpAction):
            a.help = "Show this help message and exit."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="corpus-pipeline", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    _sentence_help(parser)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}",
                        help="Print the installed version and exit.")
    sub = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    sub.required = True
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        _sentence_help(p)
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
