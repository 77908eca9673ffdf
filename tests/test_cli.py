"""The command line as a user reads it: --version, and help text on every option of every command."""
import argparse
import re

import pytest

from corpus_pipeline.cli import COMMANDS, build_parser, main


def _parsers():
    root = build_parser()
    out = [("corpus-pipeline", root)]
    for a in root._actions:
        if isinstance(a, argparse._SubParsersAction):
            out += [(f"corpus-pipeline {n}", p) for n, p in a.choices.items()]
    return out


def _sentence(text: str) -> bool:
    text = text.strip()
    return bool(text) and text.endswith((".", ".)")) and not text.endswith("..") and text[0].upper() == text[0]


def test_every_command_is_in_the_parser():
    names = {n.split(" ", 1)[1] for n, _ in _parsers()[1:]}
    assert names == set(COMMANDS)


@pytest.mark.parametrize("name,parser", _parsers(), ids=[n for n, _ in _parsers()])
def test_every_option_has_help_that_ends_a_sentence(name, parser):
    bad = []
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            bad += [f"{name} {c.dest}: {c.help!r}" for c in a._choices_actions if not _sentence(c.help or "")]
            continue
        if a.help is argparse.SUPPRESS:
            continue
        if not _sentence(a.help or ""):
            bad.append(f"{name} {'/'.join(a.option_strings) or a.dest}: {a.help!r}")
    assert not bad, "\n".join(bad)


def test_sentence_check_rejects_fragments():
    assert not _sentence("run folder") and not _sentence("") and not _sentence("e.g. local[*] ...")
    assert _sentence("Run folder.") and _sentence("Seconds per request (default 60).")


def test_version_answers(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"corpus-pipeline \d+\.\d+\.\d+\S*\n", out), out


def test_run_and_ingest_inputs_list_the_same_sources():
    helps = {}
    for name, p in _parsers():
        for a in p._actions:
            if "--input" in a.option_strings and name.endswith((" run", " ingest")):
                helps[name] = a.help
    assert len(helps) == 2 and len(set(helps.values())) == 1
    for kind in ("s3://", "hdfs://", "https://", "warc.paths", "glob", "directory"):
        assert kind in next(iter(helps.values()))


def test_top_level_help_is_for_users(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "contract" not in out and "subcommand" not in out
    assert "minicrawl" in out and "report/index.html" in out
