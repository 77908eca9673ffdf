"""The fastText maths classifier (pure: no Spark).

* :func:`prepare`: the one text preparation shared by training and scoring
  (NFKC, lower case, maths delimiters unified, TeX commands kept as tokens,
  CJK split into characters, operators as tokens, numbers kept whole,
  truncation to ``max_words``).
* :func:`train_model`: fastText with the paper's settings from
  :class:`~corpus_pipeline.config.ClassifierConfig`, deterministic (one thread,
  fixed seed, training lines in an order fixed by a hash, not by input order).
* :func:`train_and_evaluate`: held-out split, training, precision / recall / F1
  / precision-recall curve, ``model.bin`` + ``metrics.json`` written to a model
  folder (local path or Hadoop URI, through :mod:`corpus_pipeline.fs`).
* :func:`load_model` (cached once per process) and :func:`predict_proba`
  (batch P(math)).

Labels are ``__label__math`` and ``__label__other``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import unicodedata
from typing import Iterable, Optional, Sequence

from .classifiers import LABEL_MATH, LABEL_OTHER, MODEL_FILE  # noqa: F401  (used as C.LABEL_MATH ...)
from .config import ClassifierConfig
from .sparkhash import unit_interval
from .text import CJK_RANGES

METRICS_FILE = "metrics.json"
EVAL_THRESHOLD = 0.5
NAN_ATTEMPTS = 8          # training attempts when fastText reports a spurious NaN (see train_model)

# ---------------------------------------------------------------- text preparation
# Maths symbols: every character of Unicode category Sm, plus ASCII operators.  "|" is left
# out: on extracted web pages it is mostly a table-cell separator, not an absolute value.
_SM = "".join(chr(c) for c in range(0x2000, 0x2c00) if unicodedata.category(chr(c)) == "Sm")
_SM += "".join(ch for ch in "¬±×÷϶∂∇∞" if ch not in _SM)
_OPS = re.escape("=+-*/^_<>()[]{}$%!&~'") + re.escape(_SM)
# The branches start with disjoint characters, so their order only affects speed (words first).
_TOKEN = re.compile(
    f"[^\\W\\d_{CJK_RANGES}]+"      # words (any script)
    f"|[{_OPS}]"                     # operators and maths symbols, one each
    r"|\d+(?:\.\d+)?"                # numbers (decimals kept whole)
    f"|[{CJK_RANGES}]"               # one token per CJK character
    r"|\\[a-z]+"                      # TeX control word: \frac, \sum, \mathbb
    r"|\\[^a-z\s]"                   # TeX control symbol: \{ \, \\
)
_CHARS_PER_TOKEN_CAP = 12             # raw text is cut to max_words * this before tokenizing
# TeX maths delimiters as sites serve them: \( \) \[ \] and $$ (not the line break \\[2pt]).
# They all become one "$" token, so that a page whose MathJax uses \( ... \) reads like the seed's
# $ ... $ (the development crawl's OpenStax and LMFDB pages do): on the labeled real pages this
# raised average precision 0.665 -> 0.721 at chunk 64 (README, classifier quality).
_DELIMITER = re.compile(r"(?<!\\)\\[()\[\]]|\$\$")


def tokens(text: str, max_words: int, unify_delimiters: bool = True) -> list[str]:
    """The first ``max_words`` tokens of ``text`` (see :func:`prepare`);
    ``unify_delimiters=False`` keeps ``\\(`` and ``$$`` apart (the preparation before it)."""
    if not text:
        return []
    t = text[: max_words * _CHARS_PER_TOKEN_CAP]
    if not unicodedata.is_normalized("NFKC", t):
        t = unicodedata.normalize("NFKC", t)
    if unify_delimiters:
        t = _DELIMITER.sub(" $ ", t)
    return _TOKEN.findall(t.lower())[:max_words]


def prepare(text: Optional[str], max_words: int = 2000) -> str:
    """One line of space-separated tokens that fastText reads as words.

    NFKC-normalized and lower-cased; the maths delimiters ``\\( \\) \\[ \\] $$``
    become ``$``; ``\\frac`` and other TeX commands are one token each; each CJK character is a token (fastText's word n-grams then see
    character bigrams and trigrams); numbers are tokens (decimals kept whole);
    operators and maths symbols are tokens of their
    own; other punctuation is dropped.  Truncated to the first ``max_words``
    tokens (and the text to ``max_words * 12`` characters before that), so
    training and scoring see exactly the same words.
    """
    return " ".join(tokens(text or "", max_words))


# ---------------------------------------------------------------- deterministic ordering
def _hash01(*parts) -> float:
    h = hashlib.sha1("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") / 2.0 ** 64


def split_holdout(texts: Sequence[str], fraction: float, random_seed: int, label: str
                  ) -> tuple[list[str], list[str]]:
    """(train, held-out): a text is held out when Spark's ``xxhash64(seed, "holdout", label, text)``,
    read as a number in [0, 1), falls under ``fraction``; ``label`` is the class's fastText label.
    The loop's Spark step (:func:`corpus_pipeline.spark.classify.write_training_files`) uses the same
    expression, so ``train`` and ``run`` hold out the same documents.  Independent of input order;
    duplicates stay together."""
    train, hold = [], []
    for t in texts:
        (hold if fraction > 0 and unit_interval(int(random_seed), "holdout", label, t) < fraction
         else train).append(t)
    return train, hold


def document_lines(text: Optional[str], cfg: ClassifierConfig) -> list[str]:
    """The training lines of one document, without label: its first ``cfg.max_words``
    tokens cut into pieces of ``cfg.train_chunk_words`` (0: one line), a short tail of a
    long document left out.  Spark's training-set writer and :func:`training_lines`
    both use this, so the in-memory and the distributed training files agree."""
    chunk = getattr(cfg, "train_chunk_words", 0) or cfg.max_words
    toks = tokens(text or "", cfg.max_words)
    out = []
    for s in range(0, len(toks), chunk):
        piece = toks[s:s + chunk]
        if s == 0 or len(piece) >= max(1, chunk // 4):   # drop a short tail of a long document
            out.append(" ".join(piece))
    return out


def training_lines(pos: Iterable[str], neg: Iterable[str], cfg: ClassifierConfig, random_seed: int,
                   label: str = LABEL_MATH) -> list[str]:
    """fastText training lines, prepared, empty ones left out, in an order fixed by a
    hash of (seed, line): the same multiset of texts always gives the same file.
    ``label``: the positives' label (:func:`~corpus_pipeline.classifiers.label_of` the profile's)."""
    per_class = []
    for lab, texts in ((label, pos), (LABEL_OTHER, neg)):
        per_class.append([lab + " " + piece for t in texts for piece in document_lines(t, cfg)])
    if getattr(cfg, "balance_classes", False) and all(per_class):
        per_class = _balanced(per_class, random_seed)
    else:
        per_class = [[(ln, 0) for ln in c] for c in per_class]
    entries = per_class[0] + per_class[1]
    entries.sort(key=lambda e: (hashlib.sha1(f"{random_seed}\x1f{e[1]}\x1f{e[0]}".encode("utf-8")).digest(), e))
    return [ln for ln, _ in entries]


def _balanced(per_class: list[list[str]], random_seed: int) -> list[list[tuple[str, int]]]:
    """Repeat the smaller class's lines (whole copies, then a hash-chosen rest) until both
    classes have as many lines, so the classifier's prior stays at one half.  Lines are
    returned as (line, copy number) so that copies land apart in the training order."""
    big = max(len(c) for c in per_class)
    out = []
    for lines in per_class:
        reps, rest = divmod(big, len(lines))
        ranked = sorted(lines, key=lambda s: (_hash01(random_seed, "balance", s), s))
        out.append([(ln, k) for k in range(reps) for ln in lines] + [(ln, reps) for ln in ranked[:rest]])
    return out


# ---------------------------------------------------------------- training
# fastText is trained in a fresh Python process.  fasttext-numpy2 0.10.4 reads memory it never
# initialised while training: in a process whose heap has been used (a test session, a Spark
# driver) identical runs raise "Encountered NaN" in some attempts or in all of them (seen at
# dim 16, never at dim 256), while in a fresh process the same file trains fine, and all
# successful runs give identical models.  A child process per training (+ ~0.5 s) makes this
# reliable; NaN failures are still retried, and M_MMAP_THRESHOLD is lowered in the child so
# large blocks come as zeroed pages.
_FIT_CHILD = r"""
import ctypes, json, sys
try:
    ctypes.CDLL("libc.so.6").mallopt(-3, 64 * 1024)
