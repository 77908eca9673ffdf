"""summary.json from the run folder (no Spark: only commit markers are read).

Each number is an aggregation of the counts a stage committed, so a report
rebuilt later (``corpus-pipeline report RUN``) says exactly what the run did.
"""
from __future__ import annotations

import json
from typing import Optional

from .. import annotate
from .. import fs as fsmod
from .. import judging
from ..pipeline.runview import RunView
from ..runfolder import RunFolder
from .card import write_card
from .html import render_html
from .markdown import render_markdown


def _classifier(m: dict) -> dict:
    return {k: m.get(k) for k in ("precision", "recall", "f1")}


def _marks(run: RunFolder, i: int) -> tuple[list, list]:
    """Marks of iteration i (path, who put it there, who first decided, since) and its rejections."""

    adir = run.location("annotations", i)
    if not run.is_committed(adir):
        return [], []
    try:
        marks = annotate.read_marks(fsmod.join(adir, annotate.MARKED), None, getattr(run, "_spark", None))
        rejected = annotate.read_rejections(adir, None, getattr(run, "_spark", None))
    except Exception:  # noqa: BLE001 - a report never fails on a file a person edited; counts stay
        return [], []
    return ([{"path": m.path, "decided_by": m.decided_by, "first_decided_by": m.first_decider, "since": m.since}
             for m in marks], [m.path for m in rejected])


def _judging(run: RunFolder) -> tuple[dict, dict]:
    """(page verdicts, the run's judging summary) from RUN/judgements (empty when nobody judged)."""

    try:
        js = judging.read_judgements(run)
    except Exception as e:  # noqa: BLE001 - a report never fails on a file people add to
        return {}, {"judgements": 0, "error": str(e)}
    return judging.page_verdicts(js), {"judgements": len(js), "pages": len({j["page_id"] for j in js}),
                                  "judges": sorted({j["judge"] for j in js}), "agreement": judging.cohen_kappa(js),
                                  "file": judging.judgements_path(run) if js else None}


