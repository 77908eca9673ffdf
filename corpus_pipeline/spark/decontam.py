"""Spark layer of decontamination: the index is built once on the driver,
shared with the executors (a broadcast variable on a classic session: ``spark.classic.share``),
and applied to pages in ``mapInArrow`` (pure rules in ``corpus_pipeline/decontam.py``)."""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from typing import Optional

from .. import decontam
from .. import fs as fsmod
from ..dedup.url import page_id as url_page_id
from ..errors import UsageError
from ..schemas import CONTAMINATION, columns
from .arrow import map_in_arrow
from .classic import persisted, share
from .io import struct, write_table

_REMOVED, _LINES, _ROWS = "_dc_removed", "_dc_lines", "_dc_rows"


@dataclass
class DecontamResult:
    corpus: object                  # DataFrame: the input's columns, text cleaned, removed pages absent
    contamination: object           # DataFrame in schemas.CONTAMINATION
    counts: dict                    # JSON-serializable: pages_in, pages_removed, segments_removed, by_benchmark ...
    benchmarks: list = field(default_factory=list)      # benchmark names used
    skipped_files: list = field(default_factory=list)   # files in the benchmarks directory not known (not used)
    index_stats: dict = field(default_factory=dict)
    loaded: object = None           # (Benchmarks, GramIndex): the canaries reuse them
    _cached: object = None

    def unpersist(self) -> None:
        if self._cached is not None:
            self._cached.unpersist()


def _arrow_fn(shared, cfg, text_pos: int, id_pos: Optional[int], url_pos: Optional[int], out_schema):
    """mapInArrow function: each record batch comes back with its text column cleaned and three
    columns added (removed, lines removed or flagged, contamination rows); the other columns pass
    through as Arrow arrays, never converted to Python."""
    def run(batches):
        import pyarrow as pa

        from .arrow import arrow_type

        extra = [arrow_type(f.dataType) for f in out_schema.fields[-3:]]
        index = shared.value
        for b in batches:
            n = b.num_rows
            texts = b.column(text_pos).to_pylist()
            ids = b.column(id_pos).to_pylist() if id_pos is not None else [None] * n
            urls = b.column(url_pos).to_pylist() if url_pos is not None else [None] * n
            out_text, removed, lines, contam = [], [], [], []
            for text, pid, url in zip(texts, ids, urls):
                res = decontam.decontaminate_text(text, index, cfg)
                rows = []
                if res.rows:
                    if pid is None and url:
                        pid = url_page_id(url)
                    pid = None if pid is None else str(pid)
                    rows = [(pid,) + tuple(x) for x in res.rows]
                out_text.append(text if res.removed else res.text)
                removed.append(bool(res.removed))
                lines.append(int(res.lines_removed or res.lines_flagged))
                contam.append(rows)
            cols = list(b.columns)
            cols[text_pos] = pa.array(out_text, type=b.schema.field(text_pos).type)
            cols += [pa.array(removed, type=extra[0]), pa.array(lines, type=extra[1]),
                     pa.array(contam, type=extra[2])]
            yield pa.RecordBatch.from_arrays(cols, names=[f.name for f in out_schema.fields])
    return run


def build_broadcast_index(spark, benchmarks_dir: str, cfg):
    """Load the benchmarks and build the index on the driver; (Benchmarks, GramIndex)."""
    if not fsmod.is_local(benchmarks_dir):
        raise UsageError(f"{benchmarks_dir}: the benchmarks directory must be a local folder on the driver")
    bm = decontam.load_benchmarks(fsmod.local_path(benchmarks_dir), cfg)
    return bm, decontam.build_index(bm, cfg)


