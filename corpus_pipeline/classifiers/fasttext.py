"""fastText behind the classifier interface (the default, ``classifier.kind = "fasttext"``).

Training runs single-threaded in a fresh child process reading the training file
(:func:`corpus_pipeline.classify._fit`: deterministic, see the note there);
prediction is :func:`corpus_pipeline.classify.predict_proba`.
"""
from __future__ import annotations

from typing import Optional, Sequence

from . import Classifier


class FastTextClassifier(Classifier):
    kind = "fasttext"

    def train(self, train_file: str, model_file: str, cfg) -> dict:
        from .. import classify as C

        return C._fit(train_file, cfg, model_file)

    def load(self, model_file: str):
        from .. import classify as C

        return C.load_model(model_file)

    def load_uncached(self, model_file: str):
        import fasttext

        return fasttext.load_model(model_file)

    def predict(self, model, texts: Sequence[Optional[str]], cfg, prepared: bool = False) -> list[float]:
        from .. import classify as C

        return C.predict_proba(model, texts, cfg, prepared=prepared)

    def facts(self, model) -> dict:
        return {"vocabulary": len(model.words)}
