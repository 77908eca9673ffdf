"""bench/compare_commits.py's comparison of two run folders (the runs themselves are the script's
job): the same rows under other part-file names and attempt tokens are the same; a changed row, a
changed count, a changed model file or a stage committed on one side only is a difference."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.compare_commits import compare  # noqa: E402


def _stage(run: Path, name: str, token: str, rows: list[dict], counts: dict, files: dict = None,
           parts: int = 2) -> None:
    d = run / name / f"attempt={token}"
    d.mkdir(parents=True)
    for k in range(parts):
        pq.write_table(pa.Table.from_pylist(rows[k::parts]), d / f"part-{k:05d}-{token}.snappy.parquet")
    for rel, data in (files or {}).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(data)
    (d / "_SUCCESS").write_text("")
    (run / name / "_COMMIT.json").write_text(json.dumps({"attempt": token, "counts": counts, "seconds": len(token),
                                                         "config": {"run": str(run)}}))


def _run(root: Path, token: str, pages, model=b"m1", seen=3, extra=False, parts=2) -> Path:
    run = root / token
    _stage(run, "pages", token, pages, {"pages": len(pages)}, parts=parts)
    _stage(run, "iter=001/model", token, [{"line": "a"}], {"seen": seen}, {"model.bin": model})
    if extra:
        _stage(run, "iter=002/scores", token, [{"page_id": 1}], {})
    return run


def test_same_rows_under_other_names_are_the_same_and_each_kind_of_change_is_found(tmp_path):
    pages = [{"page_id": i, "text": f"t{i}"} for i in range(7)]
    a = _run(tmp_path, "aaa", pages)
    assert all(r["ok"] for r in compare(a, _run(tmp_path, "bbbb", list(reversed(pages)), parts=3)))

    changed = pages[:6] + [{"page_id": 6, "text": "other"}]
    by = {r["stage"]: r for r in compare(a, _run(tmp_path, "c1", changed, seen=4, model=b"m2", extra=True))}
    assert not by["pages"]["ok"] and "rows differ" in by["pages"]["why"]
    assert not by["iter=001/model"]["ok"]
    assert "files differ: model.bin" in by["iter=001/model"]["why"] and "seen 3 != 4" in by["iter=001/model"]["why"]
    assert by["iter=002/scores"]["why"] == "committed only in B"
    # a stage B adds on purpose is listed as added; one that A has and B lacks stays a difference
    b = _run(tmp_path, "d1", pages, extra=True)
    by = {r["stage"]: r for r in compare(a, b, added=("iter=002/scores",))}
    assert by["iter=002/scores"]["ok"] and by["iter=002/scores"]["added"]
    assert not {r["stage"]: r for r in compare(b, a, added=("iter=002/scores",))}["iter=002/scores"]["ok"]


def test_measured_durations_are_not_compared():
    from bench.compare_commits import _untimed

    assert _untimed({"train_seconds": 1.5, "seconds": 2, "cpu_ms": 9, "tp": 3, "pr": [{"precision": 0.5}]}) == \
        {"tp": 3, "pr": [{"precision": 0.5}]}
    assert _untimed({"kind": "count", "c_reason": "cpu_ms", "c_count": 5})["c_count"] is None
    assert _untimed({"kind": "count", "c_reason": "bad_record", "c_count": 5})["c_count"] == 5


def test_a_file_beside_the_marker_is_compared_byte_for_byte(tmp_path):
    pages = [{"page_id": i, "text": f"t{i}"} for i in range(3)]
    a, b = _run(tmp_path, "aaa", pages), _run(tmp_path, "bbb", pages)
    for run, card in ((a, b"# corpus\n753 pages\n"), (b, b"# corpus\n753 pages\n")):
        (run / "pages" / "README.md").write_bytes(card)
    assert all(r["ok"] for r in compare(a, b))
    (b / "pages" / "README.md").write_bytes(b"# corpus\n754 pages\n")
    by = {r["stage"]: r for r in compare(a, b)}
    assert not by["pages"]["ok"] and "files differ: ../README.md" in by["pages"]["why"]
    # a card B adds (A's release wrote none) is a difference unless named with --added
    (a / "pages" / "README.md").unlink()
    assert "files differ: ../README.md" in {r["stage"]: r for r in compare(a, b)}["pages"]["why"]
    assert all(r["ok"] for r in compare(a, b, added=("pages/README.md",)))
    assert not all(r["ok"] for r in compare(b, a, added=("pages/README.md",)))
