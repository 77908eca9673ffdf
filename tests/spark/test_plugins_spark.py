"""A classifier from outside the package, registered by the ``plugins.modules`` setting: the config
check knows it only once the module is named, training uses it, and Spark scores with it although the
executors' Python never had the module on its path (the class travels with the task)."""
from __future__ import annotations

import sys
import textwrap

import pytest

from corpus_pipeline import schemas

pytestmark = pytest.mark.spark

PLUGIN = textwrap.dedent('''
    """Outside plugin: P(positive) = share of a text's words among the words seen more often in
    positive training lines than in negative ones."""
    import collections
    import json

    from corpus_pipeline.classifiers import LABEL_MATH, REGISTRY, Classifier


    class KeywordClassifier(Classifier):
        kind = "keywords"

        def train(self, train_file, model_file, cfg):
            pos, neg = collections.Counter(), collections.Counter()
            with open(train_file, encoding="utf-8") as f:
                for line in f:
                    label, _, text = line.rstrip("\\n").partition(" ")
                    (pos if label == LABEL_MATH else neg).update(text.split())
            words = sorted(w for w in pos if pos[w] > 2 * neg[w] and pos[w] >= 3)
            with open(model_file, "w", encoding="utf-8") as f:
                json.dump(words, f)
            return {"vocabulary": len(words)}

        def load(self, model_file):
            with open(model_file, encoding="utf-8") as f:
                return frozenset(json.load(f))

        def predict(self, model, texts, cfg, prepared=False):
            out = []
            for t in texts:
                words = (t or "").lower().split()
                out.append(sum(w in model for w in words) / len(words) if words else 0.0)
            return out


    REGISTRY.register("keywords", KeywordClassifier)
''')

MATHS = ["let x be a real number then the integral of f over the interval equals the derivative",
         "prove the theorem: every prime p divides the polynomial when the equation has a root",
         "the matrix has eigenvalue lambda and the vector space has dimension n by the lemma",
         "solve the equation for x and compute the limit of the sequence as n tends to infinity"]
OTHER = ["the match ended late and the fans went home after the final whistle in the rain",
         "our recipe uses butter sugar and flour; bake the cake for forty minutes until golden",
         "the museum opens at nine and the tickets are sold at the door of the old building",
         "travel tips: pack light, book the train early and keep your passport in the bag"]


@pytest.fixture
def plugin_module(tmp_path, monkeypatch):
    from corpus_pipeline import plugins
    from corpus_pipeline.classifiers import REGISTRY

    (tmp_path / "cp_keyword_plugin.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))          # the driver only: executors never see this path
    yield "cp_keyword_plugin"
    sys.modules.pop("cp_keyword_plugin", None)
    if "cp_keyword_plugin" in plugins.LOADED:
        plugins.LOADED.remove("cp_keyword_plugin")
    REGISTRY._entries.pop("keywords", None)
    REGISTRY._instances.pop("keywords", None)


def test_an_outside_classifier_is_registered_by_the_config_key_and_scores_on_spark(spark, plugin_module,
                                                                                    tmp_path):
    from corpus_pipeline.config import ConfigError, load_config
    from corpus_pipeline.spark.classify import score_pages, train_iteration
    from corpus_pipeline.spark.io import rows_to_df

    with pytest.raises(ConfigError, match="classifier.kind"):
        load_config(overrides=['classifier.kind="keywords"'])              # not named: unknown
    with pytest.raises(ConfigError, match="plugins.modules.*no_such_plugin_module"):
        load_config(overrides=['plugins.modules=["no_such_plugin_module"]'])
    cfg = load_config(overrides=[f'plugins.modules=["{plugin_module}"]', 'classifier.kind="keywords"'])

    texts = [(f"m{i}", t) for i, t in enumerate(MATHS * 5)] + [(f"o{i}", t) for i, t in enumerate(OTHER * 10)]
    pages = rows_to_df(spark, [schemas.row(schemas.PAGES, {"page_id": p, "url": f"https://h.example/{p}",
                                                           "host": "h.example", "text": t, "n_tokens": 20})
                               for p, t in texts], schemas.PAGES, num_slices=2)
    seed = rows_to_df(spark, [schemas.row(schemas.SEED, {"seed_id": f"s{i}", "source": "seed", "added_in": 1,
                                                         "text": t}) for i, t in enumerate(MATHS * 6)],
                      schemas.SEED)
    model_dir = str(tmp_path / "model")
    metrics = train_iteration(spark, pages, seed, model_dir, cfg.classifier, 42)
    assert metrics["vocabulary"] > 0                                   # the plugin's own facts
    scores = {r["page_id"]: r["score"] for r in score_pages(spark, pages, model_dir, cfg.classifier).collect()}
    assert set(scores) == {p for p, _ in texts}

    from corpus_pipeline.classifiers import get

    clf = get("keywords")                                              # the same scores without Spark
    model = clf.load(f"{model_dir}/model.bin")
    assert scores == pytest.approx(dict(zip([p for p, _ in texts], clf.predict(model, [t for _, t in texts],
                                                                                 cfg.classifier))))
    assert min(scores[p] for p, _ in texts if p[0] == "m") > max(scores[p] for p, _ in texts if p[0] == "o")
