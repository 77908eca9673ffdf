"""Same results at two commits: run the loop with each commit's code on the same pinned inputs and
compare every committed table and every marker's counts.

    python -m bench.compare_commits BASE [HEAD] [--crawls mini,dev] [--pages 800] [--work DIR] [--set k=v ...]

``HEAD`` defaults to the working tree as it is (uncommitted changes included). Each commit's source
is exported with ``git archive`` and run with this interpreter (its installed dependencies) and
``PYTHONPATH`` pointing at the export, so the package, its shipped starter seed and its defaults are
that commit's. The inputs are built once, by the working tree's code, and shared by both runs:

* ``mini``: the mini-crawl (``minicrawl --pages N --random-seed 1``) with its labels and benchmarks;
* ``dev``: the development crawl of real pages (``$CORPUS_PIPELINE_DATA``, see ``devcrawl.py``).

Each run is ``corpus-pipeline run --annotate auto --labels ... [--benchmarks ...]`` on ``local[2]``.
Compared per committed stage folder (every folder holding a commit marker, in both runs):

* the marker's ``counts`` (measured durations such as ``train_seconds`` or ``cpu_ms``, attempt tokens
  and resolved paths are not compared);
* the data: Parquet tables as multisets of rows; text and JSON part files as multisets of lines; JSON
  files (``metrics.json``) without their durations; any other file (``model.bin``, worksheets, and the
  files beside a marker outside its attempt folder, such as the corpus's dataset card
  ``final/corpus/README.md``) byte for byte, by relative name (Spark's
  part-file names hold a random id, so part files are compared together, not by name).

Against a commit from before the canaries stage and the dataset card, name what HEAD adds:
``--added final/canaries --added final/corpus/README.md``.

Prints one line per stage and exits 1 when anything differs. Nothing is stored in the repository:
the runs live in ``--work`` (a temporary folder by default, removed unless ``--keep``).
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "_COMMIT.json"
SKIP_FILES = {MARKER, "_SUCCESS"}
TIMING = re.compile(r"(.*_)?(seconds|ms)")         # measured durations (train_seconds, cpu_ms): never compared


def _untimed(x):
    """``x`` (a marker's counts, a JSON file, a table row) without measured durations: keys that name one
    are dropped, and a counts row naming one (``c_reason = "cpu_ms"``) keeps its name, not its value."""
    if isinstance(x, dict):
        if isinstance(x.get("c_reason"), str) and TIMING.fullmatch(x["c_reason"]):
            return {**x, "c_count": None}
        return {k: _untimed(v) for k, v in x.items() if not TIMING.fullmatch(str(k))}
    if isinstance(x, list):
        return [_untimed(v) for v in x]
    return x


# ---------------------------------------------------------------- sources and inputs
def export(rev: str, dest: Path) -> Path:
    """``rev``'s tracked files under ``dest`` (``"WORKTREE"``: the working tree, uncommitted changes too)."""
    dest.mkdir(parents=True, exist_ok=True)
    if rev == "WORKTREE":
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                               capture_output=True).stdout.decode().split("\0")
        for f in filter(None, files):
            src = ROOT / f
            if src.is_file():
                (dest / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / f)
        return dest
    tar = dest.with_suffix(".tar")
    subprocess.run(["git", "archive", "--format=tar", "-o", str(tar), rev], cwd=ROOT, check=True)
    with tarfile.open(tar) as t:
        t.extractall(dest, filter="data")
    tar.unlink()
    return dest


def _env(src: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(src), "PYSPARK_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1", "CORPUS_PIPELINE_SEEDS": str(src / "seeds")}


def _cli(src: Path, args: list[str], log: Path) -> None:
    t0 = time.time()
    with open(log, "w") as out:
        p = subprocess.run([sys.executable, "-m", "corpus_pipeline", *args], cwd=src, env=_env(src),
                           stdout=out, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args[:1])} failed with exit {p.returncode} ({src.name}); see {log}")
    print(f"  {args[0]} with {src.name}: {time.time() - t0:.0f} s", flush=True)


