import json

import pytest

from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.runfolder import ATTEMPT, MARKER, RunFolder, committed_data


def _write(staging, name="part-0", data=b"x"):
    import os

    os.makedirs(staging, exist_ok=True)
    with open(f"{staging}/{name}", "wb") as f:
        f.write(data)


def test_commit_writes_marker_with_config_and_counts(tmp_path):
    run = RunFolder(tmp_path / "run")
    pages = RunView(run).location("pages")
    res = run.stage(pages, lambda s: (_write(s), {"pages": 3})[1], config={"a": 1}, log=lambda m: None)
    assert not res.skipped and res.counts == {"pages": 3}
    marker = json.loads((tmp_path / "run" / "pages" / MARKER).read_text())
    assert marker["config"] == {"a": 1} and marker["counts"] == {"pages": 3}
    # the data stays in the attempt folder it was written to; the marker names it
    (attempt,) = [p.name for p in (tmp_path / "run" / "pages").iterdir() if p.name != MARKER]
    assert attempt == ATTEMPT + marker["attempt"]
    assert run.data(pages) == f"{pages}/{attempt}"
    assert (tmp_path / "run" / "pages" / attempt / "part-0").read_bytes() == b"x"
    assert run.counts(pages) == {"pages": 3}


def test_committed_stage_is_skipped_on_rerun(tmp_path):
    run = RunFolder(tmp_path / "run")
    scores = RunView(run).location("scores", 1)
    calls = []

    def build(s):
        calls.append(s)
        _write(s)
        return {"n": len(calls)}

    run.stage(scores, build, log=lambda m: None)
    res = run.stage(scores, build, log=lambda m: None)
    assert len(calls) == 1
    assert res.skipped and res.counts == {"n": 1}      # counts come from the marker, not recounted


def test_failed_attempts_are_not_mistaken_for_finished_and_are_removed(tmp_path):
    run = RunFolder(tmp_path / "run")
    target = RunView(run).location("collected", 2)
    seen = []

    def crash(s):
        seen.append(s)
        _write(s, data=b"half")
        raise RuntimeError("killed")

    for _ in range(2):
        with pytest.raises(RuntimeError):
            run.stage(target, crash, log=lambda m: None)
        assert not run.is_committed(target)
        assert run.data(target) == target            # nothing committed: no attempt is the data
        with pytest.raises(FileNotFoundError, match="not committed"):
            committed_data(target)                    # a table reader refuses to mix failed attempts
    # the second attempt removed the first one's leftovers before writing
    assert len(run.attempts(target)) == 1 and seen[0] != seen[1]

    res = run.stage(target, lambda s: (_write(s, data=b"good"), {"ok": 1})[1], log=lambda m: None)
    assert not res.skipped
    assert len(run.attempts(target)) == 1                 # leftovers gone after the commit
    with open(f"{run.data(target)}/part-0", "rb") as f:
        assert f.read() == b"good"
    assert committed_data(target) == run.data(target)
    assert sorted(p.name for p in (tmp_path / "run" / "iter=002").iterdir()) == ["collected"]


def test_forced_attempt_replaces_the_committed_one_only_at_commit(tmp_path):
    run = RunFolder(tmp_path / "run")
    target = RunView(run).location("model", 1)
    run.stage(target, lambda s: (_write(s, data=b"v1"), {"v": 1})[1], log=lambda m: None)
    first = run.data(target)

    def crash(s):
        _write(s, data=b"v2-half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        run.stage(target, crash, force=True, log=lambda m: None)
    assert run.data(target) == first and run.counts(target) == {"v": 1}   # the old commit still holds
    run.stage(target, lambda s: (_write(s, data=b"v2"), {"v": 2})[1], force=True, log=lambda m: None)
    assert run.data(target) != first and run.counts(target) == {"v": 2}
    assert run.attempts(target) == [run.data(target).rsplit("=", 1)[1]]


def test_truncated_marker_is_not_a_commit(tmp_path):
    run = RunFolder(tmp_path / "run")
    target = RunView(run).location("scores", 1)
    run.stage(target, lambda s: (_write(s), {"n": 1})[1], log=lambda m: None)
    text = (tmp_path / "run" / "iter=001" / "scores" / MARKER).read_text()
    (tmp_path / "run" / "iter=001" / "scores" / MARKER).write_text(text[: len(text) // 2])   # write cut short
    assert not run.is_committed(target) and run.marker(target) is None
    res = run.stage(target, lambda s: (_write(s, data=b"again"), {"n": 2})[1], log=lambda m: None)
    assert not res.skipped and len(run.attempts(target)) == 1


def test_in_place_commit_and_old_layout_read_from_the_folder_itself(tmp_path):
    run = RunFolder(tmp_path / "run")
    adir = RunView(run).location("annotations", 1)
    _write(adir, "marked_paths.txt", b"a.org/q/\n")
    run.commit_in_place(adir, {"marks": 1})
    assert run.is_committed(adir) and run.data(adir) == adir and committed_data(adir) == adir


def test_no_rename_in_a_commit(tmp_path, monkeypatch):
    import os

    def no_rename(*a, **k):
        raise OSError("rename refused")

    monkeypatch.setattr(os, "replace", no_rename)
    monkeypatch.setattr(os, "rename", no_rename)
    run = RunFolder(tmp_path / "run")
    view = RunView(run)
    run.stage(view.location("pages"), lambda s: (_write(s), {"pages": 1})[1], log=lambda m: None)
    run.stage(view.location("pages"), lambda s: (_write(s), {"pages": 2})[1], force=True, log=lambda m: None)
    run.commit_in_place(view.location("annotations", 1), {"marks": 0})
    run.write_json(run.path("loop.json"), {"a": 1})
    assert run.counts(view.location("pages")) == {"pages": 2} and run.read_json(run.path("loop.json")) == {"a": 1}


def test_iterations_listing(tmp_path):
    run = RunFolder(tmp_path / "run")
    view = RunView(run)
    for i in (1, 3, 2):
        run.stage(view.location("seed", i), lambda s: {}, log=lambda m: None)
    assert run.iterations() == [1, 2, 3]
    assert view.location("seed", 7).endswith("/iter=007/seed")


def test_commands_refuse_a_missing_run_folder_before_spark(tmp_path, capsys, monkeypatch):
    """report, annotate, inspect and judge name a missing local run folder (exit 2) through one check,
    made before a SparkSession is asked for; inspect also wants committed pages."""
    from corpus_pipeline.cli import main
    from corpus_pipeline.errors import UsageError
    from corpus_pipeline.pipeline.runview import open_view
    from corpus_pipeline.runfolder import open_existing
    from corpus_pipeline.spark import session

    def no_spark(*a, **k):
        raise AssertionError("a SparkSession was asked for")

    monkeypatch.setattr(session, "get_spark", no_spark)

    missing = str(tmp_path / "nowhere")
    for argv in (["report", missing], ["annotate", missing], ["inspect", missing], ["judge", missing]):
        assert main(argv) == 2, argv
        assert f"{missing}: no such run folder" in capsys.readouterr().err, argv
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["inspect", str(empty)]) == 2
    assert "not a run folder with ingested pages" in capsys.readouterr().err
    assert open_existing(str(empty)).uri.endswith("empty")
    with pytest.raises(UsageError, match="ingested pages"):
        open_view(str(empty), need_pages=True)
