"""Ingest benchmark: per-page rates of every extraction path, and whole-command wall time against datatrove.

Part 1, pages/s/core (CPU time of this process, ``time.process_time``; the
machine is shared, wall time would measure the neighbours) on the HTML
responses of ``warc/derived_minicrawl`` (245 real pages with their real URLs,
3 gzip WARCs) from the shared data:

- ``trafilatura alone`` / ``resiliparse alone``: the bare libraries in a plain
  loop over already-decoded HTML (``trafilatura.extract(html, url=url)``,
  ``extract_plain_text(main_content=True)``);
- ``extractor X``: :func:`extract.extract_html` with ``extractor=X`` (maths
  rewrite, time limit, language);
- ``WARC read``: every record's payload with warcio and with fastwarc (records/s);
- ``process_source`` with each (extractor, reader) pair: read, filter, decode,
  extract, hash, language (resiliparse + warcio are the defaults the Spark step uses);
- ``Spark local[1], extraction``: the Spark job's extraction step with the
  default config (Python tasks' CPU plus the JVM's), run twice: with a fresh Python worker
  (its imports and extractor warm-up, a fixed cost per worker) and with the worker reused;
- ``datatrove 0.10`` WarcReader -> Trafilatura (1 worker) in the interpreter named by
  ``DATATROVE_PYTHON`` (its own venv; CPU of the child), skipped with a message otherwise.

Part 2, whole-command wall time on inputs built here from real pages: every
page of the shared ``html/`` folders (1,194 pages) under its real URL, plus the
first 513 again under ``?copy=1`` URLs: 1,707 records in 4 WARC files (written
by warcio, HTTP 200, the page's bytes); the larger input is those 1,707 four
times over (``copy=0..3``): 6,828 records in 16 files.  Rows:
``corpus-pipeline ingest`` with the defaults, with the old path
(``ingest.extractor=trafilatura``, ``ingest.warc_reader=warcio``), and datatrove doing the same
work: WarcReader -> Trafilatura(favour_precision, timeout 10) -> JsonlWriter -> MinhashDedupSignature,
then MinhashDedupBuckets (14 tasks), MinhashDedupCluster (1 task) and JsonlReader ->
MinhashDedupFilter -> JsonlWriter, 14 bands x 8 rows, 64-bit hashes, each stage a
LocalPipelineExecutor with 2 workers (``BENCH_DT_MINHASH=0``: extraction only).  datatrove runs
in its own venv, named by ``DATATROVE_PYTHON`` (``python -m venv /work/dtvenv &&
/work/dtvenv/bin/pip install 'datatrove[processing,io]' lxml_html_clean spacy``); without it its
rows are skipped with a message.  Each product row also prints its time beyond the session start
(measured alone first) and the extraction tasks' CPU divided by the 2 cores.  ``BENCH_INGEST_WALL=0``
skips part 2, ``BENCH_INGEST_RATES=0`` part 1; ``BENCH_INGEST_OLD=0`` skips the old-path row;
``BENCH_INGEST_INPUTS=small`` runs part 2 on the small input only.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def _files() -> list[str]:
    files = sorted(str(p) for p in (data_dir() / "warc" / "derived_minicrawl").glob("*.warc.gz"))
    n = int(os.environ.get("BENCH_INGEST_FILES", "0") or 0)
    return files[:n] if n > 0 else files


def _timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def _print_rates(rows, n: int) -> None:
    ref_cpu = rows[0][1]
    print(f"\n{'path':<66} {'pages/s/core':>12} {'x trafilatura':>13}")
    for name, cpu, n_items in rows:
        if cpu is None or cpu <= 0:
            print(f"{name:<66} {'-':>12} {'-':>13}")
            continue
        rate = (n_items or n) / cpu
        ratio = f"{ref_cpu / cpu * (n_items or n) / n:13.2f}" if n_items is None else f"{'(records/s)':>13}"
        print(f"{name:<66} {rate:12.1f} {ratio}")
    sys.stdout.flush()


def per_page_rates() -> int:
    from corpus_pipeline import extractors, warc
    from corpus_pipeline.config import Config, IngestConfig, SparkConfig
    from corpus_pipeline.counters import Counts
    from corpus_pipeline.extract import extract_html
    from corpus_pipeline.ingest import process_source

    files = _files()
    if not files:
        print(f"no WARC files under {data_dir()}/warc/derived_minicrawl: skipped")
        return 0
    ic = IngestConfig()
    pages = [(p.url, p.html) for f in files
             for p in warc.read_file(lambda f=f: open(f, "rb"), f, ic, Counts())]
    n = len(pages)
    print(f"part 1: {n} HTML pages from {len(files)} WARC file(s), "
          f"{sum(len(h) for _, h in pages) / max(1, n) / 1000:.0f} KB mean; CPU time per core", flush=True)
    rows = []

    import trafilatura
    from resiliparse.extract.html2text import extract_plain_text

    _, cpu, _ = _timed(lambda: [trafilatura.extract(html, url=url) for url, html in pages])
    rows.append(("trafilatura alone (plain loop)", cpu, None))
    _, cpu, _ = _timed(lambda: [extract_plain_text(html, main_content=True) for _, html in pages])
    rows.append(("resiliparse alone (plain loop)", cpu, None))
    for name in extractors.names():
        _, cpu, _ = _timed(lambda: [extract_html(html, url, timeout_s=ic.extract_timeout_s, extractor=name)
                                    for url, html in pages])
        rows.append((f"extract_html, extractor={name} (maths kept, language)", cpu, None))
    for reader in warc.READERS:
        def read_all(reader=reader):
            k = 0
            for f in files:
                c = Counts()
                for _ in warc.read_file(lambda f=f: open(f, "rb"), f, ic, c, reader=reader):
                    pass
                k += c["records"]
            return k
        recs, cpu, _ = _timed(read_all)
        rows.append((f"WARC read + decode, {reader} ({recs} records)", cpu, recs))
    for extractor, reader in (("resiliparse", "fastwarc"), ("resiliparse", "warcio"), ("trafilatura", "warcio")):
        cfg = Config()
        cfg.ingest.extractor, cfg.ingest.warc_reader = extractor, reader

        def loop(cfg=cfg):
            return sum(1 for f in files for _ in process_source(f, cfg, Counts()))
        kept, cpu, _ = _timed(loop)
        rows.append((f"process_source, {extractor} + {reader} ({kept} kept)", cpu, None))

    try:
        from corpus_pipeline.spark.ingest import extract_to_staging
        from corpus_pipeline.spark.session import get_spark

        spark = get_spark(SparkConfig(master="local[1]", conf={"spark.ui.enabled": "false"}), quiet=True)
        tmp = tempfile.mkdtemp(prefix="bench_ingest_")
        try:
            spark.range(1).count()   # first-job warm-up, not counted
            from pyspark.sql import functions as F

            # twice: the first run's task starts a fresh Python worker (imports, extractor warm-up:
            # a fixed cost per worker, about 0.5 s), the second reuses it (spark.python.worker.reuse)
            for run in ("fresh worker", "worker reused"):
                staged = os.path.join(tmp, "staged_" + run.split()[1])
                jvm0 = _jvm_cpu_s(spark)
                extract_to_staging(spark, files, Config(), staged)
                jvm_cpu = _jvm_cpu_s(spark) - jvm0
                task_cpu = (spark.read.parquet(staged).where(F.col("c_reason") == "cpu_ms")
                            .agg(F.sum("c_count")).collect()[0][0] or 0) / 1000.0
                rows.append((f"Spark local[1], extraction step, defaults, {run} (tasks + JVM CPU)",
                             task_cpu + jvm_cpu, None))
                rows.append(("  the same, Python tasks' CPU only", task_cpu, None))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            spark.stop()
    except Exception as e:  # noqa: BLE001
        rows.append((f"Spark: failed ({type(e).__name__}: {e})"[:66], None, None))

    dt_python = os.environ.get("DATATROVE_PYTHON")
    if dt_python:
        rows.append(_datatrove_subprocess(dt_python, files, n))
    else:
        rows.append(("datatrove: DATATROVE_PYTHON not set (its own venv), skipped", None, None))
    _print_rates(rows, n)
    return n


def fallback_cost() -> None:
    """The bulk pass with and without ``ingest.fallback_extractor``, side by side (best of 3, CPU of this
    process): on the real WARCs of the shared data (derived_minicrawl, dolma, whirlwind: 8 files) and on
    every real page of the shared html/ folders (1,194 pages as 4 WARCs, many hard news pages).  Rate =
    WARC records read per CPU second."""
    from corpus_pipeline.config import Config
    from corpus_pipeline.counters import Counts
    from corpus_pipeline.ingest import process_source

    tmp = Path(tempfile.mkdtemp(prefix="bench_fallback_"))
    try:
        sets = [("real WARCs (8 files)", sorted(str(p) for d in ("derived_minicrawl", "dolma", "whirlwind")
                                                 for p in (data_dir() / "warc" / d).glob("*.warc.gz"))),
                ("html/ pages (1,194)", write_inputs(tmp, _real_pages(), 4))]
        print("\nbulk pass (process_source, resiliparse + fastwarc), with and without the fallback extractor:")
        print("| input | ingest.fallback_extractor | pages kept | bulk_fallback | records/s/core | ratio |")
        print("|---|---|---:|---:|---:|---:|")
        for label, files in sets:
            ref = None
            for setting in ("none", "auto"):
                cfg = Config()
                cfg.ingest.extractor, cfg.ingest.warc_reader, cfg.ingest.fallback_extractor = \
                    "resiliparse", "fastwarc", setting
                best = None
                for _ in range(3):
                    c = Counts()
                    kept, cpu, _w = _timed(lambda: sum(1 for f in files for _ in process_source(f, cfg, c)))
                    best = cpu if best is None else min(best, cpu)
                rate = c["records"] / best
                ref = ref or rate
                name = setting + (f" ({cfg.ingest.fallback()})" if cfg.ingest.fallback() else "")
                print(f"| {label} | {name} | {kept} | {c['bulk_fallback']} | {rate:.0f} | {rate / ref:.3f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    if os.environ.get("BENCH_INGEST_RATES", "1") != "0":
        per_page_rates()
        fallback_cost()
    if os.environ.get("BENCH_INGEST_WALL", "1") != "0":
        whole_command()


def _jvm_cpu_s(spark) -> float:
    """CPU seconds of the driver JVM (in local mode also the executor: tasks, Parquet writing, JIT,
    GC), from ``/proc`` (py4j cannot call ``getProcessCpuTime`` on the JDK's internal bean); 0 when
    unavailable."""
    try:
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")    # utime + stime
    except Exception:  # noqa: BLE001
        return 0.0


_DT_SCRIPT = """
import sys, tempfile
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.readers import WarcReader
ex = LocalPipelineExecutor(pipeline=[WarcReader(sys.argv[1], glob_pattern=sys.argv[2]), Trafilatura()],
                           tasks=1, workers=1, logging_dir=tempfile.mkdtemp(prefix="bench_dt_"))
stats = ex.run()
extractor = [s for s in stats.stats if "Trafilatura" in s.name][0]
print("DOCS", int(extractor.time_stats.n))
"""


def _datatrove_subprocess(python: str, files: list[str], n: int):
    """datatrove in its own interpreter: CPU of the child (and its sandbox processes) and wall,
    scaled to ``n`` pages at its own per-page rate (its WarcReader keeps fewer of these pages)."""
    import resource
    import subprocess

    folder = str(Path(files[0]).parent)
    pattern = "*.warc.gz" if len(files) > 1 else Path(files[0]).name
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([python, "-c", _DT_SCRIPT, folder, pattern], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        return (f"datatrove: failed ({p.stderr.strip().splitlines()[-1][:50] if p.stderr.strip() else p.returncode})",
                None, None)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    docs = int(next(ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("DOCS")))
    if docs <= 0:
        return ("datatrove: extracted no page", None, None)
    scale = n / docs
    return (f"datatrove 0.10 WarcReader->Trafilatura, 1 worker ({docs} of {n} pages)", cpu * scale, None)

# ---------------------------------------------------------------- part 2: whole command
SMALL_EXTRA = 513       # pages written a second time (?copy=1) in the small input: 1,194 + 513 = 1,707


def _real_pages() -> list[tuple[str, bytes]]:
    """(url, HTML bytes) of every labeled real page of the shared html/ folders, in index order."""
    import gzip
    import json

    out = []
    for line in (data_dir() / "labeled" / "pages_labeled.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        path = data_dir() / rec["path"]
        if not path.is_file() or not rec.get("url"):
            continue
        raw = path.read_bytes()
        out.append((rec["url"], gzip.decompress(raw) if path.suffix == ".gz" else raw))
    return out


def _copy_url(url: str, k: int) -> str:
    base, _, frag = url.partition("#")
    return f"{base}{'&' if '?' in base else '?'}copy={k}"


def write_inputs(folder: Path, records: list[tuple[str, bytes]], n_files: int) -> list[str]:
    """``records`` round-robin into ``n_files`` gzip WARCs (warcio writer, HTTP 200 text/html)."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"real-{i:02d}.warc.gz" for i in range(n_files)]
    handles = [open(p, "wb") for p in paths]
    try:
        writers = [WARCWriter(h, gzip=True) for h in handles]
        for i, (url, body) in enumerate(records):
            w = writers[i % n_files]
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                                    protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                                warc_headers_dict={"WARC-Date": "2024-05-18T01:58:10Z"}))
    finally:
        for h in handles:
            h.close()
    return [str(p) for p in paths]


