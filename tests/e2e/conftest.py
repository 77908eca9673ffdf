"""A real headless Chromium (Debian's ``chromium`` + ``chromium-driver`` packages, installed by .ci/run),
driven by selenium with the driver path given explicitly, so Selenium Manager never runs and
nothing is downloaded."""
from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("CORPUS_PIPELINE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CORPUS_PIPELINE_CHROMEDRIVER", "/usr/bin/chromedriver")


def _missing(what: str):
    msg = f"{what} not found (apt-get install chromium chromium-driver; .ci/run does it)"
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture
def browser(tmp_path):
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        _missing("chromium")
    if not os.path.exists(CHROMEDRIVER):
        _missing("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium (pip install -e '.[test]')")
    opts = Options()
    opts.binary_location = CHROMIUM
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
              f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1200,900"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def screenshot(tmp_path):
    """``screenshot(driver, name)``: saves to $CORPUS_PIPELINE_SCREENSHOTS (the README's docs/img) or tmp_path."""
    def shoot(driver, name: str) -> str:
        out = os.environ.get("CORPUS_PIPELINE_SCREENSHOTS") or str(tmp_path)
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, name)
        driver.save_screenshot(path)
        return path
    return shoot


# ------------------------------------------------------------------ shared runs (built once per session)
# Built in this process against the session's SparkSession (runs.cli); tests that change a run work
# on a copy (shutil.copytree) and rerun with the same arguments.
@pytest.fixture(scope="session")
def crawl(tmp_path_factory):
    """A 600-page mini-crawl (random seed 7) with its labels and its small planted benchmark."""
    from runs import run_ok

    d = tmp_path_factory.mktemp("crawl")
    run_ok(["minicrawl", "--out", str(d), "--pages", "600", "--random-seed", "7"])
    assert (d / "benchmarks" / "gsm8k" / "test.jsonl").is_file()
    return d


@pytest.fixture(scope="session")
def straight_run(spark, crawl, tmp_path_factory):
    """The whole loop on ``crawl`` with the automatic proposer, uninterrupted (``runs.run_args``),
    with every rename inside the run folder refused (``runs.renames_refused``)."""
    from runs import renames_refused, run_args, run_ok

    run = tmp_path_factory.mktemp("straight") / "run"
    with renames_refused(run):
        run_ok(run_args(crawl, run))
    return run


@pytest.fixture(scope="session")
def decontaminated_run(spark, crawl, straight_run, tmp_path_factory):
    """``straight_run`` rerun with the mini-crawl's planted benchmark, as a user who adds
    --benchmarks to a finished run (only the final stage is redone), renames still refused."""
    import shutil

    from runs import renames_refused, run_args, run_ok

    run = tmp_path_factory.mktemp("decontaminated") / "run"
    shutil.copytree(straight_run, run)
    with renames_refused(run):
        p = run_ok(run_args(crawl, run, "--benchmarks", str(crawl / "benchmarks")))
    assert "already committed" in p.stdout
    return run


@pytest.fixture(scope="session")
def paused_run(spark, crawl, tmp_path_factory):
    """A manual-annotation run on ``crawl`` paused at iteration 1's worksheet (``runs.manual_args``)."""
    import json

    from runs import manual_args, run_ok

    run = tmp_path_factory.mktemp("paused") / "run"
    p = run_ok(manual_args(crawl, run))
    assert str(run / "iter=001" / "annotations" / "marked_paths.txt") in p.stdout   # says where to mark
    state = json.loads((run / "loop.json").read_text())
    assert state["stopped_because"] == "awaiting_annotation" and state["last_iteration"] == 1, state
    return run
