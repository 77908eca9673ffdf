"""Seed corpora read by Spark: a file, folder or glob of JSONL(.gz) or Parquet with a
``text`` column (and optional ``url``) on any filesystem Spark reads, so a Hugging Face
export such as OpenWebMath's ``data/train-*.parquet`` works as it is.

:func:`read_seed_corpus` checks the input in one aggregation (bad JSON lines, a missing or
non-string ``text`` column, nothing usable: :class:`~corpus_pipeline.errors.InputFileError`
naming the file) and returns a DataFrame ``(text, url)``; records without text are
counted, not an error.  Nothing but counts reaches the driver.
"""
from __future__ import annotations

from typing import Optional

from .. import fs as fsmod
from .. import schemas
from ..errors import InputFileError
from ..seeds import _data_file, is_glob, local_source_files, source_format
from ..sources.hadoop import arrow_files
from .classic import classic_session

_CORRUPT = "_corrupt_record"


def remote_listing(source: str, spark=None) -> list[tuple[str, int, int]]:
    """(path, size, modification time) of every data file of a Hadoop-URI source
    (a file, a folder listed recursively, or a glob), sorted by path."""
    session = classic_session(spark)
    if session is None:
        return _arrow_listing(source)
    from .classic import hadoop_path

    fs, path = hadoop_path(session, source)
    statuses = fs.globStatus(path) if is_glob(source) else (
        [fs.getFileStatus(path)] if fs.exists(path) else [])
    if not statuses:
        raise InputFileError(source, "no file matches this pattern" if is_glob(source) else "file not found")
    out = []
    for st in statuses:
        if st.isDirectory():
            it = fs.listFiles(st.getPath(), True)
            while it.hasNext():
                f = it.next()
                p = f.getPath().toString()
                if _data_file(p) and all(_data_file(seg) for seg in p[len(st.getPath().toString()):].split("/") if seg):
                    out.append((p, int(f.getLen()), int(f.getModificationTime())))
        else:
            out.append((st.getPath().toString(), int(st.getLen()), int(st.getModificationTime())))
    if not out:
        raise InputFileError(source, "no data files here")
    return sorted(out)


def _arrow_listing(source: str) -> list[tuple[str, int, int]]:
    """:func:`remote_listing` without a classic session (Spark Connect): pyarrow's filesystems
    (:class:`fs.ArrowFS`), globs as Hadoop reads them (as the WARC inputs are listed)."""
    base = source.rstrip("/")
    out = []
    for uri, info in arrow_files(source, ("",)):       # every file, in order, with its size and time
        rel = uri.rsplit("/", 1)[-1] if is_glob(source) else uri[len(base):]
        if not (_data_file(uri) and all(_data_file(seg) for seg in rel.split("/") if seg)):
            continue
        out.append((uri, int(info.size or 0), int((info.mtime_ns or 0) // 1_000_000)))
    if not out:
        raise InputFileError(source, "no file matches this pattern" if is_glob(source) else "file not found")
    return sorted(out)


def source_files(spark, source: str) -> list[str]:
    """Spark-readable URIs of the data files of a seed source (local or remote)."""
    if fsmod.is_local(source):
        return [fsmod.to_spark_uri(f) for f in local_source_files(source)]
    return [p for p, _, _ in remote_listing(source, spark)]


def _first_line(e: Exception) -> str:
    msg = str(e).strip().splitlines()
    return msg[0][:300] if msg else type(e).__name__


def read_seed_corpus(spark, source: str):
    """(DataFrame ``text STRING, url STRING``, counts) of a seed source; texts that are
    empty or whitespace are left out (counted as ``seed_without_text``)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    files = source_files(spark, source)
    fmt = source_format(source, files)
    try:
        if fmt == "parquet":
            df = spark.read.parquet(*files)
            if "text" not in df.columns:
                raise InputFileError(source, f"no 'text' column (columns: {', '.join(df.columns)})")
            if not isinstance(df.schema["text"].dataType, StringType):
                raise InputFileError(source, f"'text' column must be strings, is {df.schema['text'].dataType.simpleString()}")
            url = F.col("url") if "url" in df.columns and isinstance(df.schema["url"].dataType, StringType) \
                else F.lit(None).cast("string")
            df = df.select(F.col("text"), url.alias("url"), F.lit(None).cast("string").alias(_CORRUPT))
        else:
            df = (spark.read.schema(f"text STRING, url STRING, {_CORRUPT} STRING")
                  .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", _CORRUPT).json(files))
        df = df.withColumn("_file", F.input_file_name())
        ok = F.col("text").isNotNull() & (F.length(F.trim(F.col("text"))) > 0)
        r = df.agg(F.count(F.lit(1)).alias("rows"),
                   F.sum(F.when(ok & F.col(_CORRUPT).isNull(), 1).otherwise(0)).alias("usable"),
                   F.sum(F.when(F.col(_CORRUPT).isNotNull(), 1).otherwise(0)).alias("corrupt"),
                   F.min(F.when(F.col(_CORRUPT).isNotNull(), F.col("_file"))).alias("bad_file")).first()
    except InputFileError:
        raise
    except Exception as e:  # noqa: BLE001 - Spark raises many kinds for an unreadable file
        raise InputFileError(source, f"not a readable {'Parquet' if fmt == 'parquet' else 'JSONL'} seed corpus: "
                                     f"{_first_line(e)}") from None
    if r["corrupt"]:
        raise InputFileError(r["bad_file"] or source, f"{r['corrupt']} line(s) are not valid JSON records")
    if not r["usable"]:
        raise InputFileError(source, "no non-empty 'text' values: a seed corpus needs maths documents"
                             + (" (is there a 'text' field?)" if fmt == "jsonl" else ""))
    counts = {"seed_rows": int(r["rows"]), "seed_without_text": int(r["rows"]) - int(r["usable"]),
              "seed_files": len(files), "seed_format": fmt}
    return df.where(ok).select("text", "url"), counts


def seed_rows_df(texts_df, iteration: int = 1):
    """Seed-table rows (``schemas.SEED``) from a ``text`` DataFrame: id = ``s:`` + the
    first 16 hex digits of the text's SHA-1 (the ids the driver-side path gives), one
    row per distinct text."""
    from pyspark.sql import functions as F


    out = (texts_df.where(F.col("text").isNotNull() & (F.length(F.trim(F.col("text"))) > 0))
           .select(F.concat(F.lit("s:"), F.substring(F.sha1(F.col("text")), 1, 16)).alias("seed_id"),
                   F.lit(None).cast("string").alias("page_id"), F.lit("seed").alias("source"),
                   F.lit(int(iteration)).alias("added_in"), F.col("text"))
           .dropDuplicates(["seed_id"]))
    return out.select(*schemas.columns(schemas.SEED))


def seed_source_df(spark, source: Optional[str], iteration: int = 1):
    """The first seed table from a seed source read by Spark (see :func:`read_seed_corpus`)."""
    df, _ = read_seed_corpus(spark, source)
    return seed_rows_df(df, iteration)
