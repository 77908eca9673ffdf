"""`corpus-pipeline train --positives FILE --negatives FILE --out MODEL_DIR`.

Trains the fastText maths classifier (settings from ``[classifier]``) on the ``text``
column of two JSONL(.gz)/Parquet files; writes ``MODEL_DIR/model.bin`` and
``MODEL_DIR/metrics.json`` (held-out precision, recall, F1, precision-recall curve).
"""
from __future__ import annotations

import time

from .. import classify
from .. import fs as fsmod
from .. import scratch
from ..classifiers import label_of
from ..errors import UsageError
from ..profiles import for_config as profile_of
from ..seeds import read_texts


def add_arguments(p) -> None:
    p.add_argument("--positives", required=True, metavar="FILE", help="Maths texts: JSONL/JSONL.gz/Parquet with a text column.")
    p.add_argument("--negatives", required=True, metavar="FILE", help="Other texts: JSONL/JSONL.gz/Parquet with a text column.")
    p.add_argument("--out", required=True, metavar="MODEL_DIR", help="Folder (local or Hadoop URI) for model.bin and metrics.json.")
    p.add_argument("--random-seed", type=int, default=None, metavar="S",
                   help="Seed of the held-out split and training order (default: classifier.seed).")


def plan(args, cfg) -> list[str]:
    c = cfg.classifier
    return [f"read positives from {args.positives} and negatives from {args.negatives} (text column)",
            f"hold out {c.holdout_fraction:.0%} of each class; train fastText dim={c.dim} lr={c.lr} "
            f"wordNgrams={c.word_ngrams} minCount={c.min_count} epoch={c.epoch} bucket={c.bucket} "
            f"thread={c.threads} seed={c.seed}",
            f"write {args.out}/model.bin and {args.out}/metrics.json"]


def run(args, cfg) -> int:
    pos = [t for t in read_texts(args.positives) if t and t.strip()]
    neg = [t for t in read_texts(args.negatives) if t and t.strip()]
    if not pos:
        raise UsageError(f"{args.positives}: no non-empty texts")
    if not neg:
        raise UsageError(f"{args.negatives}: no non-empty texts")
    spark = None
    if not fsmod.is_local(args.out):
        from ..spark.session import get_spark

        spark = get_spark(cfg.spark)
    seed = cfg.classifier.seed if args.random_seed is None else args.random_seed
    t0 = time.perf_counter()

    with scratch.scope():
        m = classify.train_and_evaluate(pos, neg, cfg.classifier, seed, model_dir=args.out, spark=spark,
                                 label=label_of(profile_of(cfg).positive))

    def f(x):
        return "n/a" if x is None else f"{x:.3f}"

    print(f"train: {len(pos)} positives, {len(neg)} negatives -> {args.out}/model.bin "
          f"({m.get('model_bytes', 0) / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s; held-out "
          f"precision {f(m['precision'])}, recall {f(m['recall'])}, f1 {f(m['f1'])} "
          f"({m['holdout_positives']} + {m['holdout_negatives']} texts)")
    return 0
