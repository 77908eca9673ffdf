"""The report and the two pages as a user sees them in a real headless Chromium (no Spark: the report is
rendered from a summary, the pages are served from views built in memory): the report's threshold lines
and P/R/F1 columns, blind judging with the judge's name asked once, maths rendered by the vendored KaTeX
on both pages, the annotation page's columns lined up from one host to the next and one prefix's samples
open at a time.  (The docs' screenshots come from the tests on real runs: test_results_e2e, test_judge_e2e,
test_annotate_browser.)"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from corpus_pipeline import annotate_web as W
from corpus_pipeline import judge_web
from corpus_pipeline import judging as jg
from corpus_pipeline.pipeline.runview import RunView
from corpus_pipeline.report.html import drop_rows, render_html
from corpus_pipeline.runfolder import RunFolder

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_annotate_web import ROWS  # noqa: E402
from test_annotate_web import view  # noqa: E402,F401 - the annotation page's view, built in memory

pytestmark = pytest.mark.slow        # a browser per test: 4-6 s each

TEXT = ("Let $x^2 = 4$, so that $$x = \\pm 2.$$ The sum $\\sum_{k=1}^n k = \\frac{n(n+1)}{2}$ follows. "
        + "More words here. " * 40)


def _wait(browser, timeout=30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout)


def _summary() -> dict:
    def it(i, pages, tokens, new, ov, tp, tr):      # the demo run's figures (make demo, this release)
        return {"iteration": i, "collected_pages": pages, "collected_tokens": tokens, "overlap_with_previous": ov,
                "new_pages": new, "flagged_domains": 11, "seed_positives": 478 + 200 * (i > 1),
                "seed_added": 200 if i == 1 else 0, "true_precision": tp, "true_recall": tr,
                "classifier": {"precision": 0.912, "recall": 1.0, "f1": 0.954}, "select_threshold": 0.5,
                "score_histogram": [2336, 15, 1] + [0] * 7 + [4, 4, 7, 10, 22, 37, 70, 69, 29, 495],
                "top_flagged_domains": [{"host": "askmaths.net", "pages": 279, "collected": 108, "fraction": 0.39}],
                "marks": [], "rejected_prefixes": []}

    return {"run": "demo_out/run", "stopped_because": "saturated", "saturation": 0.98,
            "iterations": [it(1, 495, 132386, 495, None, 1.0, 0.655), it(2, 753, 205932, 258, 0.657, 1.0, 0.996),
                           it(3, 753, 205932, 0, 1.0, 1.0, 0.996)],
            "final": {"pages": 753, "tokens": 173853, "pages_removed_by_decontamination": 0, "segments_removed": 3},
            "ingest": {"skips": {"non_response": 3008, "not_html": 23, "http_status_3xx": 3, "truncated_record": 1},
                       "url_duplicates": 28, "exact_duplicates": 45, "near_duplicates": 53},
            "decontamination": {"by_benchmark": {"gsm8k": {"segment_removed": 3}}},
            "reextraction": {"reextracted": 753},
            "details": {"languages": {"pages": {"en": 2400, "zh": 430, "no": 17}, "final": {"en": 666, "zh": 86,
                                                                                           "no": 1}}}}


def test_the_report_shows_thresholds_classifier_scores_and_readable_drops(browser, tmp_path):
    from selenium.webdriver.common.by import By

    page = tmp_path / "index.html"
    page.write_text(render_html(_summary()), encoding="utf-8")
    browser.get(page.as_uri())
    heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#iterations + table th")]
    assert heads[8:11] == ["classifier P", "classifier R", "classifier F1"]
    first = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#iterations + table tbody tr:first-child td")]
    assert first[8:11] == ["91.2%", "100.0%", "95.4%"]
    lines = browser.find_elements(By.CSS_SELECTOR, "line.threshold")
    assert len(lines) == 1 + 3                    # the saturation line, and one per score histogram
    texts = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "svg text")]
    assert "saturation 98%" in texts and texts.count("threshold 0.5") == 3
    points = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "svg text.point")]
    assert "99.6%" in points and all(t.endswith("%") for t in points)  # point labels as the table writes them
    assert "Norwegian (no)" in texts                                   # languages by name
    # the drops chart: one row per reason, each label clear of the others (no smear)
    drops = browser.find_element(By.CSS_SELECTOR, "#drops + figure svg.hbar")
    labels = [t for t in drops.find_elements(By.TAG_NAME, "text") if ":" in t.text]
    boxes = sorted((t.rect["y"], t.rect["y"] + t.rect["height"]) for t in labels)
    assert len(boxes) == len(drop_rows(_summary())) == 7 and all(b[0] >= a[1] - 1 for a, b in zip(boxes, boxes[1:])), boxes
    final = browser.find_element(By.CSS_SELECTOR, "#final + p").text
    assert "173,853 tokens of the final text" in final and "205,932 tokens of the same pages" in final


def _judge_server(tmp_path, ask_name=True):
    rf = RunView(RunFolder(str(tmp_path / "run")))
    strata = ["score 0.0-0.5", "score 0.5-0.9", "score 0.9-1.0"]
    pages = [{"page_id": f"p{k}", "url": f"https://askmaths.net/questions/{k}/x", "host": "askmaths.net",
              "title": f"Why is x = ±2? ({k})", "text": TEXT, "text_chars": len(TEXT), "score": 0.1 + 0.2 * (k % 5),
              "stratum": strata[k % 3], "rank": k // 3 + 1} for k in range(9)]
    jview = judge_web.JudgeView(rf, 2, "account-name", judge_web.judging_order(pages), "math", ask_name)
    return rf, judge_web.JudgeServer(jview, "127.0.0.1", 0).start()


def test_judging_is_blind_asks_the_name_once_and_renders_maths(browser, tmp_path):
    from selenium.webdriver.common.by import By

    rf, server = _judge_server(tmp_path)
    try:
        browser.get(server.url)
        wait = _wait(browser)
        name = browser.find_element(By.ID, "name")
        wait.until(lambda b: name.is_displayed())                          # asked, not the account's name
        name.send_keys("Ada")
        browser.find_element(By.ID, "setname").click()
        wait.until(lambda b: b.find_element(By.ID, "progress").text == "0 of 9 judged by you")
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#text .katex"))
        assert browser.find_element(By.ID, "judge").text == "Ada"
        # blind: no score, no stratum, until asked for
        assert not browser.find_element(By.ID, "score").is_displayed()
        assert not browser.find_element(By.ID, "stratum").is_displayed()
        # maths rendered by KaTeX (with its fonts), the TeX kept as the tooltip
        maths = browser.find_elements(By.CSS_SELECTOR, "#text .math")
        assert len(maths) == 3 and maths[0].get_attribute("title") == "$x^2 = 4$"
        assert browser.find_elements(By.CSS_SELECTOR, "#text .math.display .katex-display")
        assert "$x^2" not in browser.find_element(By.ID, "text").text
        assert browser.execute_script("return document.fonts.check('16px KaTeX_Main')")
        strata = lambda: browser.find_element(By.ID, "strata").text  # noqa: E731
        assert strata() == "judged by stratum: score 0.0-0.5 0/3 · score 0.5-0.9 0/3 · score 0.9-1.0 0/3"
        browser.find_element(By.TAG_NAME, "body").send_keys("m")
        wait.until(lambda b: b.find_element(By.ID, "progress").text == "1 of 9 judged by you")
        assert strata() == "judged by stratum: score 0.0-0.5 1/3 · score 0.5-0.9 0/3 · score 0.9-1.0 0/3"
        assert [(j["judge"], j["verdict"]) for j in jg.read_judgements(rf)] == [("Ada", "math")]
        browser.find_element(By.ID, "reveal").click()                      # the option shows them
        wait.until(lambda b: b.find_element(By.ID, "score").is_displayed())
        assert browser.find_element(By.ID, "stratum").text.startswith("score ")
        # the name is kept: a reload goes straight to judging, with Ada's verdicts
        browser.refresh()
        wait.until(lambda b: b.find_element(By.ID, "progress").text == "1 of 9 judged by you")
        assert not browser.find_element(By.ID, "namebox").is_displayed()
        assert not browser.find_element(By.ID, "score").is_displayed()     # blind again
    finally:
        server.stop()


def test_katex_files_are_served_by_name_only(tmp_path):
    import http.client

    _, server = _judge_server(tmp_path, ask_name=False)
    try:
        def get(path):
            c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.getheader("Content-Type"), r.read()

        st, ctype, body = get("/katex/katex.min.js")
        assert st == 200 and ctype.startswith("text/javascript") and b"katex" in body
        st, ctype, _ = get("/katex/fonts/KaTeX_Main-Regular.woff2")
        assert st == 200 and ctype == "font/woff2"
        for bad in ("/katex/../judge_web.py", "/katex/LICENSE", "/katex/fonts/KaTeX_Main-Regular.ttf", "/katex/"):
            assert get(bad)[0] == 404, bad
        assert get("/api/state")[0] == 403                                 # everything else still needs the token
    finally:
        server.stop()


def test_annotation_page_lines_up_columns_and_opens_one_sample_set(view, browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    server = W.AnnotateServer(view, "127.0.0.1", 0).start()
    try:
        browser.set_window_size(1200, 900)
        browser.get(server.url)
        wait = _wait(browser)
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "section.host")) == len({r["host"] for r in ROWS}))
        # the columns' left edges are the same in every host card
        edges = [tuple(th.rect["x"] for th in card.find_elements(By.TAG_NAME, "th"))
                 for card in browser.find_elements(By.CSS_SELECTOR, "section.host")]
        assert len(set(edges)) == 1, edges
        body = browser.find_element(By.TAG_NAME, "body")
        open_rows = lambda: [r for r in browser.find_elements(By.CSS_SELECTOR, "tr.samples")  # noqa: E731
                             if r.is_displayed()]
        body.send_keys("j")
        wait.until(lambda b: len(open_rows()) == 1)
        body.send_keys("j")
        wait.until(lambda b: len(open_rows()) == 1 and b.find_elements(By.CSS_SELECTOR, "tr.focus"))
        second = browser.find_element(By.CSS_SELECTOR, "tr.prefix.focus").get_attribute("data-path")
        assert open_rows()[0].find_element(By.XPATH, "preceding-sibling::tr[1]").get_attribute("data-path") == second
        body.send_keys("o")                                                 # o closes it: nothing open
        wait.until(lambda b: not open_rows())
        body.send_keys("o")
        wait.until(lambda b: len(open_rows()) == 1)
        assert open_rows()[0].find_elements(By.CSS_SELECTOR, ".math .katex")    # maths rendered here too
    finally:
        server.stop()
