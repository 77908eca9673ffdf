"""The labels playing the person: repeated judging samples of one frame, drawn by the product's own
sampler (``judging.draw``, the driver-side twin of the Spark draw) and estimated by its estimators.
Shared by the synthetic tests, the mini-crawl run and the development crawl."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from corpus_pipeline import judging as jg


def driver_frame(run: Path, iteration: int, labels: Path, threshold: float = None, unlabelled: bool = False):
    """(frame rows (page_id, score, collected, flagged), {page_id: "math" | "not-math"}) of a run's
    iteration; with ``threshold`` the collection is rerun on the driver as score >= threshold.
    Pages without a maths / non-maths label are left out (the truth must be known) unless
    ``unlabelled`` (the whole frame, as the product samples it)."""
    import pyarrow.parquet as pq

    from corpus_pipeline.runfolder import committed_data

    def table(stage):
        return pq.read_table(committed_data(str(run / stage))).to_pylist()

    it = f"iter={iteration:03d}"
    pages = table("pages")
    scores = {r["page_id"]: r["score"] for r in table(f"{it}/scores")}
    collected = {r["page_id"] for r in table(f"{it}/collected")}
    flagged = {r["host"] for r in table(f"{it}/domains") if r["flagged"]}
    lab = {}
    for line in open(labels, encoding="utf-8"):
        r = json.loads(line)
        lab[r["url"]] = r["label"]
    frame, truth = [], {}
    for p in pages:
        if lab.get(p["url"]) not in ("math", "non-math") and not unlabelled:
            continue            # unlabelled pages are left out of the frame: the truth must be known
        s = scores.get(p["page_id"])
        c = (s is not None and s >= threshold) if threshold is not None else p["page_id"] in collected
        frame.append((p["page_id"], s, c, (p["host"] or "").lower() in flagged))
        truth[p["page_id"]] = "math" if lab.get(p["url"]) == "math" else "not-math"
    return frame, truth


def coverage(frame, truth, margin: float, reps: int, seed0: int = 0) -> dict:
    """Over ``reps`` samples (seeds seed0..): how often the 95% intervals hold the true precision and
    recall over decidable pages (a truth of "unsure" is a page nobody can decide: the judge says so),
    the precision half-widths, the flagged hosts' share of missed maths and the unsure share of the
    collected pages (estimate vs truth)."""
    coll = [p for p, _, c, _ in frame if c]
    hit = sum(truth[p] == "math" for p in coll)
    decided = [p for p in coll if truth[p] != jg.UNSURE]
    missed = [p for p, _, c, _ in frame if not c and truth[p] == "math"]
    tp, tr = hit / len(decided), hit / (hit + len(missed))
    tu = 1 - len(decided) / len(coll)
    flagged = {p for p, _, c, f in frame if f and not c}
    share = sum(p in flagged for p in missed) / len(missed) if missed else None
    counts = jg.strata_counts(frame)
    sizes = jg.allocate(counts, margin)
    strata = {h: {"N": c["N"], "k": sizes[h]} for h, c in counts.items()}
    by = jg.group(frame)
    cp = cr = cs = cu = 0
    hw, shares, ps = [], [], []
    for r in range(reps):
        e = jg.estimates(strata, jg.draw_strata(by, seed0 + r, sizes), truth, random_seed=r)
        p, rc, sh = e["estimated_precision"], e["estimated_recall"], e["flagged_share"]
        u = e["estimated_unsure"]["collected"]
        cp += p["low"] <= tp <= p["high"]
        cr += rc["low"] <= tr <= rc["high"]
        cu += u["low"] <= tu <= u["high"]
        ps.append(p["value"])
        hw.append((p["high"] - p["low"]) / 2)
        if sh and share is not None:
            cs += sh["low"] <= share <= sh["high"]
            if sh["value"] is not None:
                shares.append(sh["value"])
    return {"reps": reps, "precision": tp, "recall": tr, "precision_coverage": cp / reps,
            "recall_coverage": cr / reps, "precision_mean": statistics.mean(ps), "unsure": tu,
            "unsure_coverage": cu / reps, "median_half_width": statistics.median(hw), "max_half_width": max(hw),
            "share": share, "share_mean": statistics.mean(shares) if shares else None,
            "share_coverage": cs / reps, "judgements": sum(sizes.values()), "pages": len(frame)}
