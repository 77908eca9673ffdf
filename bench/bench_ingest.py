"""Ingest benchmark: pages per second per core of the ingest path against trafilatura alone.

Same real pages: the HTML responses of ``warc/derived_minicrawl`` (245 real
pages with their real URLs, 3 gzip WARCs) from the shared data.  Rows:

- ``trafilatura alone``: ``trafilatura.extract(html, url=url)`` in a plain loop over
  the already-decoded HTML (no WARC reading): the reference;
- ``extract_html alone``: our maths-preserving extractor, same loop;
- ``process_source loop``: :func:`corpus_pipeline.ingest.process_source` over the
  WARC files in a plain loop (read, filter, decode, extract, hash, language);
- ``Spark local[1], extraction``: the Spark job's extraction step
  (:func:`spark.ingest.extract_to_staging`, one task per file, Parquet write);
- ``Spark local[1], whole stage``: :func:`spark.ingest.run_ingest` (extraction +
  URL/exact/near dedup + three commits); session start excluded.
- ``datatrove`` (WarcReader -> Trafilatura, 1 worker) when ``datatrove`` imports
  in this interpreter, or in the interpreter named by ``DATATROVE_PYTHON`` (a separate
  venv with ``datatrove trafilatura lxml_html_clean warcio``; run as a child process
  and timed by its CPU time, children included); skipped otherwise (not a dependency).

Plain loops are timed in CPU seconds of this process (``time.process_time``:
the machine is shared, wall time would measure the neighbours) and in wall
seconds.  Spark's extraction row's CPU is the Python tasks' own CPU time (each
task counts ``cpu_ms``) plus the JVM's process CPU time over the job; the
whole-stage row has wall time only (its dedup workers are not measured).  ``ratio`` = pages/s of the row / pages/s
of trafilatura alone, same clock (the ingest target is >= 0.8).
``BENCH_INGEST_FILES=N`` limits the number of WARC files.
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


def main() -> None:
    from corpus_pipeline import warc
    from corpus_pipeline.config import Config, IngestConfig, SparkConfig
    from corpus_pipeline.counters import Counts
    from corpus_pipeline.extract import extract_html
    from corpus_pipeline.ingest import process_source

    files = _files()
    if not files:
        print(f"no WARC files under {data_dir()}/warc/derived_minicrawl: skipped")
        return
    ic = IngestConfig()
    pages = [(p.url, p.html) for f in files
             for p in warc.read_file(lambda f=f: open(f, "rb"), f, ic, Counts())]
    n = len(pages)
    print(f"{n} HTML pages from {len(files)} WARC file(s), {sum(len(h) for _, h in pages) / max(1, n) / 1000:.0f} KB "
          f"mean; timing...", flush=True)
    rows = []

    import trafilatura

    def traf():
        for url, html in pages:
            trafilatura.extract(html, url=url)

    _, cpu, wall = _timed(traf)
    rows.append(("trafilatura alone (plain loop)", cpu, wall))

    def ours():
        for url, html in pages:
            extract_html(html, url, timeout_s=ic.extract_timeout_s, favor=ic.favor)

    _, cpu, wall = _timed(ours)
    rows.append(("extract_html alone (plain loop)", cpu, wall))

    cfg = Config()

    def loop():
        kept = 0
        for f in files:
            for _ in process_source(f, cfg, Counts()):
                kept += 1
        return kept

    kept, cpu, wall = _timed(loop)
    rows.append((f"process_source loop ({kept} kept)", cpu, wall))

    # Spark local[1]
    spark_note = ""
    try:
        from corpus_pipeline.runfolder import RunFolder
        from corpus_pipeline.spark.ingest import extract_to_staging, run_ingest
        from corpus_pipeline.spark.session import get_spark

        spark = get_spark(SparkConfig(master="local[1]", conf={"spark.ui.enabled": "false"}), quiet=True)
        cores = spark.sparkContext.defaultParallelism
        spark_note = f" (master {spark.sparkContext.master}, {cores} core(s))"
        tmp = tempfile.mkdtemp(prefix="bench_ingest_")
        try:
            spark.range(1).count()   # first-job warm-up, not counted
            staged = os.path.join(tmp, "staged")
            jvm0 = _jvm_cpu_s(spark)
            _, _, wall = _timed(lambda: extract_to_staging(spark, files, cfg, staged))
            jvm_cpu = _jvm_cpu_s(spark) - jvm0
            from pyspark.sql import functions as F

            task_cpu = (spark.read.parquet(staged).where(F.col("c_reason") == "cpu_ms")
                        .agg(F.sum("c_count")).collect()[0][0] or 0) / 1000.0
            rows.append((f"Spark local[1], extraction{spark_note}", task_cpu + jvm_cpu, wall * cores))
            _, _, wall = _timed(lambda: run_ingest(spark, files, RunFolder(os.path.join(tmp, "run")), cfg,
                                                   log=lambda s: None))
            rows.append((f"Spark local[1], whole stage incl. dedup{spark_note}", None, wall * cores))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except Exception as e:  # noqa: BLE001
        rows.append((f"Spark: failed ({type(e).__name__}: {e})"[:90], None, None))

    dt_python = os.environ.get("DATATROVE_PYTHON")
    if dt_python:
        rows.append(_datatrove_subprocess(dt_python, files, n))
    else:
        try:
            import datatrove  # noqa: F401

            rows.append(_datatrove(files, n))
        except ImportError:
            rows.append(("datatrove: not installed (set DATATROVE_PYTHON), skipped", None, None))

    ref_cpu, ref_wall = rows[0][1], rows[0][2]
    print(f"\n{'path':<62} {'pages/s/core CPU':>17} {'ratio':>6} {'pages/s/core wall':>18} {'ratio':>6}")
    for name, cpu, wall in rows:
        def fmt(t, ref):
            if t is None or t <= 0:
                return f"{'-':>17}", f"{'-':>6}"
            rate = n / t
            return f"{rate:17.1f}", f"{(ref / t):6.2f}"
        c_rate, c_ratio = fmt(cpu, ref_cpu)
        w_rate, w_ratio = fmt(wall, ref_wall)
        print(f"{name:<62} {c_rate} {c_ratio} {w_rate:>18} {w_ratio}")
    print("\nratio = row pages/s / trafilatura-alone pages/s on the same clock; Spark wall time x cores used.")
    sys.stdout.flush()


def _jvm_cpu_s(spark) -> float:
    """CPU seconds of the driver JVM (in local mode also the executor), 0 when unavailable."""
    try:
        bean = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        return bean.getProcessCpuTime() / 1e9
    except Exception:  # noqa: BLE001
        return 0.0


def _datatrove(files: list[str], n: int):
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.pipeline.readers import WarcReader

    folder = str(Path(files[0]).parent)
    tmp = tempfile.mkdtemp(prefix="bench_dt_")
    try:
        ex = LocalPipelineExecutor(pipeline=[WarcReader(folder, glob_pattern="*.warc.gz"), Trafilatura()],
                                   tasks=1, workers=1, logging_dir=tmp)
        _, _, wall = _timed(ex.run)
        return ("datatrove WarcReader -> Trafilatura (1 worker)", None, wall)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
    w0 = time.perf_counter()
    p = subprocess.run([python, "-c", _DT_SCRIPT, folder, pattern], capture_output=True, text=True)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        return (f"datatrove: failed ({p.stderr.strip().splitlines()[-1][:60] if p.stderr.strip() else p.returncode})",
                None, None)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    docs = int(next(ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("DOCS")))
    if docs <= 0:
        return ("datatrove: extracted no page", None, None)
    scale = n / docs
    return (f"datatrove 0.10 WarcReader->Trafilatura ({docs} of {n} pages read)", cpu * scale, wall * scale)


if __name__ == "__main__":
    main()