_DT_WALL = """
import glob, gzip, os, sys, tempfile
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup.minhash import (MinhashConfig, MinhashDedupBuckets, MinhashDedupCluster,
                                              MinhashDedupFilter, MinhashDedupSignature)
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.readers import JsonlReader, WarcReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.utils.hashing import HashConfig

if __name__ == "__main__":   # its workers are spawned processes: a script file with a main guard
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    logs = tempfile.mkdtemp(prefix="bench_dt_")
    cfg = MinhashConfig(hash_config=HashConfig(precision=64), num_buckets=14, hashes_per_bucket=8)
    run = lambda name, pipeline, tasks: LocalPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=2,
                                                              logging_dir=os.path.join(logs, name)).run()
    stats = run("extract", [WarcReader(src, glob_pattern="*.warc.gz"),
                            Trafilatura(favour_precision=True, timeout=10.0),
                            JsonlWriter(os.path.join(out, "extracted")),
                            MinhashDedupSignature(output_folder=os.path.join(out, "sigs"), config=cfg)], n)
    extractor = [s for s in stats.stats if "Trafilatura" in s.name][0]
    print("DOCS", int(extractor.time_stats.n), flush=True)
    if os.environ.get("BENCH_DT_MINHASH", "1") != "0":
        run("buckets", [MinhashDedupBuckets(input_folder=os.path.join(out, "sigs"),
                                            output_folder=os.path.join(out, "buckets"), config=cfg)], 14)
        run("clusters", [MinhashDedupCluster(input_folder=os.path.join(out, "buckets"),
                                             output_folder=os.path.join(out, "remove_ids"), config=cfg)], 1)
        stats = run("filter", [JsonlReader(os.path.join(out, "extracted")),
                               MinhashDedupFilter(input_folder=os.path.join(out, "remove_ids")),
                               JsonlWriter(os.path.join(out, "deduplicated"))], n)
        kept = sum(1 for f in glob.glob(os.path.join(out, "deduplicated", "*.jsonl*"))
                   for _ in (gzip.open(f, "rt") if f.endswith(".gz") else open(f)))
        print("KEPT", kept, flush=True)
"""


