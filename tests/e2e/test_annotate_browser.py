"""The path step done from the browser alone: a paused manual run of a small mini-crawl,
`corpus-pipeline annotate RUN --serve` in its own process (stopped by SIGINT), a real headless Chromium accepting a
proposed prefix and rejecting another, then the loop rerun: the accepted prefix's pages join the
seed, the rejected prefix is not offered again."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.runfolder import committed_data
import pytest
from runs import CLI, ENV, SETTINGS, manual_args, run_ok

pytestmark = [pytest.mark.spark, pytest.mark.slow]



def run_loop(crawl: Path, run: Path) -> subprocess.CompletedProcess:
    return run_ok(manual_args(crawl, run))      # in this process (runs.cli)


def start_server(run: Path):
    proc = subprocess.Popen(CLI + ["annotate", str(run), "--serve", "--port", "0", *SETTINGS], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 300
    lines = []
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"serving iteration \d+ .* at (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("the server never printed its URL:\n" + "".join(lines) + proc.stderr.read()[-3000:])


def stop_server(proc) -> int:
    os.killpg(proc.pid, signal.SIGINT)
    try:
        return proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise


def click(browser, el) -> None:
    """Scroll to the middle of the window first (the page's header is sticky), then click."""
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def test_annotation_from_the_browser_alone(crawl, paused_run, browser, screenshot, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    run = tmp_path / "run"
    shutil.copytree(paused_run, run)          # the shared manual run, paused at iteration 1
    assert json.loads((run / "loop.json").read_text())["stopped_because"] == "awaiting_annotation"
    adir = run / "iter=001" / "annotations"

    proc, url = start_server(run)
    try:
        # a wrong token is refused by the page itself
        browser.get(url.split("?")[0] + "?token=wrong")
        assert "bad or missing token" in browser.find_element(By.TAG_NAME, "body").text

        browser.get(url)
        WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.CSS_SELECTOR, "section.host")))
        hosts = browser.find_elements(By.CSS_SELECTOR, "section.host")
        assert len(hosts) >= 3
        # ranked by impact: hosts with proposals first, their impact never increasing down the page
        impacts = []
        for h in hosts:
            meta = h.find_element(By.CSS_SELECTOR, ".meta").text
            m = re.search(r"impact: (\d+) pages would join", meta)
            if m:
                impacts.append(int(m.group(1)))
        assert len(impacts) >= 2 and impacts == sorted(impacts, reverse=True), impacts
        assert hosts[0].find_element(By.CSS_SELECTOR, "h2").text.startswith("#1 ")

        proposed = browser.find_elements(By.XPATH, "//tr[contains(@class,'prefix')][.//span[text()='proposed']]")
        assert len(proposed) >= 2
        assert all("accept" in r.get_attribute("class").split() for r in proposed)   # pre-selected
        progress = browser.find_element(By.ID, "progress").text
        m = re.match(r"(\d+) decided, (\d+) left", progress)
        assert m and int(m.group(1)) == len(proposed), progress
        total = int(m.group(1)) + int(m.group(2))

        # the first host's proposed prefix: open its samples (crawl text with score, maths as TeX), accept it
        first = hosts[0].find_element(By.XPATH, ".//tr[contains(@class,'prefix')][.//span[text()='proposed']]")
        accept_path = first.get_attribute("data-path")
        click(browser, first.find_element(By.CSS_SELECTOR, "button.tog"))
        samples_row = first.find_element(By.XPATH, "following-sibling::tr[1]")
        samples = samples_row.find_elements(By.CSS_SELECTOR, ".sample")
        assert samples and all(s.is_displayed() for s in samples)
        texts = [s.text for s in samples]
        assert any("· collected · score" in t for t in texts) and any("not collected · score" in t for t in texts)
        assert all(len(s.find_element(By.CSS_SELECTOR, ".x").text) > 100 for s in samples)   # excerpts, not links
        assert not samples_row.find_elements(By.TAG_NAME, "a")
        assert browser.find_elements(By.CSS_SELECTOR, ".sample .tex"), "no maths shown as TeX in any sample"
        click(browser, first.find_element(By.CSS_SELECTOR, "button[data-state=accept]"))
        assert "accept" in first.get_attribute("class").split()

        # another proposed prefix (second host): reject it from the keyboard
        second = hosts[1].find_element(By.XPATH, ".//tr[contains(@class,'prefix')][.//span[text()='proposed']]")
        reject_path = second.get_attribute("data-path")
        assert reject_path.split("/")[0] != accept_path.split("/")[0]
        click(browser, second.find_element(By.CSS_SELECTOR, "td.join"))          # focus the row
        assert second.get_attribute("class").split()[-1] == "focus"
        browser.find_element(By.TAG_NAME, "body").send_keys("k", "j")        # move away and back
        assert browser.find_element(By.CSS_SELECTOR, "tr.prefix.focus").get_attribute("data-path") == reject_path
        browser.find_element(By.TAG_NAME, "body").send_keys("r")
        assert "reject" in second.get_attribute("class").split()
        assert "accept" in first.get_attribute("class").split()
        # and decide one more with a click: an undecided prefix of the first host, rejected then reset
        undecided = hosts[0].find_element(By.CSS_SELECTOR, "tr.prefix.undecided")
        click(browser, undecided.find_element(By.CSS_SELECTOR, "button[data-state=reject]"))
        assert browser.find_element(By.ID, "progress").text == f"{len(proposed) + 1} decided, {total - len(proposed) - 1} left"
        click(browser, undecided.find_element(By.CSS_SELECTOR, "button[data-state=undecided]"))

        # the filter narrows the page to one host
        f = browser.find_element(By.ID, "filter")
        f.send_keys(accept_path.split("/")[0])
        visible = [h for h in browser.find_elements(By.CSS_SELECTOR, "section.host") if h.is_displayed()]
        assert [h.get_attribute("data-host") for h in visible] == [accept_path.split("/")[0]]
        f.clear()
        f.send_keys(" ")
        f.send_keys("\b")
        browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", first)
        screenshot(browser, "annotate.png")

        browser.find_element(By.ID, "save").click()
        msg = WebDriverWait(browser, 30).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#msg.ok")))
        assert "rerun the same" in msg.text and "marked_paths.txt" in msg.text
    finally:
        assert stop_server(proc) == 0

    marked = (adir / "marked_paths.txt").read_text()
    assert re.search(rf"^{re.escape(accept_path)}\s+#", marked, re.M)
    assert not re.search(rf"^{re.escape(reject_path)}", marked, re.M)
    assert re.search(rf"^{re.escape(reject_path)}\s+# rejected", (adir / "rejected_paths.txt").read_text(), re.M)

    # continue the loop: the accepted prefix's uncollected pages join the seed, the rejected one's do not
    run_loop(crawl, run)
    sources = {r["source"] for r in pq.read_table(committed_data(str(run / "iter=002" / "seed"))).to_pylist()}
    assert f"path:{accept_path}" in sources
    assert f"path:{reject_path}" not in sources
    ann1 = json.loads((adir / "_COMMIT.json").read_text())
    assert accept_path in ann1["counts"]["marked"] and reject_path not in ann1["counts"]["marked"]
    # iteration 2 asks again (manual mode), without the rejected prefix
    state = json.loads((run / "loop.json").read_text())
    assert state["stopped_because"] == "awaiting_annotation" and state["last_iteration"] == 2, state
    index2 = json.loads((run / "iter=002" / "annotations" / "prefixes.json").read_text())
    listed2 = {r["host"] + r["prefix"] for r in index2["rows"]}
    host2 = reject_path.split("/")[0]
    assert any(p.startswith(host2 + "/") for p in listed2), "the rejected prefix's host is no longer flagged"
    assert reject_path not in listed2
    # the rejected prefix itself is neither marked nor offered (its sub-folders may still be candidates)
    assert not re.search(rf"(^|\s){re.escape(reject_path)}(\s|$)",
                         (run / "iter=002" / "annotations" / "marked_paths.txt").read_text(), re.M)
    assert accept_path in (run / "iter=002" / "annotations" / "marked_paths.txt").read_text()   # carried