def build_summary(run: RunFolder) -> dict:
    run = RunView.of(run)               # stages by name, from the recipe the run was built with
    iterations = []
    verdicts, judging_summary = _judging(run)
    nums = [i for i in run.iterations() if run.committed("collected", i)]
    for i in nums:
        col = run.stage_counts("collected", i)
        seed = run.stage_counts("seed", i)
        nxt = run.stage_counts("seed", i + 1)
        model = run.stage_counts("model", i)
        dom = run.stage_counts("domains", i)
        ev = run.stage_marker("eval", i)
        marked = run.stage_counts("annotations", i)
        scores = run.stage_counts("scores", i)
        chosen = (run.stage_marker("collected", i) or {}).get("settings") or {}
        marks, rejected = _marks(run, i)
        est = judging.iteration_estimates(run, i, verdicts)
        iterations.append({
            "iteration": i,
            "collected_pages": col.get("collected_pages", 0),
            "collected_tokens": col.get("collected_tokens", 0),
            "overlap_with_previous": col.get("overlap_with_previous"),
            "new_pages": col.get("new_pages", 0),
            "flagged_domains": dom.get("flagged_domains", 0),
            "seed_positives": seed.get("seed_positives", 0),
            "seed_added": nxt.get("seed_added", 0),
            "classifier": _classifier(model),
            "true_precision": ev["counts"].get("true_precision") if ev else None,
            "true_recall": ev["counts"].get("true_recall") if ev else None,
            # from a judged random sample (`corpus-pipeline judge`); None until every stratum has a verdict
            "estimated_precision": est["estimated_precision"] if est else None,
            "estimated_recall": est["estimated_recall"] if est else None,
            # extensions
            "domains": dom.get("domains"),
            "top_flagged_domains": dom.get("top_flagged", []),
            "marked_prefixes": marked.get("marked", []),
            "marks_decided_by": marked.get("decided_by", {}),
            "marks": marks,
            "rejected_prefixes": rejected,
            "score_histogram": scores.get("histogram", []),
            # the score a page needed to be collected (select.mode = threshold; None for a token budget)
            "select_threshold": chosen.get("select.threshold") if chosen.get("select.mode") == "threshold" else None,
            "classifier_detail": {k: v for k, v in model.items() if k not in ("precision", "recall", "f1")},
            "seed_added_precision": nxt.get("seed_added_precision"),     # with labels only
            "judging": est,        # strata, missed pages, flagged hosts' share, what more judging would buy
        })
        if "seed_added_judged" in nxt:     # judge.add_to_seed: pages judged maths that joined the next seed
            iterations[-1]["seed_added_judged"] = nxt["seed_added_judged"]
    # an iteration whose collection grew while its seed did not: the classifier moved with no new evidence
    for prev, it in zip(iterations, iterations[1:]):
        it["drift_warning"] = (it["collected_pages"] > prev["collected_pages"]
                               and it["seed_positives"] <= prev["seed_positives"])
    if iterations:
        iterations[0]["drift_warning"] = False
    added = [it["seed_added_judged"] for it in iterations if "seed_added_judged" in it]
    if added:                              # judge.add_to_seed was set when a seed was grown
        judging_summary["added_to_seed"] = sum(added)
    excluded = {it["iteration"]: it["judging"]["excluded_seed_pages"] for it in iterations
                if (it.get("judging") or {}).get("excluded_seed_pages")}
    if excluded:                           # judged seed pages left out of those iterations' sample frames
        judging_summary["excluded_seed_pages"] = excluded
    state = run.read_json(run.path("loop.json"), {}) or {}
    fin = run.stage_counts("corpus")
    canaries = run.stage_counts("canaries") if run.committed("canaries") else None
    pages = run.stage_marker("pages", exact=True) or {}        # the ingest counts (a filter after it: its own)
    summary = {
        "iterations": iterations,
        "stopped_because": state.get("stopped_because"),
        "final": {
            "pages": fin.get("pages", 0) if fin else None,
            "tokens": fin.get("tokens", 0) if fin else None,
            "pages_removed_by_decontamination": fin.get("pages_removed_by_decontamination"),
            "segments_removed": fin.get("segments_removed"),
            # where the final stage commits the corpus, relative to the run folder (from the run's recipe)
            "folder": run.stage_entry("corpus")["path"],
        },
        # extensions
        "run": run.uri,
        # loop.saturation: the overlap with the previous iteration at which the loop stops
        "saturation": (((run.read_json(run.path("run.json"), {}) or {}).get("config") or {}).get("loop") or {}).get(
            "saturation"),
        "marked_file": state.get("marked_file"),
        # why the loop saturated: "overlap" (the 98% rule) or "seed_unchanged" (the next iteration would repeat)
        "stop_detail": state.get("stop_detail"),
        "ingest": pages.get("counts", {}),
        "decontamination": fin.get("decontam"),
        # planted-item canaries (RUN/final/canaries): the rules measured on benchmark items planted in copies
        # of corpus pages, per item kind; not recall against unknown leaks
        "decontamination_canaries": canaries,
        # final.extractor: pages re-extracted, and why the others kept their bulk text
        "reextraction": fin.get("reextraction"),
        # judgements of sampled pages (`corpus-pipeline judge`): how many, by whom, their agreement
        "judging": judging_summary,
    }
    return summary


def write_report(run: RunFolder, echo: Optional[callable] = None, spark=None,
                 details: Optional[dict] = None) -> dict:
    """Writes summary.json, index.html and summary.md, and the final corpus's dataset card.  With a SparkSession (given, or the run
    folder's own) the report also shows sample pages, mark growth, near duplicates, decontamination
    removals and languages (``details``, read from the tables); without one, ``details`` when given
    (``judge`` keeps the last report's: judging changes no table)."""
    run = RunView.of(run)
    summary = build_summary(run)
    spark = spark if spark is not None else getattr(run, "_spark", None)
    if spark is not None and run.committed("pages"):
        from ..spark.report_details import collect_details

        summary["details"] = collect_details(spark, run)
    elif details is not None:
        summary["details"] = details
    out = run.report_dir
    run.fs.mkdirs(out)
    run.fs.write_text(fsmod.join(out, "summary.json"), json.dumps(summary, indent=2, ensure_ascii=False,
                                                                  default=str))
    run.fs.write_text(fsmod.join(out, "index.html"), render_html(summary))
    md = render_markdown(summary)
    run.fs.write_text(fsmod.join(out, "summary.md"), md)
    write_card(run, summary)         # the corpus's README.md, once the corpus is committed
    if echo:
        echo(md)
    return summary