def build_inputs(kind: str, work: Path, pages: int) -> dict:
    """The pinned inputs of one crawl kind: {"input", "labels", "benchmarks"?}."""
    out = work / "inputs" / kind
    if kind == "mini":
        if not (out / "labels.jsonl").is_file():
            _cli(ROOT, ["minicrawl", "--out", str(out), "--pages", str(pages), "--random-seed", "1"],
                 work / "minicrawl.log")
        return {"input": str(out / "warc"), "labels": str(out / "labels.jsonl"), "benchmarks": str(out / "benchmarks")}
    if kind == "dev":
        if not (out / "labels.jsonl").is_file():
            sys.path.insert(0, str(ROOT))
            from bench.bench_devloop import data_dir
            from devtools import devcrawl

            devcrawl.build(str(data_dir()), str(out))
        return {"input": str(out / "warc"), "labels": str(out / "labels.jsonl")}
    raise SystemExit(f"unknown crawl {kind!r} (mini, dev)")


def run_loop(src: Path, inputs: dict, run: Path, sets: list[str], log: Path) -> None:
    args = ["run", "--input", inputs["input"], "--run", str(run), "--labels", inputs["labels"],
            "--annotate", "auto", "--set", "spark.master=local[2]"]
    if inputs.get("benchmarks"):
        args += ["--benchmarks", inputs["benchmarks"]]
    for s in sets:
        args += ["--set", s]
    _cli(src, args, log)


# ---------------------------------------------------------------- comparing two run folders
def stage_folders(run: Path) -> dict[str, Path]:
    """relative name -> folder, for every folder of the run holding a commit marker."""
    return {str(p.parent.relative_to(run)): p.parent for p in sorted(run.rglob(MARKER))}


def _data_dir(folder: Path) -> Path:
    m = json.loads((folder / MARKER).read_text())
    return folder / f"attempt={m['attempt']}" if m.get("attempt") else folder


def _files(d: Path, folder: Path, stages: set[Path]) -> list[Path]:
    """The data files of the stage ``folder`` (its committed data in ``d``), leaving out any other
    stage's folder that lies inside it."""
    inner = [s for s in stages if s != folder and folder in s.parents]
    out = []
    for p in sorted(d.rglob("*")):
        if not p.is_file() or p.name in SKIP_FILES or p.name.startswith(".") or p.suffix == ".crc":
            continue
        if any(s in p.parents for s in inner):
            continue
        out.append(p)
    return out


def digest(folder: Path, stages: set[Path]) -> dict:
    """{"rows": n, "tables": {group: sha1 of the sorted rows}, "files": {name: sha1}} of a stage's data."""
    import pyarrow.parquet as pq

    d = _data_dir(folder)
    groups: dict[str, list[bytes]] = collections.defaultdict(list)
    files = {}
    for p in _files(d, folder, stages):
        rel = p.relative_to(d)
        if p.name.startswith("part-"):               # a table or text part: compared as a multiset of rows
            group = str(rel.parent / "part-*")
            if p.suffix == ".parquet":
                t = pq.read_table(p)
                cols = sorted(t.column_names)
                for row in t.select(cols).to_pylist():
                    groups[group].append(json.dumps(_untimed(row), sort_keys=True, default=str).encode())
            else:
                raw = p.read_bytes()
                if p.name.endswith(".gz"):
                    import gzip

                    raw = gzip.decompress(raw)
                groups[group] += raw.splitlines()
        elif p.suffix == ".json":
            data = json.dumps(_untimed(json.loads(p.read_text(encoding="utf-8"))), sort_keys=True)
            files[str(rel)] = hashlib.sha1(data.encode()).hexdigest()[:12]
        else:
            files[str(rel)] = hashlib.sha1(p.read_bytes()).hexdigest()[:12]
    if d != folder:     # files beside the marker, outside the attempt folder (final/corpus/README.md, the card)
        for p in sorted(folder.iterdir()):
            if p.is_file() and p.name not in SKIP_FILES and not p.name.startswith(".") and p.suffix != ".crc":
                files["../" + p.name] = hashlib.sha1(p.read_bytes()).hexdigest()[:12]
    tables = {}
    rows = 0
    for g, lines in groups.items():
        lines.sort()
        rows += len(lines)
        tables[g] = hashlib.sha1(b"\n".join(lines)).hexdigest()[:12]
    return {"rows": rows, "tables": tables, "files": files}


