"""Per-row Python steps over DataFrames with ``mapInArrow`` (the DataFrame API only: classic
sessions and Spark Connect alike).

* :func:`map_rows`: ``fn(rows) -> iterable of tuples`` applied to each partition of a
  DataFrame, as ``rdd.mapPartitions`` was: ``rows`` are the partition's rows as tuples of
  Python values (in the DataFrame's column order, nulls as ``None``, the partition's order
  kept), and the tuples ``fn`` yields (in the output schema's column order) go back as Arrow
  record batches of at most ``batch_rows`` rows.
* :func:`local_rows`: a DataFrame of driver-side rows cut into ``n`` partitions exactly as
  ``SparkContext.parallelize(rows, n)`` cuts them (contiguous slices, order kept), made from
  ``spark.range(n, numPartitions=n)``: one partition per slice.
* :func:`arrow_schema`: the Arrow schema Spark exchanges with Python for a ``StructType``.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence

BATCH_ROWS = 1024          # rows per output record batch (Spark's input batches: maxRecordsPerBatch)


def struct(ddl: str):
    """The ``StructType`` of a DDL string (every field nullable), on pyspark 3.5 and 4.x.

    ``StructType.fromDDL`` is 4.x only, so the flat DDLs of ``schemas.py`` (scalar
    types) are built here without a JVM; anything else falls back to Spark's own parser.
    """
    from pyspark.sql import types as T

    scalars = {"STRING": T.StringType, "BIGINT": T.LongType, "INT": T.IntegerType, "INTEGER": T.IntegerType,
               "BOOLEAN": T.BooleanType, "DOUBLE": T.DoubleType, "FLOAT": T.FloatType, "SMALLINT": T.ShortType,
               "TINYINT": T.ByteType, "BINARY": T.BinaryType, "DATE": T.DateType, "TIMESTAMP": T.TimestampType}
    fields = []
    for part in ddl.split(","):
        name, _, typ = part.strip().partition(" ")
        t = scalars.get(typ.strip().upper())
        if not name or t is None:
            if hasattr(T.StructType, "fromDDL"):
                return T.StructType.fromDDL(ddl)
            return T._parse_datatype_string(ddl)     # pyspark 3.5: needs the active SparkContext
        fields.append(T.StructField(name, t(), True))
    return T.StructType(fields)


def _struct(schema):
    return struct(schema) if isinstance(schema, str) else schema


def arrow_type(dt):
    """The Arrow type of a Spark ``DataType`` (pyspark 3.5 and 4.x)."""
    from pyspark.sql.pandas.types import to_arrow_type

    try:
        return to_arrow_type(dt, timezone="UTC")
    except TypeError:                       # pyspark 3.5: no keyword arguments
        return to_arrow_type(dt)


def arrow_schema(schema):
    """The Arrow schema of a ``StructType`` or DDL string (strings as ``string``, not ``large_string``:
    Spark's default, ``spark.sql.execution.arrow.useLargeVarTypes`` off)."""
    import pyarrow as pa

    schema = _struct(schema)
    return pa.schema([pa.field(f.name, arrow_type(f.dataType), nullable=True) for f in schema.fields])


def batch_rows(batch) -> Iterable[tuple]:
    """A record batch's rows as tuples of Python values, in order."""
    if batch.num_columns == 0:
        return iter(())
    return zip(*[c.to_pylist() for c in batch.columns])


def to_batch(rows: Sequence[tuple], schema):
    """A record batch of ``schema`` (an Arrow schema) from tuples in its column order."""
    import pyarrow as pa

    n = len(schema)
    for r in rows:
        if len(r) != n:
            raise ValueError(f"a row has {len(r)} values, the output schema {n} columns: {r!r:.200}")
    cols = list(zip(*rows)) if rows else [()] * n
    return pa.RecordBatch.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(cols, schema)],
                                      schema=schema)


def rows_to_batches(rows: Iterable[tuple], schema, batch_rows_: int = BATCH_ROWS):
    """Record batches of ``schema`` (Arrow) of at most ``batch_rows_`` rows from an iterable of tuples."""
    buf: list = []
    for r in rows:
        buf.append(r)
        if len(buf) >= batch_rows_:
            yield to_batch(buf, schema)
            buf = []
    if buf:
        yield to_batch(buf, schema)


def arrow_fn(fn: Callable[[Iterable[tuple]], Iterable[tuple]], schema, batch_rows_: int = BATCH_ROWS):
    """The ``mapInArrow`` function running the row generator ``fn`` (see :func:`map_rows`)."""
    schema = _struct(schema)

    def run(batches):
        out_schema = arrow_schema(schema)

        def rows():
            for b in batches:
                yield from batch_rows(b)

        yield from rows_to_batches(fn(rows()), out_schema, batch_rows_)

    return run


def map_in_arrow(df, fn, schema):
    """``df.mapInArrow(fn, schema)``: pyspark builds it through its pandas UDF factory, which needs
    pandas installed (a dependency of the project for that reason; the Python workers exchange Arrow
    batches only)."""
    return df.mapInArrow(fn, schema)


def map_rows(df, fn: Callable[[Iterable[tuple]], Iterable[tuple]], schema, batch_rows_: int = BATCH_ROWS):
    """``fn`` over every partition of ``df`` (rows as tuples in ``df``'s column order) -> a DataFrame
    of ``schema`` (a DDL string or ``StructType``), partitioning and order within partitions kept."""
    schema = _struct(schema)
    return map_in_arrow(df, arrow_fn(fn, schema, batch_rows_), schema)


def slices(n_rows: int, n: int) -> list[tuple[int, int]]:
    """``SparkContext.parallelize``'s cut of ``n_rows`` rows into ``n`` slices: (start, end) each."""
    return [(i * n_rows // n, (i + 1) * n_rows // n) for i in range(n)]


def local_rows(spark, rows: Iterable, schema, n: Optional[int] = None, fn: Optional[Callable] = None):
    """A DataFrame of ``schema`` from driver-side ``rows`` (small: they travel with the task), in
    ``n`` partitions (default 1) cut as ``parallelize`` cuts them, one task per partition.

    With ``fn``, a partition's output is ``fn(its rows)`` instead of the rows themselves (ingest: a
    partition holds one group of files and yields the pages extracted from them)."""
    data = list(rows)
    n = max(1, int(n or 1))
    cuts = slices(len(data), n)
    fn = fn or (lambda it: it)

    def run(ids):
        for (i,) in ids:
            a, b = cuts[i]
            yield from fn(iter(data[a:b]))

    return map_rows(spark.range(0, n, 1, n), run, schema)