CORES = 2


def _dt_python():
    """The interpreter of datatrove's own venv: ``DATATROVE_PYTHON`` (None: the rows are skipped)."""
    p = os.environ.get("DATATROVE_PYTHON")
    return p if p and os.path.exists(p) else None


def _product(folder: str, run: str, sets: list[str]) -> tuple[float, dict, str]:
    import json
    import subprocess

    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "corpus_pipeline", "ingest", "--input", folder, "--run", run]
    for s in sets:
        cmd += ["--set", s]
    w0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    wall = time.perf_counter() - w0
    if p.returncode != 0:
        return wall, {}, (p.stderr.strip().splitlines() or ["?"])[-1][:80]
    marker = json.loads((Path(run) / "pages" / "_COMMIT.json").read_text())
    return wall, marker.get("counts", {}), ""


def _spark_start_s() -> float:
    """Wall seconds from a fresh interpreter to a usable local[*] session and its first job."""
    import subprocess

    code = ("import time; t=time.perf_counter(); from corpus_pipeline.config import SparkConfig; "
            "from corpus_pipeline.spark.session import get_spark; s=get_spark(SparkConfig(), quiet=True); "
            "s.range(1).count(); print('T', time.perf_counter()-t); s.stop()")
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable, PYTHONPATH=str(ROOT))
    w0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(ROOT))
    try:
        return float(next(ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("T")))
    except StopIteration:
        return time.perf_counter() - w0


