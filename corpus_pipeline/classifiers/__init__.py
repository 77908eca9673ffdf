"""The classifier interface and its registry (pure: no Spark).

The loop never calls a model library directly: it asks :func:`get` for the
implementation named by ``classifier.kind`` and uses these operations.

* ``prepare(text, cfg) -> str`` and ``document_lines(text, cfg) -> list[str]``:
  the plugin's own text preparation (a text as the model reads it; a training
  document's lines), run by the executors that write the training table;
* ``train(train_file, model_file, cfg) -> dict``: train on a local text file of
  training lines (``__label__<positive> <line>`` or ``__label__other <line>``, in
  the order they are to be read, written from that table) and write the model to
  the local path ``model_file``.  Returns facts for ``metrics.json`` (``vocabulary``).
  The model file is the artifact shipped to the executors.
* ``load(model_file)``: the model at a local path, cached once per process.
* ``predict(model, texts, cfg, prepared=False) -> list[float]``: P(positive) in
  [0, 1] per text, in order; ``prepared=True`` when the texts are already
  prepared lines (held-out lines of the same file format without the label).
* ``metrics``: :meth:`Classifier.evaluate` streams a held-out file of the same
  format through ``predict`` and returns (scores, is_positive) for
  :func:`corpus_pipeline.classify.pr_metrics`; implementations may override it, or
  :meth:`Classifier.train_and_evaluate` (train, then measure: fastText measures in its
  training process with the model in memory, so the driver never loads the model).

Adding a model: write one module with a subclass of :class:`Classifier` and add
one line to ``REGISTRY`` below (or, outside this package, call
``REGISTRY.register(kind, Class)`` in a module named by the ``plugins.modules``
setting, :mod:`corpus_pipeline.plugins`); ``--set classifier.kind=NAME`` then
uses it in ``run``, ``train`` and ``score`` without touching the loop.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..plugins import Registry

REGISTRY = Registry("classifier", {
    "fasttext": "corpus_pipeline.classifiers.fasttext:FastTextClassifier",
})

LABEL_OTHER = "__label__other"    # the training and held-out files' negative label


def label_of(positive: str) -> str:
    """The training and held-out files' positive label for a profile's label (``__label__math``)."""
    return "__label__" + positive


LABEL_MATH = label_of("math")     # the maths profile's (the default)
MODEL_FILE = "model.bin"          # what every kind writes into the model folder (the contract)


class Classifier:
    """Base class: subclasses implement train, load and predict."""

    kind = ""
    model_file = MODEL_FILE

    def prepare(self, text: Optional[str], cfg) -> str:
        """A text as the model reads it (one line); the default keeps its first ``cfg.max_words`` words."""
        return " ".join((text or "").split()[:cfg.max_words])

    def document_lines(self, text: Optional[str], cfg) -> list[str]:
        """A training document's lines, without label (default: its one prepared line)."""
        line = self.prepare(text, cfg)
        return [line] if line else []

    def train(self, train_file: str, model_file: str, cfg) -> dict:
        raise NotImplementedError

    def load(self, model_file: str):
        raise NotImplementedError

    def predict(self, model, texts: Sequence[Optional[str]], cfg, prepared: bool = False) -> list[float]:
        raise NotImplementedError

    def evaluate(self, model_file: str, heldout_file: str, cfg, batch: int = 2048
                 ) -> tuple[list[float], list[bool], dict]:
        """(scores, is_positive, facts) of every line of a held-out file, streamed in batches.
        The model is loaded for this call only (not kept in the process cache)."""
        return self.evaluate_model(self.load_uncached(model_file), heldout_file, cfg, batch)

    def evaluate_model(self, model, heldout_file: str, cfg, batch: int = 2048
                       ) -> tuple[list[float], list[bool], dict]:
        """:meth:`evaluate` with a model already loaded (or just trained)."""
        scores: list[float] = []
        labels: list[bool] = []
        texts: list[str] = []
        with open(heldout_file, encoding="utf-8") as f:
            for line in f:
                label, _, text = line.rstrip("\n").partition(" ")
                labels.append(label != LABEL_OTHER)
                texts.append(text)
                if len(texts) >= batch:
                    scores += self.predict(model, texts, cfg, prepared=True)
                    texts = []
        if texts:
            scores += self.predict(model, texts, cfg, prepared=True)
        return scores, labels, self.facts(model)

    def train_and_evaluate(self, train_file: str, model_file: str, heldout_file: Optional[str], cfg
                           ) -> tuple[dict, Optional[tuple[list[float], list[bool]]]]:
        """:meth:`train`, then :meth:`evaluate` on ``heldout_file`` unless it is None: (facts, (scores,
        is_positive) or None).  An implementation may measure with the model it has just trained
        (fastText does, in its training process: the caller never loads the model)."""
        facts = dict(self.train(train_file, model_file, cfg) or {})
        if heldout_file is None:
            return facts, None
        scores, labels, more = self.evaluate(model_file, heldout_file, cfg)
        return {**facts, **more}, (scores, labels)

    def load_uncached(self, model_file: str):
        return self.load(model_file)

    def facts(self, model) -> dict:
        """Facts about a loaded model for metrics.json."""
        return {}


def kinds() -> list[str]:
    return REGISTRY.names()


def get(kind: str = "fasttext") -> Classifier:
    """The implementation registered under ``kind`` (one instance per process)."""
    try:
        return REGISTRY.get(kind)
    except ValueError as e:
        raise ValueError(f"classifier.kind: {e}") from None


def for_config(cfg) -> Classifier:
    return get(getattr(cfg, "kind", "fasttext") or "fasttext")
