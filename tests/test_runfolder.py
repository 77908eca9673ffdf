import json

import pytest

from corpus_pipeline.runfolder import MARKER, RunFolder


def _write(staging, name="part-0", data=b"x"):
    import os

    os.makedirs(staging, exist_ok=True)
    with open(f"{staging}/{name}", "wb") as f:
        f.write(data)


def test_commit_writes_marker_with_config_and_counts(tmp_path):
    run = RunFolder(tmp_path / "run")
    res = run.stage(run.pages, lambda s: (_write(s), {"pages": 3})[1], config={"a": 1}, log=lambda m: None)
    assert not res.skipped and res.counts == {"pages": 3}
    marker = json.loads((tmp_path / "run" / "pages" / MARKER).read_text())
    assert marker["config"] == {"a": 1} and marker["counts"] == {"pages": 3}
    assert (tmp_path / "run" / "pages" / "part-0").read_bytes() == b"x"
    assert run.counts(run.pages) == {"pages": 3}


def test_committed_stage_is_skipped_on_rerun(tmp_path):
    run = RunFolder(tmp_path / "run")
    calls = []

    def build(s):
        calls.append(s)
        _write(s)
        return {"n": len(calls)}

    run.stage(run.iteration(1, "scores"), build, log=lambda m: None)
    res = run.stage(run.iteration(1, "scores"), build, log=lambda m: None)
    assert len(calls) == 1
    assert res.skipped and res.counts == {"n": 1}      # counts come from the marker, not recounted


def test_interrupted_stage_is_not_mistaken_for_finished(tmp_path):
    run = RunFolder(tmp_path / "run")
    target = run.iteration(2, "collected")

    def crash(s):
        _write(s, data=b"half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        run.stage(target, crash, log=lambda m: None)
    assert not run.is_committed(target)
    leftovers = [p.name for p in (tmp_path / "run" / "iter=002").iterdir()]
    assert any(n.startswith("collected.inprogress-") for n in leftovers)

    # an output folder without marker (crash between rename and marker) is also redone
    _write(target, data=b"stale")
    res = run.stage(target, lambda s: (_write(s, data=b"good"), {"ok": 1})[1], log=lambda m: None)
    assert not res.skipped
    assert (tmp_path / "run" / "iter=002" / "collected" / "part-0").read_bytes() == b"good"
    assert sorted(p.name for p in (tmp_path / "run" / "iter=002").iterdir()) == ["collected"]


def test_iterations_listing(tmp_path):
    run = RunFolder(tmp_path / "run")
    for i in (1, 3, 2):
        run.stage(run.iteration(i, "seed"), lambda s: {}, log=lambda m: None)
    assert run.iterations() == [1, 2, 3]
    assert run.iteration(7, "x").endswith("/iter=007/x")
