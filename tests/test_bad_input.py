"""Bad input, one case at a time (the table in docs/bad-input.md): every case exits 2 with one line on
the console naming the files and why, no traceback; the cases decided by the first bytes of local
files exit before any JVM starts."""
from __future__ import annotations

import gzip
import io

import pytest

from corpus_pipeline import cli


def write_warc(path, records, gz=True):
    """records: (url, status, content type, body bytes) -> a WARC file written by warcio."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=gz)
        for url, status, ctype, body in records:
            http = StatusAndHeaders(f"{status} X", [("Content-Type", ctype), ("Content-Length", str(len(body)))],
                                    protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                                warc_headers_dict={"WARC-Date": "2024-01-02T03:04:05Z"}))
    return str(path)


@pytest.fixture
def no_jvm(monkeypatch):
    """Starting Spark fails the test: these cases are answered from the files' first bytes."""
    import corpus_pipeline.spark.session as session

    def refuse(*a, **k):
        raise AssertionError("a JVM was about to start")
    monkeypatch.setattr(session, "get_spark", refuse)


def one_line_exit_2(capsys, argv) -> str:
    rc = cli.main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    return lines[0]


def precheck_cases(tmp_path, shared_data):
    """(name, SRC arguments, other arguments, the file named, the reason named) of the cases decided
    before Spark."""
    text = tmp_path / "notes.warc.gz"
    text.write_text("Meeting notes\nnothing to see here\n" * 20)
    empty = tmp_path / "x.warc.gz"
    empty.write_bytes(b"")
    html = tmp_path / "page.warc"
    html.write_text("<!doctype html><html><body><p>an HTML file, not a WARC</p></body></html>\n")
    nowarc = tmp_path / "folder"
    nowarc.mkdir()
    (nowarc / "readme.txt").write_text("no WARC here")
    man = tmp_path / "warc.paths"
    man.write_text("crawl/a.warc.gz\ncrawl/b.warc.gz\n")
    return [
        ("text file renamed", [str(text)], [], "notes.warc.gz", "not_warc"),
        ("empty file", [str(empty)], [], "x.warc.gz", "empty_file"),
        ("HTML file", [str(html)], [], "page.warc", "not_warc"),
        ("folder with no WARC", [str(nowarc)], [], "folder", "matches no WARC file"),
        ("manifest of missing files", [str(man)], ["--set", f"ingest.manifest_base={tmp_path}"],
         "a.warc.gz", "file_not_found"),
        ("several bad files", [str(text), str(empty), str(html)], [], "notes.warc.gz", "empty_file"),
    ]


@pytest.mark.parametrize("command", ["run", "ingest"])
def test_bad_local_inputs_exit_2_in_one_line_before_spark(tmp_path, shared_data, capsys, no_jvm, command):
    for name, inputs, extra, named, reason in precheck_cases(tmp_path, shared_data):
        run = tmp_path / f"run-{command}-{name.replace(' ', '-')}"
        argv = [command, "--input", *inputs, "--run", str(run), *extra]
        line = one_line_exit_2(capsys, argv)
        assert named in line and reason in line, (name, line)
        assert not (run / "run.json").exists(), name       # the run folder is not bound to these inputs


def test_the_message_names_every_reason(tmp_path):
    from corpus_pipeline.ingest import no_input_message

    per_file = {f"/d/f{i}.warc.gz": {"not_warc": 1} for i in range(7)}
    per_file["/d/cut.warc.gz"] = {"truncated_record": 1, "records": 1}
    per_file["/d/odd.warc.gz"] = {}
    msg = no_input_message(per_file, 9)
    assert "\n" not in msg and "none of the 9 input file(s)" in msg
    assert "not_warc=7" in msg and "truncated_record=1" in msg and "no_record=1" in msg
    assert "/d/f0.warc.gz (not_warc: neither a WARC file nor a gzip of one)" in msg
    assert "and 4 more" in msg and "/d/f5.warc.gz" not in msg


def test_a_resumed_run_does_not_need_its_inputs(tmp_path):
    from corpus_pipeline.config import Config
    from corpus_pipeline.loop import precheck_inputs
    from corpus_pipeline.errors import UsageError
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder

    missing = str(tmp_path / "gone.warc.gz")
    run = RunFolder(str(tmp_path / "run"))
    view = RunView(run)
    with pytest.raises(UsageError, match="gone.warc.gz: matches no WARC file"):
        precheck_inputs([missing], run.uri, Config(), log=lambda s: None)
    run.commit_in_place(view.location("pages"), {"pages": 1})   # a committed ingest: the inputs are not read again
    precheck_inputs([missing], run.uri, Config(), log=lambda s: None)


def test_bad_files_beside_good_ones_are_named_and_run_goes_on(tmp_path, shared_data):
    from corpus_pipeline.config import Config
    from corpus_pipeline.loop import precheck_inputs

    bad = tmp_path / "notes.warc.gz"
    bad.write_text("not a warc\n")
    said = []
    precheck_inputs([str(bad), str(shared_data / "warc/dolma/science-0.warc.gz")], str(tmp_path / "run"),
                    Config(), log=said.append)
    assert len(said) == 1 and "notes.warc.gz: not_warc" in said[0]


@pytest.mark.spark
@pytest.mark.slow
def test_bad_input_found_while_reading_exits_2(spark, tmp_path, shared_data, capsys):
    """Cases only the reader sees (the first bytes look like a WARC): a gzip cut inside its first record,
    WARCs whose records are all non-HTML; then a crawl with no page stops after ingest."""
    whole = (shared_data / "warc/whirlwind/whirlwind.warc.gz").read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole[:200])
    line = one_line_exit_2(capsys, ["ingest", "--input", str(cut), "--run", str(tmp_path / "r1"),
                                    "--set", "dedup.near=false"])
    assert "cut.warc.gz (truncated_record" in line and "none of the 1 input file(s)" in line
    log = (tmp_path / "r1" / "logs" / "run.log").read_text()
    assert "Traceback" in log and "NoInputError" in log          # the traceback is in the run's log

    images = write_warc(tmp_path / "images.warc.gz", [
        ("http://x.example/a.png", 200, "image/png", b"\x89PNG" + bytes(300)),
        ("http://x.example/b.txt", 200, "text/plain", b"plain text " * 40),
        ("http://x.example/gone", 404, "text/html", b"<html><body>not found</body></html>"),
    ])
    run = tmp_path / "r2"
    line = one_line_exit_2(capsys, ["run", "--input", images, "--run", str(run), "--set", "dedup.near=false"])
    assert "no page to keep" in line and "not_html=2" in line and "http_status_4xx=1" in line
    assert not (run / "iter=001").exists() and not (run / "pages" / "_COMMIT.json").exists()
    assert "Traceback" in (run / "logs" / "run.log").read_text()
    assert not (run / "run.json").exists()


def test_gzip_of_a_text_file_is_not_a_warc(tmp_path, capsys, no_jvm):
    notes = tmp_path / "notes.warc.gz"
    notes.write_bytes(gzip.compress(b"plain notes\n" * 50))
    line = one_line_exit_2(capsys, ["run", "--input", str(notes), "--run", str(tmp_path / "r")])
    assert "notes.warc.gz (not_warc" in line