def decontaminate_df(spark, corpus_df, benchmarks_dir: str, cfg) -> "DecontamResult":
    """Decontaminate a DataFrame with a ``text`` column (and ``page_id`` or ``url``)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.types import (
        ArrayType,
        BooleanType,
        IntegerType,
        StructField,
        StructType,
    )

    names = corpus_df.columns
    if "text" not in names:
        raise UsageError(f"the corpus has no 'text' column (columns: {', '.join(names)})")
    if "page_id" not in names and "url" not in names:
        raise UsageError(f"the corpus needs a 'page_id' or 'url' column (columns: {', '.join(names)})")
    bm, index = build_broadcast_index(spark, benchmarks_dir, cfg)
    out_schema = StructType(list(corpus_df.schema.fields) + [
        StructField(_REMOVED, BooleanType(), False),
        StructField(_LINES, IntegerType(), False),
        StructField(_ROWS, ArrayType(struct(CONTAMINATION)), False),
    ])
    fn = _arrow_fn(share(spark, index), cfg, names.index("text"),
                   names.index("page_id") if "page_id" in names else None,
                   names.index("url") if "url" in names else None, out_schema)
    df = map_in_arrow(corpus_df, fn, out_schema)
    df = persisted(df, StorageLevel.MEMORY_AND_DISK)      # on Connect: the index is sent once

    corpus = df.filter(~F.col(_REMOVED)).select(*[F.col(f"`{c}`") for c in names])
    contamination = df.select(F.explode(_ROWS).alias("r")).select(*[F.col(f"r.{c}") for c in columns(CONTAMINATION)])

    flag = getattr(cfg, "mode", "remove") == "flag"
    touched = F.size(_ROWS) > 0
    agg = df.agg(
        F.count(F.lit(1)).alias("pages_in"),
        F.sum(F.col(_REMOVED).cast("int")).alias("pages_removed"),
        F.sum(((~F.col(_REMOVED)) & touched).cast("int")).alias("pages_touched"),
        F.sum(F.when(~F.col(_REMOVED) & touched, F.col(_LINES)).otherwise(0)).alias("lines"),
    ).collect()[0]
    counts = decontam.empty_counts()
    counts["pages_in"] = int(agg["pages_in"] or 0)
    counts["pages_removed"] = int(agg["pages_removed"] or 0)
    if flag:       # nothing removed: the pages and lines that would have been
        counts["pages_flagged"], counts["segments_flagged"] = int(agg["pages_touched"] or 0), int(agg["lines"] or 0)
    else:
        counts["pages_cleaned"], counts["segments_removed"] = int(agg["pages_touched"] or 0), int(agg["lines"] or 0)
    counts["pages_out"] = counts["pages_in"] - counts["pages_removed"]
    # per benchmark x action, benchmark x reason and per page-level rule: distinct pages, in one job
    rule = (F.when(F.col("action").isin(decontam.SEGMENT_REMOVED, decontam.SEGMENT_FLAGGED), F.lit(decontam.R_NGRAM))
            .when(F.col("reason") != decontam.R_NGRAM, F.col("reason")))
    c = contamination.withColumn("rule", rule)
    # SQL GROUPING SETS: DataFrame.groupingSets is pyspark 4.x only (EMR 7 / Dataproc 2.2 run 3.5)
    view = f"_contamination_{id(c):x}"
    c.createOrReplaceTempView(view)
    grouped = spark.sql(
        f"SELECT benchmark, action, reason, rule, count(DISTINCT page_id) AS n, grouping_id() AS g FROM {view} "
        "GROUP BY benchmark, action, reason, rule "
        "GROUPING SETS ((benchmark, action), (benchmark, reason), (rule))").collect()
    spark.catalog.dropTempView(view)
    by_b: dict = {}
    by_br: dict = {}
    # grouping_id bits, most significant first: benchmark, action, reason, rule (1 = aggregated away)
    for r in grouped:
        if r["g"] == 0b0011:
            by_b.setdefault(r["benchmark"], {})[r["action"]] = int(r["n"])
        elif r["g"] == 0b0101:
            by_br.setdefault(r["benchmark"], {})[r["reason"]] = int(r["n"])
        elif r["g"] == 0b1110 and r["rule"] is not None:
            counts["by_rule"][r["rule"]] = int(r["n"])
    counts["by_benchmark"] = {b: dict(sorted(d.items())) for b, d in sorted(by_b.items())}
    counts["by_benchmark_rule"] = {b: dict(sorted(d.items())) for b, d in sorted(by_br.items())}
    stats = {"items": len(bm.items), "grams": int(len(index.hashes)), "index_bytes": int(index.nbytes()),
             "files": [f.path for f in bm.files], **index.stats}
    # per benchmark: short questions looked up whole, and left out as generic formula or phrasing
    counts["short_items"] = index.stats.get("short_by_benchmark", {})
    return DecontamResult(corpus=corpus, contamination=contamination, counts=counts, benchmarks=bm.names(),
                          skipped_files=list(bm.skipped), index_stats=stats, loaded=(bm, index), _cached=df)


# ---------------------------------------------------------------- files in, files out
def _first_json_keys(path: str) -> Optional[list]:
    """Column order of a local JSONL file (Spark's JSON reader sorts columns by name)."""
    if not fsmod.is_local(path):
        return None
    p = fsmod.local_path(path)
    try:
        opener = gzip.open if p.endswith(".gz") else open
        with opener(p, "rt", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    obj = json.loads(line)
                    return list(obj) if isinstance(obj, dict) else None
    except (OSError, ValueError):
        return None
    return None


def read_corpus(spark, path: str):
    """A JSONL (.jsonl/.json, optionally .gz) or Parquet file/folder as a DataFrame."""
    low = path.lower().rstrip("/")
    if fsmod.is_local(path) and not fsmod.get_fs(path).exists(path):
        raise UsageError(f"{path}: input not found")
    if low.endswith((".jsonl", ".json", ".jsonl.gz", ".json.gz", ".ndjson")):
        df = spark.read.option("mode", "FAILFAST").json(fsmod.to_spark_uri(path))
        order = _first_json_keys(path)
        if order:
            cols = [c for c in order if c in df.columns] + [c for c in df.columns if c not in order]
            df = df.select(*[f"`{c}`" for c in cols])
        return df
    return spark.read.parquet(fsmod.to_spark_uri(path))


def decontaminate_file(spark, input_path: str, benchmarks_dir: str, out_dir: str, cfg) -> DecontamResult:
    """`decontaminate` command: OUT/corpus (input columns, text cleaned), OUT/contamination, OUT/counts.json."""
    df = read_corpus(spark, input_path)
    res = decontaminate_df(spark, df, benchmarks_dir, cfg)
    res.corpus.write.mode("overwrite").parquet(fsmod.to_spark_uri(fsmod.join(out_dir, "corpus")))
    write_table(res.contamination, fsmod.join(out_dir, "contamination"), CONTAMINATION)
    summary = dict(res.counts, benchmarks=res.benchmarks, skipped_files=res.skipped_files,
                   index=res.index_stats)
    fsmod.get_fs(out_dir, spark).write_text(fsmod.join(out_dir, "counts.json"),
                                            json.dumps(summary, indent=2, ensure_ascii=False))
    res.unpersist()
    return res


def seeded_sample(df, k: int, seed: int) -> list[tuple]:
    """``k`` (page_id, text) rows of ``df`` chosen by a seeded hash of page_id: the same rows on every
    run and partitioning (the canaries' pages)."""
    from pyspark.sql import functions as F

    rows = df.select("page_id", "text").orderBy(F.xxhash64(F.col("page_id"), F.lit(seed))).limit(k).collect()
    return [(r["page_id"], r["text"]) for r in rows]
