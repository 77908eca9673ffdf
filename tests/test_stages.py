"""The stage description and the settings check, without Spark."""
import pytest

from corpus_pipeline.pipeline import settings as st
from corpus_pipeline.pipeline.recipe import default_recipe
from corpus_pipeline.config import load_config
from corpus_pipeline.errors import UsageError
from corpus_pipeline.runfolder import RunFolder

R = default_recipe()


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
    for s in R.ingest[1:]:
        _commit(run, s, cfg)
    for i in (1, 2):
        for s in (R["seed"], R["model"], R["scores"], R["collected"], R["domains"]):
            _commit(run, s, cfg, i)
    return run


def test_neutral_change_recomputes_nothing(tmp_path):
    run = _run_with_two_iterations(tmp_path, load_config())
    cfg = load_config(overrides=["spark.shuffle_partitions=7", "ingest.files_per_task=3", "loop.max_iterations=9"])
    assert st.check_settings(run, cfg, log=lambda m: None) is None
    assert run.is_committed(R["collected"].location(run, 2))


def test_changed_key_is_refused_naming_key_and_first_stage(tmp_path):
    run = _run_with_two_iterations(tmp_path, load_config())
    cfg = load_config(overrides=["select.threshold=0.9"])
    with pytest.raises(UsageError) as e:
        st.check_settings(run, cfg, log=lambda m: None)
    assert "select.threshold: 0.5 -> 0.9" in str(e.value) and "iter=001/collected" in str(e.value)
    assert "--recompute" in str(e.value)
    assert run.is_committed(R["collected"].location(run, 1))          # refused: nothing touched


def test_recompute_invalidates_the_first_changed_stage_and_everything_after(tmp_path):
    run = _run_with_two_iterations(tmp_path, load_config())
    cfg = load_config(overrides=["select.threshold=0.9"])
    first = st.check_settings(run, cfg, recompute=True, log=lambda m: None)
    assert first == "iter=001/collected"
    assert run.is_committed(R["scores"].location(run, 1)) and run.is_committed(R["model"].location(run, 1))
    assert not run.is_committed(R["collected"].location(run, 1))
    assert not run.is_committed(R["domains"].location(run, 1))
    assert run.iterations() == [1]                                      # iteration 2 is gone
    assert run.is_committed(R["pages"].location(run))


def test_leaf_stage_is_recomputed_without_asking(tmp_path):
    cfg = load_config()
    run = _run_with_two_iterations(tmp_path, cfg)
    path = _commit(run, R["corpus"], cfg)
    new = load_config(overrides=["decontam.ngram=12"])
    assert st.check_settings(run, new, log=lambda m: None) is None
    assert not run.is_committed(path) and run.is_committed(R["domains"].location(run, 2))


def test_settings_of_unfinished_extraction_batches_are_checked(tmp_path):
    cfg = load_config()
    run = RunFolder(tmp_path / "run")
    run.stage(R["extract"].location(run) + "/batch=00000", lambda a: {"files": ["a.warc.gz"]},
              settings=R["extract"].settings(cfg), log=lambda m: None)
    with pytest.raises(UsageError, match="ingest.min_text_chars"):
        st.check_settings(run, load_config(overrides=["ingest.min_text_chars=5"]), log=lambda m: None)
    st.check_settings(run, load_config(overrides=["ingest.min_text_chars=5"]), recompute=True, log=lambda m: None)
    assert R["extract"].batches(run) == []


def test_a_stage_removed_from_the_recipe_is_a_changed_setting(tmp_path):
    """Markers record the stages before them (recipe.upstream): a recipe without one of them is
    refused at the first committed stage after it, like a changed setting."""
    from corpus_pipeline.loop import LoopInputs
    from corpus_pipeline.pipeline.runner import Runner

    cfg = load_config()
    run = RunFolder(tmp_path / "run")
    full = default_recipe()
    runner = Runner(None, run, cfg, full, LoopInputs(inputs=[], run=str(run.uri)))
    for s in full.ingest[1:]:
        run.stage(s.location(run), lambda a: {}, settings=runner.settings(s), log=lambda m: None)
    for s in (full["seed"], full["model"]):
        run.stage(s.location(run, 1), lambda a: {}, settings=runner.settings(s), log=lambda m: None)
    assert st.check_settings(run, cfg, current=runner.settings, log=lambda m: None, recipe=full) is None

    short = default_recipe()
    short.ingest = [s for s in short.ingest if s.name != "pages_skips"]
    other = Runner(None, run, cfg, short, LoopInputs(inputs=[], run=str(run.uri)))
    with pytest.raises(UsageError) as e:
        st.check_settings(run, cfg, current=other.settings, log=lambda m: None, recipe=short)
    assert "recipe.upstream" in str(e.value) and "stage pages " in str(e.value)


def test_markers_of_the_previous_release_resume(tmp_path):
    """Markers written before recipe.upstream existed (settings = the stage's config keys only) are
    resumed by the runner's settings check; a changed key in them is still refused."""
    from corpus_pipeline.loop import LoopInputs
    from corpus_pipeline.pipeline.runner import Runner

    cfg = load_config()
    run = _run_with_two_iterations(tmp_path, cfg)           # markers hold stage.settings(cfg) only
    runner = Runner(None, run, cfg, R, LoopInputs(inputs=[], run=str(run.uri)))
    assert "recipe.upstream" in runner.settings(R["collected"])
    assert st.check_settings(run, cfg, current=runner.settings, log=lambda m: None, recipe=R) is None
    new = load_config(overrides=["select.threshold=0.9"])
    with pytest.raises(UsageError, match="select.threshold"):
        st.check_settings(run, new, current=Runner(None, run, new, R, LoopInputs(inputs=[], run=str(run.uri))).settings,
                          log=lambda m: None, recipe=R)
