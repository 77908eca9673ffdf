"""The stage description and the settings check, without Spark."""
import pytest

from corpus_pipeline import stages as st
from corpus_pipeline.config import load_config
from corpus_pipeline.errors import UsageError
from corpus_pipeline.runfolder import RunFolder


def test_every_config_key_is_classified():
    cfg = load_config()
    for key in st.flat(cfg):
        neutral = any(__import__("fnmatch").fnmatch(key, p) for p in st.NEUTRAL)
        shaped = st.classify_key(key)
        assert neutral != bool(shaped), f"{key}: neutral={neutral}, shapes {shaped}"
    assert st.classify_key("select.threshold") == ["collected"]
    assert st.classify_key("ingest.files_per_task") == [] and st.classify_key("spark.shuffle_partitions") == []
    assert st.classify_key("dedup.bands") == ["near_dedup"]
    assert st.classify_key("loop.random_seed") == ["model"]


def _commit(run, stage, cfg, i=None, counts=None, **kw):
    path = stage.location(run, i)
    run.stage(path, lambda a: counts or {}, settings=stage.settings(cfg), log=lambda m: None, **kw)
    return path


def _run_with_two_iterations(tmp_path, cfg):
    run = RunFolder(tmp_path / "run")
    for s in st.INGEST[1:]:
        _commit(run, s, cfg)
    for i in (1, 2):
        for s in (st.SEED, st.MODEL, st.SCORES, st.COLLECTED, st.DOMAINS):
            _commit(run, s, cfg, i)
    return run


def test_neutral_change_recomputes_nothing(tmp_path):
    run = _run_with_two_iterations(tmp_path, load_config())
    cfg = load_config(overrides=["spark.shuffle_partitions=7", "ingest.files_per_task=3", "loop.max_iterations=9"])
    assert st.check_settings(run, cfg, log=lambda m: None) is None
    assert run.is_committed(st.COLLECTED.location(run, 2))


def test_changed_key_is_refused_naming_key_and_first_stage(tmp_path):
    run = _run_with_two_iterations(tmp_path, load_config())
    cfg = load_config(overrides=["select.threshold=0.9"])
    with pytest.raises(UsageError) as e:
        st.check_settings(run, cfg, log=lambda m: None)
    assert "select.threshold: 0.5 -> 0.9" in str(e.value) and "iter=001/collected" in str(e.value)
    assert "--recompute" in str(e.value)
    assert run.is_committed(st.COLLECTED.location(run, 1))          # refused: nothing touched


def test_recompute_invalidates_the_first_changed_stage_and_everything_after(tmp_path):
    run = _run_with_two_iterations(tmp_path, load_config())
    cfg = load_config(overrides=["select.threshold=0.9"])
    first = st.check_settings(run, cfg, recompute=True, log=lambda m: None)
    assert first == "iter=001/collected"
    assert run.is_committed(st.SCORES.location(run, 1)) and run.is_committed(st.MODEL.location(run, 1))
    assert not run.is_committed(st.COLLECTED.location(run, 1))
    assert not run.is_committed(st.DOMAINS.location(run, 1))
    assert run.iterations() == [1]                                      # iteration 2 is gone
    assert run.is_committed(run.pages)


def test_leaf_stage_is_recomputed_without_asking(tmp_path):
    cfg = load_config()
    run = _run_with_two_iterations(tmp_path, cfg)
    path = _commit(run, st.CORPUS, cfg)
    new = load_config(overrides=["decontam.ngram=12"])
    assert st.check_settings(run, new, log=lambda m: None) is None
    assert not run.is_committed(path) and run.is_committed(st.DOMAINS.location(run, 2))


def test_settings_of_unfinished_extraction_batches_are_checked(tmp_path):
    cfg = load_config()
    run = RunFolder(tmp_path / "run")
    run.stage(st.EXTRACT.location(run) + "/batch=00000", lambda a: {"files": ["a.warc.gz"]},
              settings=st.EXTRACT.settings(cfg), log=lambda m: None)
    with pytest.raises(UsageError, match="ingest.min_text_chars"):
        st.check_settings(run, load_config(overrides=["ingest.min_text_chars=5"]), log=lambda m: None)
    st.check_settings(run, load_config(overrides=["ingest.min_text_chars=5"]), recompute=True, log=lambda m: None)
    assert st.extract_batches(run) == []
