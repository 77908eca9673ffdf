"""Spark operations of the iteration loop that belong to no single stage:
seed tables, overlap between iterations, label metrics, the final join.

Everything returns DataFrames or small dicts of counts; nothing proportional
to the corpus reaches the driver.
"""
from __future__ import annotations

import hashlib
from typing import Optional

from .. import fs as fsmod
from .. import schemas
from ..judging import JUDGED_SOURCE
from ..seeds import load_seed_texts
from .io import rows_to_df


def seed_corpus_df(spark, texts, iteration: int = 1):
    """The seed table of the first iteration.

    ``texts``: a seed source (a file, folder or glob of JSONL(.gz)/Parquet with a ``text``
    column, on any filesystem), read by Spark (:mod:`corpus_pipeline.spark.seeds`); ``None``
    for the starter seed shipped with the package (a few hundred documents, read in this
    process: it also works where executors cannot see the package's files); or an iterable
    of driver-side texts (small seeds in tests).  Ids are ``s:`` + 16 hex digits of the
    text's SHA-1 either way; duplicate and empty texts are left out."""
    if isinstance(texts, str):
        from .seeds import seed_source_df

        return seed_source_df(spark, texts, iteration)
    if texts is None:
        texts = load_seed_texts(None)
    rows, seen = [], set()
    for t in texts:
        if not t or not t.strip():
            continue
        sid = "s:" + hashlib.sha1(t.encode("utf-8")).hexdigest()[:16]
        if sid in seen:
            continue
        seen.add(sid)
        rows.append(schemas.row(schemas.SEED, {"seed_id": sid, "page_id": None, "source": "seed",
                                              "added_in": iteration, "text": t}))
    chars = sum(len(r[-1]) for r in rows)
    n = max(1, min(256, chars // 500_000 + 1))      # keep each task under ~1 MB of text
    return rows_to_df(spark, rows, schemas.SEED, num_slices=n)




def judged_seed_rows(spark, pages_df, page_ids, iteration: int):
    """SEED rows of iteration ``iteration + 1`` for the pages judged maths (``page_ids``, a driver-side
    list: one per judged page, a few thousand at most) that are pages of the run; ``source`` is
    :data:`JUDGED_SOURCE`, ``text`` null (joined later, as for pages under marks)."""
    from pyspark.sql import functions as F

    ids = rows_to_df(spark, [(p,) for p in sorted(set(page_ids))], "page_id STRING")
    return pages_df.select("page_id").join(F.broadcast(ids), "page_id").select(
        F.concat(F.lit("p:"), F.col("page_id")).alias("seed_id"),
        F.col("page_id"),
        F.lit(JUDGED_SOURCE).alias("source"),
        F.lit(int(iteration) + 1).cast("int").alias("added_in"),
        F.lit(None).cast("string").alias("text"),
    )


def judged_seed_page_ids(seed_df):
    """The page ids of a seed that joined it as judged pages (``page_id`` column)."""
    return seed_df.where(f"source = '{JUDGED_SOURCE}' AND page_id IS NOT NULL").select("page_id").distinct()


def grow_seed(seed_df, added_df):
    """seed(i+1) = seed(i) plus pages added by the path step that are not seeds already."""
    fresh = added_df.join(seed_df.select("seed_id"), on="seed_id", how="left_anti")
    if "page_id" in added_df.columns:
        known = seed_df.where("page_id IS NOT NULL").select("page_id")
        fresh = fresh.join(known, on="page_id", how="left_anti")
    cols = schemas.columns(schemas.SEED)
    return seed_df.select(*cols).unionByName(fresh.select(*cols)), fresh


def overlap_counts(collected_df, previous_df=None, earlier_dfs: Optional[list] = None) -> dict:
    """collected_pages, collected_tokens, overlap_with_previous, new_pages.

    overlap: the share of this iteration's collection the previous one had
    collected (None in iteration 1; 0 when the collection is empty);
    new_pages: collected now and in no earlier iteration.
    """
    from pyspark.sql import functions as F

    agg = collected_df.agg(F.count("*").alias("n"), F.coalesce(F.sum("n_tokens"), F.lit(0)).alias("t")).first()
    n, tokens = int(agg["n"]), int(agg["t"])
    out = {"collected_pages": n, "collected_tokens": tokens, "overlap_with_previous": None, "new_pages": n}
    if previous_df is not None:
        both = collected_df.select("page_id").join(previous_df.select("page_id"), "page_id").count()
        out["overlap_with_previous"] = (both / n) if n else 0.0
        out["collected_in_both"] = int(both)
    if earlier_dfs:
        seen = earlier_dfs[0].select("page_id")
        for d in earlier_dfs[1:]:
            seen = seen.unionByName(d.select("page_id"))
        out["new_pages"] = collected_df.select("page_id").join(seen.distinct(), "page_id", "left_anti").count()
    return out


def score_histogram(scores_df, bins: int = 20) -> list[int]:
    from pyspark.sql import functions as F

    b = F.least(F.floor(F.col("score") * bins), F.lit(bins - 1)).cast("int")
    counts = {r["b"]: int(r["n"]) for r in scores_df.select(b.alias("b")).groupBy("b").count()
              .withColumnRenamed("count", "n").collect()}
    return [counts.get(i, 0) for i in range(bins)]


def histogram_aggregates(bins: int = 20) -> dict:
    """:func:`score_histogram` as SQL aggregates (``h0`` .. ``h19``), for a write's observed metrics."""
    return {f"h{i}": f"count_if(cast(least(floor(score * {bins}), {bins - 1}) as int) = {i})" for i in range(bins)}


def histogram_of(values: dict, bins: int = 20) -> list[int]:
    return [int(values.get(f"h{i}", 0)) for i in range(bins)]


def labels_df(spark, labels: list[tuple[str, str]]):
    n = max(1, min(64, len(labels) // 50000 + 1))
    return rows_to_df(spark, labels, "url STRING, label STRING", num_slices=n)


def label_metrics(pages_df, collected_df, labels, positive: str, negative: str) -> dict:
    """True precision/recall of a collection against url labels (the contract's definitions:
    ``positive`` is the profile's label, ``math``; precision counts pages labelled ``positive`` or
    ``negative``).  The keys keep the contract's maths names whatever the profile."""
    from pyspark.sql import functions as F

    lab = pages_df.select("page_id", "url").join(labels, "url")
    math_total = lab.where(F.col("label") == positive).count()
    c = collected_df.select("page_id").join(lab, "page_id")
    row = c.agg(F.sum(F.when(F.col("label") == positive, 1).otherwise(0)).alias("m"),
                F.sum(F.when(F.col("label").isin(positive, negative), 1).otherwise(0)).alias("l")).first()
    m, labeled = int(row["m"] or 0), int(row["l"] or 0)
    return {
        "true_precision": (m / labeled) if labeled else None,
        "true_recall": (m / math_total) if math_total else None,
        "labeled_math_pages": int(math_total),
        "collected_labeled": labeled,
        "collected_math": m,
    }


def final_corpus_df(pages_df, last_collected_df, all_collected: list[tuple[int, object]]):
    """The last collection joined to pages, with the first iteration that collected each page."""
    from pyspark.sql import functions as F

    first = None
    for i, df in all_collected:
        d = df.select("page_id", F.lit(i).alias("first_iteration"))
        first = d if first is None else first.unionByName(d)
    first = first.groupBy("page_id").agg(F.min("first_iteration").alias("first_iteration"))
    cols = [c for c in schemas.columns(schemas.FINAL_CORPUS) if c not in ("score", "first_iteration")]
    page_cols = [F.col(c) if c in pages_df.columns else F.lit(None).alias(c) for c in cols]   # lang may be absent
    out = (last_collected_df.select("page_id", "score")
           .join(pages_df.select(*page_cols), "page_id")
           .join(first, "page_id", "left"))
    return out.select(*schemas.columns(schemas.FINAL_CORPUS))


FINAL_FORMATS = ("parquet", "jsonl.gz")


def write_final_corpus(df, path: str, fmt: str = "parquet") -> None:
    """The final corpus as Parquet (default) or gzipped JSON lines (``part-*.json.gz``, one page per line)."""
    from .io import write_table

    if fmt == "parquet":
        write_table(df, path, schemas.FINAL_CORPUS)
    elif fmt == "jsonl.gz":
        (df.select(*schemas.columns(schemas.FINAL_CORPUS)).write.mode("overwrite")
         .option("compression", "gzip").option("ignoreNullFields", "false").json(fsmod.to_spark_uri(path)))
    else:
        raise ValueError(f"final.format: expected one of {FINAL_FORMATS}, got {fmt!r}")


def read_final_corpus(spark, path: str, fmt: str = "parquet"):
    from .io import read_table, struct

    if fmt == "jsonl.gz":
        return spark.read.schema(struct(schemas.FINAL_CORPUS)).json(fsmod.to_spark_uri(path))
    return read_table(spark, path, schemas.FINAL_CORPUS)


def corpus_counts(df) -> dict:
    """The final corpus marker's counts: pages and tokens."""
    from pyspark.sql import functions as F

    r = df.agg(F.count("*").alias("n"), F.coalesce(F.sum("n_tokens"), F.lit(0)).alias("t")).first()
    return {"pages": int(r["n"]), "tokens": int(r["t"])}


def domain_counts(df) -> dict:
    """The domains marker's counts: domains, flagged domains, the 15 flagged with most collected pages."""
    from pyspark.sql import functions as F

    n = df.count()
    flagged = df.where(F.col("flagged"))
    top = [r.asDict() for r in flagged.orderBy(F.desc("collected"), F.asc("host")).limit(15).collect()]
    return {"domains": n, "flagged_domains": flagged.count(), "top_flagged": top}