def whole_command() -> None:
    import subprocess

    pages = _real_pages()
    if not pages:
        print("part 2: no labeled pages in the shared data: skipped")
        return
    small = pages + [(_copy_url(u, 1), b) for u, b in pages[:SMALL_EXTRA]]
    large = [(_copy_url(u, k), b) for k in range(4) for u, b in small]
    tmp = Path(tempfile.mkdtemp(prefix="bench_ingest_wall_"))
    dt_python = _dt_python()
    start_s = _spark_start_s()
    print(f"\npart 2: whole-command wall time, 2 cores; Spark session start + first job alone: "
          f"{start_s:.1f} s", flush=True)
    if not dt_python:
        print("datatrove rows skipped: set DATATROVE_PYTHON to the python of a venv with "
              "'datatrove[processing,io]' lxml_html_clean spacy (e.g. /work/dtvenv/bin/python)")
    print(f"{'input':<34} {'path':<44} {'wall s':>7} {'pages':>6} {'datatrove / it':>14}")
    try:
        which = os.environ.get("BENCH_INGEST_INPUTS", "small,larger").split(",")
        for label, records, n_files in [x for x in (("small", small, 4), ("larger", large, 16)) if x[0] in which]:
            folder = tmp / label
            write_inputs(folder, records, n_files)
            name = f"{label}: {len(records)} records, {n_files} files"
            dt_wall = None
            if dt_python:
                script = tmp / "dt_wall.py"
                script.write_text(_DT_WALL)
                w0 = time.perf_counter()
                p = subprocess.run([dt_python, str(script), str(folder), str(tmp / f"dt-{label}"), str(n_files)],
                                   capture_output=True, text=True)
                dt_wall = time.perf_counter() - w0
                docs = next((ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("DOCS")), "?")
                if p.returncode != 0:
                    err = (p.stderr.strip().splitlines() or ["?"])[-1][:60]
                    print(f"{name:<34} {'datatrove: failed':<44} {err}")
                    dt_wall = None
                else:
                    kept = next((ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("KEPT")), docs)
                    what = ("datatrove: Trafilatura + MinHash 14x8, 2 w." if os.environ.get("BENCH_DT_MINHASH", "1")
                            != "0" else "datatrove 0.10 WarcReader->Trafilatura, 2 w.")
                    print(f"{name:<34} {what:<44} {dt_wall:7.1f} {kept:>6} {1.0:14.2f}   (extracted {docs})",
                          flush=True)
            else:
                print(f"{name:<34} datatrove: DATATROVE_PYTHON not set, skipped")
            paths = [("corpus-pipeline ingest (defaults)", [])]
            if os.environ.get("BENCH_INGEST_OLD", "1") != "0":
                paths.append(("corpus-pipeline ingest (trafilatura + warcio)",
                              ["ingest.extractor=trafilatura", "ingest.warc_reader=warcio"]))
            for pname, sets in paths:
                wall, counts, err = _product(str(folder), str(tmp / f"run-{label}-{len(sets)}"), sets)
                if err:
                    print(f"{name:<34} {pname:<44} failed: {err}")
                    continue
                ratio = f"{dt_wall / wall:14.2f}" if dt_wall else f"{'-':>14}"
                cpu_s = counts.get("cpu_ms", 0) / 1000
                beyond = wall - start_s - cpu_s / CORES
                print(f"{name:<34} {pname:<44} {wall:7.1f} {counts.get('pages', 0):>6} {ratio}   "
                      f"(task CPU {cpu_s:.1f} s; beyond session start and task CPU / {CORES} cores: {beyond:.1f} s)",
                      flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