except (OSError, AttributeError):
    pass
import fasttext
a = json.loads(sys.argv[1])
out = a.pop("_out")
m = fasttext.train_supervised(**a)
m.save_model(out)
print(json.dumps({"vocabulary": len(m.words)}))
"""


def _fit(train_path: str, cfg: ClassifierConfig, out_path: str) -> dict:
    """Train fastText on the file at ``train_path`` (read by fastText itself, streamed)
    in a child process; the model is written to ``out_path``.  Returns {"vocabulary": n}."""
    import subprocess
    import sys

    args = dict(input=train_path, dim=cfg.dim, lr=cfg.lr, wordNgrams=cfg.word_ngrams,
                minCount=cfg.min_count, epoch=cfg.epoch, bucket=cfg.bucket, thread=cfg.threads,
                seed=cfg.seed, loss="softmax", minn=0, maxn=0, verbose=0, _out=out_path)
    for attempt in range(1, NAN_ATTEMPTS + 1):
        r = subprocess.run([sys.executable, "-c", _FIT_CHILD, json.dumps(args)],
                           capture_output=True, text=True)
        if r.returncode == 0 and os.path.exists(out_path):
            try:
                return json.loads(r.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                return {}
        if "Encountered NaN" not in r.stderr or attempt == NAN_ATTEMPTS:
            raise RuntimeError(f"fastText training failed (exit {r.returncode}): {r.stderr.strip()[-2000:]}")


def train_model(pos_texts: Sequence[str], neg_texts: Sequence[str], cfg: ClassifierConfig,
                random_seed: int = 0, save_to: Optional[str] = None, label: str = LABEL_MATH):
    """A fastText supervised model trained on the given texts (loaded in this process);
    with ``save_to`` (a local path) the model file is also kept there.

    Deterministic for ``cfg.threads == 1``: fixed fastText seed and a training file whose
    order does not depend on the order of the inputs.  Training runs in a child process
    (see ``_FIT_CHILD``).
    """
    import fasttext

    lines = training_lines(pos_texts, neg_texts, cfg, random_seed, label)
    labels = {ln.split(" ", 1)[0] for ln in lines}
    if labels != {label, LABEL_OTHER}:
        raise ValueError("training needs at least one non-empty positive and one non-empty negative text")
    work = tempfile.mkdtemp(prefix="ft_train_")
    try:
        path = os.path.join(work, "train.txt")
        with open(path, "w", encoding="utf-8") as f:
            for ln in lines:
                f.write(ln + "\n")
        out = save_to or os.path.join(work, MODEL_FILE)
        _fit(path, cfg, out)
        return fasttext.load_model(out)
    finally:
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)


# ---------------------------------------------------------------- prediction
def predict_proba(model, texts: Sequence[Optional[str]], cfg: ClassifierConfig,
                  prepared: bool = False) -> list[float]:
    """P(positive) in [0, 1] for each text, in order (the positive label is any but
    ``__label__other``).  A text with no tokens scores 0."""
    lines = list(texts) if prepared else [prepare(t, cfg.max_words) for t in texts]
    out = [0.0] * len(lines)
    idx = [i for i, ln in enumerate(lines) if ln]
    if not idx:
        return out
    labels, probs = model.predict([lines[i] for i in idx], k=2)
    for i, labs, ps in zip(idx, labels, probs):
        p = None
        for lab, pr in zip(labs, ps):
            if lab != LABEL_OTHER:
                p = float(pr)
                break
            p = 1.0 - float(pr)
        out[i] = min(1.0, max(0.0, p if p is not None else 0.0))
    return out


_MODEL_CACHE: dict = {}


def load_model(path: str):
    """The fastText model at local ``path``, loaded once per process (the most
    recent model only: older ones are released when another path is loaded)."""
    key = os.path.abspath(path)
    m = _MODEL_CACHE.get(key)
    if m is None:
        import fasttext

        _MODEL_CACHE.clear()
        m = fasttext.load_model(key)
        _MODEL_CACHE[key] = m
    return m


# ---------------------------------------------------------------- evaluation
def pr_metrics(scores: Sequence[float], labels: Sequence[bool], threshold: float = EVAL_THRESHOLD,
               curve_points: int = 101) -> dict:
    """Precision, recall, F1 at ``threshold``, average precision and a precision-recall
    curve (thresholds 0, 1/(n-1), ..., 1) for binary labels (True = maths)."""
    n_pos = sum(1 for y in labels if y)
    n_neg = len(labels) - n_pos

    def at(th: float) -> tuple[int, int]:
        tp = sum(1 for s, y in zip(scores, labels) if s >= th and y)
        fp = sum(1 for s, y in zip(scores, labels) if s >= th and not y)
        return tp, fp

    def ratio(a: int, b: int) -> Optional[float]:
        return a / b if b else None

    tp, fp = at(threshold)
    p, r = ratio(tp, tp + fp), ratio(tp, n_pos)
    f1 = (2 * p * r / (p + r)) if p is not None and r is not None and (p + r) > 0 else (
        0.0 if p is not None and r is not None else None)
    curve = []
    for k in range(curve_points):
        th = k / (curve_points - 1)
        a, b = at(th)
        curve.append({"threshold": round(th, 6), "precision": ratio(a, a + b), "recall": ratio(a, n_pos)})
    # average precision: mean precision at the rank of each positive (ties by score order, stable)
    ap = None
    if n_pos:
        ranked = sorted(zip(scores, labels), key=lambda x: -x[0])
        hits, total = 0, 0.0
        for i, (_, y) in enumerate(ranked, 1):
            if y:
                hits += 1
                total += hits / i
        ap = total / n_pos
    return {"threshold": threshold, "precision": p, "recall": r, "f1": f1,
            "tp": tp, "fp": fp, "fn": n_pos - tp, "tn": n_neg - fp,
            "n_positive": n_pos, "n_negative": n_neg, "average_precision": ap, "pr_curve": curve}


def _settings(cfg: ClassifierConfig) -> dict:
    return {k: getattr(cfg, k) for k in ("kind", "dim", "lr", "word_ngrams", "min_count", "epoch",
                                         "bucket", "threads", "seed", "max_words",
                                         "holdout_fraction", "train_chunk_words",
                                         "balance_classes", "max_positives", "max_negatives")
            if hasattr(cfg, k)}


def train_from_files(train_file: str, heldout_file: Optional[str], cfg: ClassifierConfig,
                     random_seed: int, model_dir: Optional[str] = None, spark=None,
                     counts: Optional[dict] = None) -> dict:
    """Train the ``cfg.kind`` classifier on a local training file (lines
    ``<label> <prepared text>`` in reading order), measure it on a local held-out
    file of whole prepared documents, and write ``model.bin`` + ``metrics.json``
    into ``model_dir`` (local path or Hadoop URI) when given.

    Both files are streamed: the model library reads the training file itself and
    the held-out file is scored in batches.  ``counts`` (train/held-out documents per
    class) go into the metrics as they are.
    """
    from . import fs as fsmod
    from . import scratch
    from .classifiers import for_config

    clf = for_config(cfg)
    work = scratch.mkdtemp("cp_train_")
    try:
        local_model = os.path.join(work, clf.model_file)
        t0 = time.perf_counter()
        facts = dict(clf.train(train_file, local_model, cfg) or {})
        train_s = time.perf_counter() - t0
        c = dict(counts or {})
        ev = None
        if heldout_file and c.get("holdout_positives") and c.get("holdout_negatives"):
            scores, labels, more = clf.evaluate(local_model, heldout_file, cfg)
            facts.update(more)
            ev = pr_metrics(scores, labels)
        if ev is None:
            ev = {"threshold": EVAL_THRESHOLD, "precision": None, "recall": None, "f1": None,
                  "average_precision": None, "pr_curve": [],
                  "note": "held-out split has no positives or no negatives: metrics unavailable"}
        metrics = {**ev, **c, "train_seconds": round(train_s, 3), "random_seed": random_seed,
                   **facts, "classifier": clf.kind, "settings": _settings(cfg)}
        metrics["model_bytes"] = os.path.getsize(local_model)
        if model_dir is not None:
            fs = fsmod.get_fs(model_dir, spark)
            fs.mkdirs(model_dir)
            target = fsmod.join(model_dir, clf.model_file)
            if fsmod.is_local(model_dir):
                import shutil

                # copied in place into the stage's attempt folder (no rename: the commit marker makes it final)
                shutil.copyfile(local_model, fsmod.local_path(target))
            else:
                fs.put_local(local_model, target)
            write_metrics(metrics, model_dir, spark)
        return metrics
    finally:
        scratch.remove(work)


def train_and_evaluate(pos_texts: Sequence[str], neg_texts: Sequence[str], cfg: ClassifierConfig,
                       random_seed: int, model_dir: Optional[str] = None, spark=None,
                       label: str = LABEL_MATH) -> dict:
    """Split off ``cfg.holdout_fraction`` of each class, train on the rest, measure on the
    held-out texts; write ``model.bin`` and ``metrics.json`` into ``model_dir`` when given.

    The in-memory form (for texts a caller already holds); the loop writes the same two
    files from Spark (:func:`corpus_pipeline.spark.classify.train_iteration`).  The saved
    model is the one the metrics describe (trained without the held-out texts).
    """
    from . import scratch

    pos = [t for t in pos_texts if t and t.strip()]
    neg = [t for t in neg_texts if t and t.strip()]
    pos_tr, pos_ho = split_holdout(pos, cfg.holdout_fraction, random_seed, label)
    neg_tr, neg_ho = split_holdout(neg, cfg.holdout_fraction, random_seed, LABEL_OTHER)
    lines = training_lines(pos_tr, neg_tr, cfg, random_seed, label)
    if {ln.split(" ", 1)[0] for ln in lines} != {label, LABEL_OTHER}:
        raise ValueError("training needs at least one non-empty positive and one non-empty negative text")
    work = scratch.mkdtemp("cp_train_")
    try:
        train_file = os.path.join(work, "train.txt")
        heldout_file = os.path.join(work, "heldout.txt")
        with open(train_file, "w", encoding="utf-8") as f:
            for ln in lines:
                f.write(ln + "\n")
        with open(heldout_file, "w", encoding="utf-8") as f:
            for lab, texts in ((label, pos_ho), (LABEL_OTHER, neg_ho)):
                for t in texts:
                    f.write(lab + " " + prepare(t, cfg.max_words) + "\n")
        counts = {"train_positives": len(pos_tr), "train_negatives": len(neg_tr),
                  "holdout_positives": len(pos_ho), "holdout_negatives": len(neg_ho)}
        return train_from_files(train_file, heldout_file, cfg, random_seed, model_dir, spark, counts)
    finally:
        scratch.remove(work)


def write_metrics(metrics: dict, model_dir: str, spark=None) -> None:
    from . import fs as fsmod

    fsmod.get_fs(model_dir, spark).write_text(
        fsmod.join(model_dir, METRICS_FILE), json.dumps(metrics, indent=1, ensure_ascii=False) + "\n")


def model_local_path(model_dir: str, spark=None) -> str:
    """A path on this machine of ``model_dir/model.bin`` (copied into a scratch folder,
    removed at the end of the command, when remote)."""
    from . import fs as fsmod
    from . import scratch

    uri = fsmod.join(model_dir, MODEL_FILE)
    if fsmod.is_local(uri):
        return fsmod.local_path(uri)
    d = scratch.mkdtemp("cp_model_")
    return fsmod.get_fs(uri, spark).get_local(uri, os.path.join(d, MODEL_FILE))


# ---------------------------------------------------------------- negatives per language
OTHER_LANGUAGES = "*"     # the quota of the crawl's pages in languages the positives do not hold


def negative_quotas(pos_by_lang: dict, avail_by_lang: dict, n_neg: int) -> dict:
    """How many negatives to draw per language (``OTHER_LANGUAGES`` for the languages the positives
    do not hold): those languages keep their share of the crawl's candidate pages, the rest is split
    over the positives' languages in the positives' proportions (largest remainders, ties by name).
    A quota may exceed what the crawl has of that language (the background set fills the gap)."""
    total = sum(avail_by_lang.values())
    n_pos = sum(pos_by_lang.values())
    if n_neg <= 0 or n_pos <= 0:
        return {}
    other = sum(v for k, v in avail_by_lang.items() if k not in pos_by_lang)
    q_other = min(other, int(round(n_neg * other / total))) if total else 0
    rest = n_neg - q_other
    raw = {lang: rest * n / n_pos for lang, n in pos_by_lang.items()}
    out = {lang: int(v) for lang, v in raw.items()}
    left = rest - sum(out.values())
    for lang in sorted(raw, key=lambda k: (-(raw[k] - out[k]), k))[:left]:
        out[lang] += 1
    if q_other:
        out[OTHER_LANGUAGES] = q_other
    return out


def negative_plan(pos_by_lang: dict, avail_by_lang: dict, background_by_lang: dict, n_neg: int) -> dict:
    """Where each language's negatives come from: ``{lang: (crawl, background, repeated)}``.

    The quotas are :func:`negative_quotas`'s.  Each is filled from the crawl's pages of that
    language first, then from the shipped background texts (``background_by_lang``: how many
    there are), then by repeating those distinct texts to the quota; a language with neither gets
    none.  The total stays ``n_neg`` whenever some text exists for each language: a crawl short
    as a whole gets repeated copies too, which keeps the configured ratio
    ``negatives_per_positive``.  Measured against scaling every quota down with the largest one
    instead (fewer negatives, no copies of the bulk language): on the development crawl the
    final recall 0.990 vs 0.975 and precision 0.992 vs 0.988, English tuning-half precision
    0.750 vs 0.706; repetition kept.  Its cost shows on a small crawl with a large seed (the
    20,000-page scale crawl with 15,000 seed documents: 23,560 of 39,585 negatives are copies,
    2.5x the training lines); on a real crawl no language is short."""
    out = {}
    for lang, q in sorted(negative_quotas(pos_by_lang, avail_by_lang, n_neg).items()):
        if q <= 0:
            continue
        if lang == OTHER_LANGUAGES:              # never more than the crawl holds (negative_quotas)
            out[lang] = (q, 0, 0)
            continue
        crawl = min(q, avail_by_lang.get(lang, 0))
        bg = min(q - crawl, background_by_lang.get(lang, 0))
        out[lang] = (crawl, bg, q - crawl - bg if crawl + bg else 0)
    return out
