import pytest

from corpus_pipeline.cli import main
from corpus_pipeline.config import Config, ConfigError, config_from_dict, load_config, parse_override


def test_defaults_are_the_papers():
    cfg = Config()
    c = cfg.classifier
    assert (c.dim, c.lr, c.word_ngrams, c.min_count, c.epoch) == (256, 0.1, 3, 3, 3)
    assert cfg.loop.saturation == 0.98
    assert cfg.loop.max_iterations == 6
    assert cfg.domains.flag_fraction == 0.10
    assert cfg.select.mode == "threshold" and cfg.select.threshold == 0.5
    assert cfg.decontam.ngram == 10


def test_toml_file_and_overrides(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[classifier]\ndim = 64\nlr = 0.5\n[loop]\nmax_iterations = 3\n')
    cfg = load_config(f, ["classifier.dim=32", "select.mode=\"tokens\"", "select.token_budget=1000"])
    assert cfg.classifier.dim == 32          # override wins over the file
    assert cfg.classifier.lr == 0.5
    assert cfg.loop.max_iterations == 3
    assert cfg.select.mode == "tokens" and cfg.select.token_budget == 1000


def test_unquoted_string_override():
    section, key, value = parse_override("domains.key=registered")
    assert (section, key, value) == ("domains", "key", "registered")
    assert load_config(None, ["domains.key=registered"]).domains.key == "registered"


@pytest.mark.parametrize("override,needle", [
    ("classifier.nope=1", "classifier.nope"),
    ("nosection.x=1", "nosection"),
    ("classifier.dim=abc", "classifier.dim"),
    ("classifier.dim=1.5", "classifier.dim"),
    ("dedup.near=1", "dedup.near"),
    ("select.mode=\"topk\"", "select.mode"),
    ("loop.saturation=1.5", "loop.saturation"),
    ("select.mode=\"tokens\"", "select.token_budget"),
    ("classifier", "section.key=value"),
    ("decontam.max_pages=10", "decontam.max_pages"),     # never applied by the Spark stage: refused, not ignored
])
def test_invalid_settings_name_the_key(override, needle):
    with pytest.raises(ConfigError) as e:
        load_config(None, [override])
    assert needle in str(e.value)


def test_bad_file_names_the_file(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[classifier\ndim = 3")
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert str(f) in str(e.value)
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "missing.toml")
    assert "missing.toml" in str(e.value)
    g = tmp_path / "unknown.toml"
    g.write_text("[ingest]\nmax_page_byte = 3\n")
    with pytest.raises(ConfigError) as e:
        load_config(g)
    assert "ingest.max_page_byte" in str(e.value) and str(g) in str(e.value)


def test_unknown_key_suggests_the_closest_known_keys_across_sections(tmp_path):
    from corpus_pipeline.config import closest_keys, known_keys

    with pytest.raises(ConfigError) as e:
        load_config(None, ["classifier.threshold=0.7"])
    msg = str(e.value)
    assert "unknown key classifier.threshold; did you mean select.threshold" in msg   # another section's key
    with pytest.raises(ConfigError, match="did you mean loop.saturation"):
        load_config(None, ["loop.saturate=0.9"])
    with pytest.raises(ConfigError, match=r"unknown section \[selection\]; did you mean select.threshold"):
        load_config(None, ["selection.threshold=0.7"])
    g = tmp_path / "typo.toml"
    g.write_text("[ingest]\nmin_chars = 3\n")
    with pytest.raises(ConfigError, match="did you mean ingest.min_text_chars"):
        load_config(g)
    assert all(k in known_keys() for k in closest_keys("classifier.threshold"))
    assert closest_keys("zzzz.qqqqqq") == []


def test_resolved_toml_round_trips():
    cfg = load_config(None, ["classifier.dim=64", "decontam.exclude_short=[\"mmlu_stem\"]"])
    import tomllib

    again = config_from_dict(tomllib.loads(cfg.to_toml()))
    assert again.to_dict() == cfg.to_dict()


def test_cli_dry_run_prints_config_and_exit_codes(capsys, tmp_path):
    assert main(["report", str(tmp_path), "--dry-run", "--set", "classifier.dim=77"]) == 0
    out = capsys.readouterr().out
    assert "dim = 77" in out and "[decontam]" in out
    import tomllib

    assert config_from_dict(tomllib.loads(out)).classifier.dim == 77    # the output is a usable config file
    assert main(["report", str(tmp_path), "--set", "classifier.dim=x"]) == 2
    assert "classifier.dim" in capsys.readouterr().err
    assert main(["no-such-command"]) == 2
