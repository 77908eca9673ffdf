"""judge.add_to_seed: pages judged maths (majority verdict) join the next seed like marked pages,
counted apart; nothing changes without it; a later iteration's judging sample frame leaves them out."""
from __future__ import annotations

import pytest

from corpus_pipeline import schemas

pytestmark = pytest.mark.spark

# (page_id, host, path, collected in iteration 1)
PAGES = [("a1", "h.org", "/a/1", False), ("a2", "h.org", "/a/2", False),      # under the mark /a/
         ("b1", "h.org", "/b/1", False), ("b2", "h.org", "/b/2", False), ("b3", "h.org", "/b/3", False),
         ("b4", "h.org", "/b/4", False), ("c1", "h.org", "/c/1", True), ("s1", "g.org", "/s", False)]
T = "2026-01-01T00:00:0{}Z"
JUDGEMENTS = [
    {"page_id": "b1", "verdict": "math", "judge": "x", "at": T.format(1)},          # joins
    {"page_id": "b2", "verdict": "not-math", "judge": "x", "at": T.format(1)},      # never
    {"page_id": "b3", "verdict": "unsure", "judge": "x", "at": T.format(1)},        # never
    {"page_id": "b4", "verdict": "math", "judge": "x", "at": T.format(1)},          # a tie: unsure
    {"page_id": "b4", "verdict": "not-math", "judge": "y", "at": T.format(2)},
    {"page_id": "c1", "verdict": "math", "judge": "x", "at": T.format(1)},          # collected: joins too
    {"page_id": "a1", "verdict": "math", "judge": "x", "at": T.format(1)},          # joins under the mark
    {"page_id": "s1", "verdict": "math", "judge": "x", "at": T.format(1)},          # a seed already
    {"page_id": "zz", "verdict": "math", "judge": "x", "at": T.format(1)},          # not a page of the run
    {"page_id": "b2", "verdict": "math", "judge": "y", "at": T.format(3)},          # 1 to 1 ... still a tie
]


def _commit(run, path, df, ddl):
    from corpus_pipeline.spark.io import write_table

    run.stage(path, lambda staging: write_table(df, staging, ddl) or {}, log=lambda *_: None)


def _setup(spark, tmp_path, name):
    from corpus_pipeline import judging as jg
    from corpus_pipeline.pipeline.runview import RunView
    from corpus_pipeline.runfolder import RunFolder
    from corpus_pipeline.spark.io import rows_to_df

    run = RunView(RunFolder(str(tmp_path / name), spark))

    pages = rows_to_df(spark, [schemas.row(schemas.PAGES, {
        "page_id": p, "url": f"https://{h}{q}", "host": h, "path": q, "title": p, "text": f"text of {p}",
        "n_tokens": 10, "has_math_markup": False}) for p, h, q, _ in PAGES], schemas.PAGES)
    _commit(run, run.location("pages"), pages, schemas.PAGES)
    seed = rows_to_df(spark, [("s:0", None, "seed", 1, "a seed text"), ("p:s1", "s1", "path:g.org/", 1, None)],
                      schemas.SEED)
    _commit(run, run.location("seed", 1), seed, schemas.SEED)
    scores = rows_to_df(spark, [(p, 0.9 if c else 0.2) for p, _, _, c in PAGES], schemas.SCORES)
    _commit(run, run.location("scores", 1), scores, schemas.SCORES)
    collected = rows_to_df(spark, [(p, 0.9, 10) for p, _, _, c in PAGES if c], schemas.COLLECTED)
    _commit(run, run.location("collected", 1), collected, schemas.COLLECTED)
    jg.write_judgements(run, [jg.check_judgement(dict(j, url=None), "t") for j in JUDGEMENTS])
    return run, pages, seed, collected


@pytest.fixture(scope="module")
def grown(spark, tmp_path_factory):
    """The seed of iteration 2 grown with judge.add_to_seed true and false (one run folder each)."""
    base = tmp_path_factory.mktemp("judged_seed")
    return {flag: _grow(spark, base, flag) for flag in (True, False)}