def counts(folder: Path) -> dict:
    return _untimed(json.loads((folder / MARKER).read_text()).get("counts") or {})


def compare(a: Path, b: Path, added: tuple = ()) -> list[dict]:
    """One row per stage folder committed in either run; ``added``: stages B adds (committed in B
    only, listed as added, not as a difference) and files B adds beside a marker (``final/corpus/README.md``:
    present in B only, not a difference; changed where both have it, still one)."""
    sa, sb = stage_folders(a), stage_folders(b)
    rows = []
    for name in sorted(set(sa) | set(sb)):
        if name in sb and name not in sa and name in added:
            rows.append({"stage": name, "ok": True, "added": True, "why": "added by B (--added)"})
            continue
        if name not in sa or name not in sb:
            rows.append({"stage": name, "ok": False, "why": f"committed only in {'A' if name in sa else 'B'}"})
            continue
        da = digest(sa[name], set(sa.values()))
        db = digest(sb[name], set(sb.values()))
        why = []
        if da["tables"] != db["tables"]:
            why.append("rows differ: " + ", ".join(g for g in sorted(set(da["tables"]) | set(db["tables"]))
                                                   if da["tables"].get(g) != db["tables"].get(g)))
        for f in [f for f in db["files"] if f.startswith("../") and f not in da["files"]]:
            if f"{name}/{f[3:]}" in added:          # a file B adds beside the marker (--added STAGE/FILE)
                del db["files"][f]
        if da["files"] != db["files"]:
            why.append("files differ: " + ", ".join(f for f in sorted(set(da["files"]) | set(db["files"]))
                                                    if da["files"].get(f) != db["files"].get(f)))
        ca, cb = counts(sa[name]), counts(sb[name])
        if ca != cb:
            keys = sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))
            why.append("counts differ: " + ", ".join(f"{k} {ca.get(k)!r} != {cb.get(k)!r}" for k in keys)[:400])
        rows.append({"stage": name, "ok": not why, "rows": (da["rows"], db["rows"]), "why": "; ".join(why)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the commit before the change")
    ap.add_argument("head", nargs="?", default="WORKTREE", help="the commit after it (default: the working tree)")
    ap.add_argument("--crawls", default="mini,dev", help="comma-separated: mini, dev (default both)")
    ap.add_argument("--pages", type=int, default=800, help="mini-crawl pages (default 800)")
    ap.add_argument("--work", help="working folder (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the working folder")
    ap.add_argument("--set", action="append", default=[], metavar="K=V", help="a setting for both runs")
    ap.add_argument("--added", action="append", default=[], metavar="STAGE",
                    help="a stage folder HEAD adds (e.g. final/canaries), or a file beside a stage's marker "
                         "(e.g. final/corpus/README.md): in B only, not a difference")
    args = ap.parse_args(argv)
    work = Path(args.work or tempfile.mkdtemp(prefix="compare_commits_")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    failed = 0
    try:
        srcs = {}
        for side, rev in (("A", args.base), ("B", args.head)):
            srcs[side] = export(rev, work / f"src-{side}")
            print(f"{side}: {rev}", flush=True)
        for kind in [k for k in args.crawls.split(",") if k]:
            print(f"\n== {kind} crawl", flush=True)
            inputs = build_inputs(kind, work, args.pages)
            runs = {}
            for side, src in srcs.items():
                runs[side] = work / "runs" / kind / side
                shutil.rmtree(runs[side], ignore_errors=True)
                run_loop(src, inputs, runs[side], args.set, work / f"{kind}-{side}.log")
            result = compare(runs["A"], runs["B"], tuple(args.added))
            for r in result:
                rows = r.get("rows")
                print(f"  {'same' if r['ok'] else 'DIFF'}  {r['stage']:<34} "
                      f"{(str(rows[0]) + ' rows') if rows else '':>12}  {r['why']}")
            bad = [r for r in result if not r["ok"]]
            new = [r for r in result if r.get("added")]
            print(f"  {kind}: {len(result) - len(bad) - len(new)} of {len(result) - len(new)} committed stages the "
                  f"same" + (f"; {len(new)} added by B" if new else ""), flush=True)
            failed += len(bad)
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"(work folder: {work})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
