"""fastText behind the classifier interface (the default, ``classifier.kind = "fasttext"``): its text
preparation, training, loading and prediction (pure: no Spark).

* :func:`prepare`: the one text preparation shared by training and scoring
  (Markdown structure syntax removed, NFKC, lower case, maths delimiters unified, TeX commands kept as tokens,
  CJK split into characters, operators as tokens, numbers kept whole,
  truncation to ``max_words``); :func:`document_lines`: a training document's
  chunk lines.
* :func:`fit`: fastText with the paper's settings from ``[classifier]``,
  deterministic (one thread, fixed seed), in a fresh child process (see there).
* :func:`load_model` (cached once per process) and :func:`predict_proba`
  (batch P(positive)).

Its options are the ``[classifier]`` settings (dim, lr, word_ngrams, min_count,
epoch, bucket, threads, seed, max_words, train_chunk_words).
"""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import unicodedata
from typing import Optional, Sequence

from ..text import CJK_RANGES
from . import LABEL_OTHER, Classifier

NAN_ATTEMPTS = 8          # training attempts when fastText reports a spurious NaN (see fit)

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
# The text column is Markdown-flavoured (docs/extractors.md): the syntax that only marks structure is
# not content, and the pages hold far more of it than the seed (which has no fences and few tables),
# so left in it would teach the classifier "fenced code or a table: not maths" from syntax alone.
# On the real pages, the extraction rewrite's "|---|" rules and "- " list markers ("-" is a token)
# cost a Stack Exchange maths page its place above the threshold (tests/test_classifier_quality.py).
# Removed before tokenizing, on training and scoring alike: separator lines (a pipe table's
# "|---|:--:|" rule, a "---" thematic break: only "-", ":", "|" and spaces), fence lines ("```lang",
# "~~~"), line-leading list markers ("- ", "* ", "+ "); a pipe-table row's escaped "\|" is
# unescaped (so a cell's TeX "\|" reads as it did); a table written as HTML (a cell spans rows or
# columns) is read as its cells' text (tags dropped, entities unescaped).  Headings' "#", backticks
# and the cell bars are no tokens anyway.
_MD_RULE = re.compile(r"^[ \t|:-]*-{3,}[ \t|:-]*$", re.M)
_MD_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[^`\n]*$", re.M)
_MD_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+", re.M)
_MD_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M)
_MD_HTML_TABLE = re.compile(r"<table>.*?(?:</table>|$)", re.S)           # as extractors/structure.py writes it
_MD_HTML_TAG = re.compile(r'</?(?:table|tr|th|td)(?: (?:colspan|rowspan)="\d+")*>')


def markdown_plain(text: str) -> str:
    """``text`` without the Markdown syntax that marks structure only (see above): what the
    classifier reads of a page, its seed and its negatives alike."""
    if "---" in text:
        text = _MD_RULE.sub("", text)
    if "```" in text or "~~~" in text:
        text = _MD_FENCE.sub("", text)
    if "\n" in text or text[:1] in "-*+ \t":
        text = _MD_BULLET.sub("", text)
    if "\\|" in text:
        text = _MD_TABLE_ROW.sub(lambda m: m.group(0).replace("\\|", "|"), text)
    if "<table>" in text:
        text = _MD_HTML_TABLE.sub(lambda m: html.unescape(_MD_HTML_TAG.sub(" ", m.group(0))), text)
    return text


def tokens(text: str, max_words: int, unify_delimiters: bool = True) -> list[str]:
    """The first ``max_words`` tokens of ``text`` (see :func:`prepare`);
    ``unify_delimiters=False`` keeps ``\\(`` and ``$$`` apart (the preparation before it)."""
    if not text:
        return []
    t = markdown_plain(text[: max_words * _CHARS_PER_TOKEN_CAP])
    if not unicodedata.is_normalized("NFKC", t):
        t = unicodedata.normalize("NFKC", t)
    if unify_delimiters:
        t = _DELIMITER.sub(" $ ", t)
    return _TOKEN.findall(t.lower())[:max_words]


def prepare(text: Optional[str], max_words: int = 2000) -> str:
    """One line of space-separated tokens that fastText reads as words.

    Markdown structure syntax removed (:func:`markdown_plain`: table rules, code fences,
    list markers); NFKC-normalized and lower-cased; the maths delimiters ``\\( \\) \\[ \\] $$``
    become ``$``; ``\\frac`` and other TeX commands are one token each; each CJK character is a token (fastText's word n-grams then see
    character bigrams and trigrams); numbers are tokens (decimals kept whole);
    operators and maths symbols are tokens of their
    own; other punctuation is dropped.  Truncated to the first ``max_words``
    tokens (and the text to ``max_words * 12`` characters before that), so
    training and scoring see exactly the same words.
    """
    return " ".join(tokens(text or "", max_words))


def document_lines(text: Optional[str], cfg) -> list[str]:
    """The training lines of one document, without label: its first ``cfg.max_words``
    tokens cut into pieces of ``cfg.train_chunk_words`` (0: one line), a short tail of a
    long document left out.  Spark's training-set writer and
    :func:`corpus_pipeline.classify.training_lines` both use this (through the plugin), so the
    in-memory and the distributed training files agree."""
    chunk = getattr(cfg, "train_chunk_words", 0) or cfg.max_words
    toks = tokens(text or "", cfg.max_words)
    out = []
    for s in range(0, len(toks), chunk):
        piece = toks[s:s + chunk]
        if s == 0 or len(piece) >= max(1, chunk // 4):   # drop a short tail of a long document
            out.append(" ".join(piece))
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
out, heldout, scores_out = a.pop("_out"), a.pop("_heldout", None), a.pop("_scores", None)
m = fasttext.train_supervised(**a)
m.save_model(out)
facts = {"vocabulary": len(m.words)}
if heldout:
    # the held-out measurement with the model in memory (the same code as a loaded model's)
    from corpus_pipeline.classifiers.fasttext import FastTextClassifier
    scores, labels, more = FastTextClassifier().evaluate_model(m, heldout, None)
    facts.update(more)
    with open(scores_out, "w") as f:
        json.dump({"scores": scores, "labels": labels}, f)
print(json.dumps(facts))
"""


def fit(train_path: str, cfg, out_path: str, heldout_path: Optional[str] = None,
        scores_path: Optional[str] = None) -> dict:
    """Train fastText on the file at ``train_path`` (read by fastText itself, streamed)
    in a child process; the model is written to ``out_path``.  Returns {"vocabulary": n}.
    With ``heldout_path``, the child also scores that held-out file with the model it holds
    (:meth:`Classifier.evaluate_model`) and writes ``{"scores", "labels"}`` to ``scores_path`` as
    JSON (floats round-trip exactly)."""

    args = dict(input=train_path, dim=cfg.dim, lr=cfg.lr, wordNgrams=cfg.word_ngrams,
                minCount=cfg.min_count, epoch=cfg.epoch, bucket=cfg.bucket, thread=cfg.threads,
                seed=cfg.seed, loss="softmax", minn=0, maxn=0, verbose=0, _out=out_path)
    if heldout_path:
        args.update(_heldout=heldout_path, _scores=scores_path)
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


# ---------------------------------------------------------------- prediction
def predict_proba(model, texts: Sequence[Optional[str]], cfg,
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


class FastTextClassifier(Classifier):
    kind = "fasttext"

    def prepare(self, text: Optional[str], cfg) -> str:
        return prepare(text, cfg.max_words)

    def document_lines(self, text: Optional[str], cfg) -> list[str]:
        return document_lines(text, cfg)

    def train(self, train_file: str, model_file: str, cfg) -> dict:
        return fit(train_file, cfg, model_file)

    def train_and_evaluate(self, train_file: str, model_file: str, heldout_file: Optional[str], cfg):
        """Training and the held-out measurement in one child process, with the model it has just
        trained: the caller never loads the model (about 220 MB at the default settings)."""
        if heldout_file is None:
            return fit(train_file, cfg, model_file), None
        scores_file = model_file + ".heldout_scores.json"
        try:
            facts = fit(train_file, cfg, model_file, heldout_file, scores_file)
            with open(scores_file) as f:
                got = json.load(f)
        finally:
            if os.path.exists(scores_file):
                os.remove(scores_file)
        return facts, ([float(x) for x in got["scores"]], [bool(x) for x in got["labels"]])

    def load(self, model_file: str):
        return load_model(model_file)

    def load_uncached(self, model_file: str):
        import fasttext

        return fasttext.load_model(model_file)

    def predict(self, model, texts: Sequence[Optional[str]], cfg, prepared: bool = False) -> list[float]:
        return predict_proba(model, texts, cfg, prepared=prepared)

    def facts(self, model) -> dict:
        return {"vocabulary": len(model.words)}