def _grow(spark, tmp_path, add_to_seed: bool):
    from corpus_pipeline.annotate import Mark
    from corpus_pipeline.config import Config
    from corpus_pipeline.loop import Loop, LoopInputs

    name = f"run_{add_to_seed}"
    run, pages, seed, collected = _setup(spark, tmp_path, name)
    cfg = Config()
    cfg.judge.add_to_seed = add_to_seed
    from corpus_pipeline import annotate as ann

    adir = run.location("annotations", 1)                 # iteration 1's marks: the prefix /a/ of h.org
    ann.write_worksheet(adir, [], [Mark(host="h.org", prefix="/a/")], 1)
    run.commit_in_place(adir, {"marks": 1})
    loop = Loop(spark, LoopInputs(inputs=[], run=str(tmp_path / name)), cfg, log=lambda *_: None)
    loop.runner.ensure(loop.recipe["seed"], 2)
    path = run.location("seed", 2)
    rows = loop.runner.read_table(path, schemas.SEED).collect()
    return run, {r["page_id"]: r["source"] for r in rows if r["added_in"] == 2}, run.marker(path)


def test_judged_maths_pages_join_the_next_seed_only_when_asked(grown):
    run, added, marker = grown[True]
    assert added == {"a1": "path:h.org/a/", "a2": "path:h.org/a/", "b1": "judged", "c1": "judged"}
    c = marker["counts"]
    assert c["seed_added"] == 4 and c["seed_added_judged"] == 2 and c["seed_positives"] == 6
    assert marker["settings"]["judge.add_to_seed"] is True
    assert marker["config"]["judge"]["judged_maths_pages"] == 5    # verdicts: a1, b1, c1, s1, zz (no page)

    _, added_off, marker_off = grown[False]
    assert added_off == {"a1": "path:h.org/a/", "a2": "path:h.org/a/"}
    assert "seed_added_judged" not in marker_off["counts"] and "judge" not in marker_off["config"]
    assert marker_off["counts"]["seed_added"] == 2 and marker_off["settings"]["judge.add_to_seed"] is False
    # off: the marker's counts and config exactly as before the setting existed
    assert set(marker_off["counts"]) == {"seed_positives", "seed_added", "seed_under_marks"}
    assert set(marker_off["config"]) == {"annotate"}


def test_a_later_iterations_sample_frame_leaves_the_judged_seed_pages_out(spark, grown):
    from corpus_pipeline import judging as jg
    from corpus_pipeline.commands.judge import ensure_sample
    from corpus_pipeline.report.summary import build_summary
    from corpus_pipeline.spark.io import rows_to_df

    run, added, _ = grown[True]
    # iteration 2: every page scored, the judged seed pages (and a1) collected now
    coll2 = {"a1", "b1", "c1"}
    _commit(run, run.location("collected", 1), rows_to_df(spark, [("c1", 0.9, 10)], schemas.COLLECTED),
            schemas.COLLECTED)                       # the summary's iteration 1 (its next seed's counts)
    _commit(run, run.location("scores", 2),
            rows_to_df(spark, [(p, 0.9 if p in coll2 else 0.1) for p, *_ in PAGES], schemas.SCORES), schemas.SCORES)
    _commit(run, run.location("collected", 2),
            rows_to_df(spark, [(p, 0.9, 10) for p in sorted(coll2)], schemas.COLLECTED), schemas.COLLECTED)
    _commit(run, run.location("domains", 2),
            rows_to_df(spark, [("h.org", 7, 3, 3 / 7, False), ("g.org", 1, 0, 0.0, False)], schemas.DOMAINS),
            schemas.DOMAINS)
    counts = ensure_sample(spark, run, 2, 1, 0.2, None, log=lambda *_: None)
    assert counts["excluded_seed_pages"] == 2
    assert sum(s["N"] for s in counts["strata"].values()) == len(PAGES) - 2
    _, rows = jg.read_sample(run, 2)
    assert rows and not {r["page_id"] for r in rows} & {"b1", "c1"}
    est = jg.iteration_estimates(run, 2, jg.page_verdicts(jg.read_judgements(run)))
    assert est["excluded_seed_pages"] == 2
    s = build_summary(run)
    assert s["judging"]["excluded_seed_pages"] == {2: 2} and s["judging"]["added_to_seed"] == 2
    from corpus_pipeline.report.html import judging_section

    html = judging_section(s)
    assert "2 judged pages this iteration" in html and "judge.add_to_seed = true" in html
