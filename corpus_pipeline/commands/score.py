"""`corpus-pipeline score --model MODEL_DIR --input FILE --out FILE`.

Adds a ``score`` column (P(maths), 0..1) to a JSONL(.gz) or Parquet file with a ``text``
column, keeping every input column and the row order.  The output format follows the
output file's extension (``.jsonl``/``.jsonl.gz``: one JSONL file; ``.parquet``: one
Parquet file).  An existing ``score`` column is replaced in place.  JSONL to JSONL streams
in batches of ``classifier.score_batch_size`` rows; other pairs hold the file in memory
(for corpus-sized inputs use the run's Spark scoring).
"""
from __future__ import annotations

import gzip
import json
import os
import time

from .. import classify
from .. import fs as fsmod
from .. import scratch
from ..classifiers import for_config
from ..errors import InputFileError, UsageError
from ..seeds import file_format, iter_jsonl, read_parquet_table, read_records


def add_arguments(p) -> None:
    p.add_argument("--model", required=True, metavar="MODEL_DIR", help="Folder with model.bin (or the model.bin file).")
    p.add_argument("--input", required=True, metavar="FILE", help="JSONL/JSONL.gz/Parquet file with a text column.")
    p.add_argument("--out", required=True, metavar="FILE", help="Output file: .jsonl, .jsonl.gz or .parquet.")


def _out_format(path: str) -> str:
    low = path.lower()
    if low.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".json")):
        return "jsonl"
    if low.endswith((".parquet", ".pq")):
        return "parquet"
    raise UsageError(f"--out {path}: the extension must be .jsonl, .jsonl.gz or .parquet")


def plan(args, cfg) -> list[str]:
    return [f"load {args.model}/model.bin",
            f"score the text column of {args.input} in batches of {cfg.classifier.score_batch_size}",
            f"write {args.out} ({_out_format(args.out)}) with every input column plus score"]


def _model_path(model: str, cfg) -> str:
    if fsmod.is_local(model):
        p = fsmod.local_path(model)
        if os.path.isfile(p):
            return p
        f = os.path.join(p, classify.MODEL_FILE)
        if not os.path.isfile(f):
            raise InputFileError(model, f"no {classify.MODEL_FILE} here (train one with `corpus-pipeline train`)")
        return f
    from ..spark.session import get_spark

    return classify.model_local_path(model, get_spark(cfg.spark))


def _open_out(path: str):
    return gzip.open(path, "wt", encoding="utf-8") if path.lower().endswith(".gz") else \
        open(path, "w", encoding="utf-8")


def _json_line(rec: dict) -> str:
    return json.dumps(rec, ensure_ascii=False, default=str)


def score_file(model_path: str, inp: str, out: str, cfg) -> int:
    """Score ``inp`` into ``out`` (written beside it, then renamed); returns the row count."""

    c = cfg.classifier
    clf = for_config(c)                  # classifier.kind: any registered classifier
    model = clf.load(model_path)
    fin, fout = file_format(inp), _out_format(out)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp" + (".gz" if out.lower().endswith(".gz") else "")
    n = 0
    try:
        if fin == "jsonl" and fout == "jsonl":
            with _open_out(tmp) as f:
                batch = []

                def flush():
                    for rec, s in zip(batch, clf.predict(model, [r["text"] for r in batch], c)):
                        rec["score"] = s
                        f.write(_json_line(rec) + "\n")
                    batch.clear()

                for line_no, rec in iter_jsonl(inp):
                    if "text" not in rec:
                        raise InputFileError(inp, "record has no 'text' field", line_no)
                    if rec["text"] is not None and not isinstance(rec["text"], str):
                        raise InputFileError(inp, "'text' must be a string", line_no)
                    batch.append(rec)
                    n += 1
                    if len(batch) >= c.score_batch_size:
                        flush()
                flush()
        elif fin == "parquet" and fout == "parquet":
            n = _parquet_to_parquet(model, inp, tmp, c, clf)
        else:
            recs = read_records(inp)
            scores = []
            for s in range(0, len(recs), c.score_batch_size):
                scores += clf.predict(model, [r["text"] for r in recs[s:s + c.score_batch_size]], c)
            for r, s in zip(recs, scores):
                r["score"] = s
            n = len(recs)
            if fout == "jsonl":
                with _open_out(tmp) as f:
                    for r in recs:
                        f.write(_json_line(r) + "\n")
            else:
                import pyarrow as pa
                import pyarrow.parquet as pq

                pq.write_table(pa.Table.from_pylist(recs) if recs else
                               pa.table({"text": pa.array([], pa.string()), "score": pa.array([], pa.float64())}), tmp)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return n


def _parquet_to_parquet(model, inp: str, tmp: str, c, clf) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = read_parquet_table(inp)      # also reads a folder of Parquet files (a Spark output)
    if "text" not in table.schema.names:
        raise InputFileError(inp, f"no 'text' column (columns: {', '.join(table.schema.names)})")
    if not (pa.types.is_string(table.schema.field("text").type) or pa.types.is_large_string(table.schema.field("text").type)):
        raise InputFileError(inp, f"'text' column must be strings, is {table.schema.field('text').type}")
    scores = []
    texts = table.column("text")
    for s in range(0, table.num_rows, c.score_batch_size):
        scores += clf.predict(model, texts.slice(s, c.score_batch_size).to_pylist(), c)
    col = pa.array(scores, pa.float64())
    if "score" in table.schema.names:
        table = table.set_column(table.schema.get_field_index("score"), "score", col)
    else:
        table = table.append_column("score", col)
    pq.write_table(table, tmp)
    return table.num_rows


def run(args, cfg) -> int:
    _out_format(args.out)
    if os.path.abspath(args.out) == os.path.abspath(args.input):
        raise UsageError("--out must differ from --input")

    t0 = time.perf_counter()
    with scratch.scope():                  # a remote model's local copy is removed afterwards
        model_path = _model_path(args.model, cfg)
        n = score_file(model_path, args.input, args.out, cfg)
    dt = time.perf_counter() - t0
    print(f"score: {n} rows scored in {dt:.1f} s ({n / dt if dt > 0 else 0:.0f} rows/s) -> {args.out}")
    return 0
