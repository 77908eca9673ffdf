"""Precision and recall estimated from a judged random sample (pure: no Spark).

The frame of an iteration is every page of ``RUN/pages`` with its score in that iteration, whether
the iteration collected it, and whether its host was flagged.  It is cut into strata:

* ``collected <lo>-<hi>``: collected pages by score band (:data:`BANDS`);
* ``uncollected <lo>-<hi>``: uncollected pages of hosts that are not flagged, by score band;
* ``uncollected, flagged hosts``: the uncollected pages of flagged hosts (where misses concentrate,
  and what another iteration's path step can reach).

Sampling is hash-ordered: a page's key is :func:`sample_key` (a SHA-256 of the random seed (`judge
--seed`) and its page id,
the same number in Spark, ``spark/judge_sample.py``, and here), and the sample of a stratum is its
``k`` pages of smallest key, i.e. a simple random sample without replacement, deterministic for a
random seed.  A page's key does not depend on the iteration, so the samples of two iterations share most
pages: verdicts belong to pages, and a later iteration only needs the pages of its own strata that
nobody judged yet.

Estimation uses, per stratum, the longest judged prefix of its hash order (so stopping half-way
still leaves a random sample).  Precision and recall are over the pages a person can decide: an
"unsure" verdict is a page of its own kind, neither maths nor not, so each stratum counts
``N_h x m_h / judged_h`` decidable pages and ``N_h x x_h / judged_h`` maths pages (``m_h`` decided,
``x_h`` maths among the ``judged_h`` judged pages).  Precision is the ratio of the collected strata's
maths pages to their decidable pages (:func:`precision_estimate`, a ratio estimator: strata weighted by
their estimated decidable pages), recall the collected maths pages over all maths pages
(:func:`recall_estimate`); the estimated unsure share of the collected pages and of all pages is
reported beside them (:func:`unsure_estimate`).  Giving a stratum's unsure pages the maths share of
its decided ones, as before, drifted where unsure pages gather in one band (measured on a real-content
crawl: the interval held the precision over decidable pages in 3 of 5 samples).  The intervals are
the 2.5/97.5 percentiles of one finite-population Bayesian simulation (:func:`_posterior_totals`): per
stratum a Beta posterior of its decidable share (:data:`PRIOR_DECIDED`) and one of its maths share
among decided pages (:data:`PRIOR`); its unjudged pages are drawn Binomially as decidable, and those
Binomially as maths, so a stratum judged whole has no uncertainty and a stratum with no maths page
judged is not presumed half maths.  A
Wilson interval at the Kish effective sample size was tried for precision first: when the variance
comes from a stratum whose share differs from the whole's (a mixed low-score band under a clean
high-score one) it leans towards 1/2 and covered the truth in 91% of 200 samples on the mini-crawl;
the simulation covered in 97.5% there.
"""
from __future__ import annotations

import hashlib
import heapq
import json
import math
from dataclasses import dataclass
from typing import Iterable, Optional

from . import fs as fsmod
from .errors import InputFileError
from .profiles import get as get_profile

Z = 1.959963984540054                      # 95% two-sided
BANDS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9)     # lower edges of the score bands (the last band is 0.9-1.0)
FLAGGED = "uncollected, flagged hosts"
UNSURE = "unsure"
JUDGED_SOURCE = "judged"                   # seed rows of pages a person judged positive (judge.add_to_seed)


def verdicts(positive: str = "math") -> tuple:
    """A profile's verdicts: its label, ``not-`` + it, ``unsure`` (maths: math, not-math, unsure)."""
    return (positive, "not-" + positive, UNSURE)


VERDICTS = verdicts()


def run_positive(run) -> str:
    """The positive label of the profile a run folder was ingested with (its extraction marker's
    ``profile.name``; a run of an earlier release, or none ingested yet: maths). ``run``: a run view
    (``pipeline/runview.py``)."""
    settings = (run.stage_marker("extract") or {}).get("settings") or {}
    name = settings.get("profile.name") or "math"
    try:
        return get_profile(name).positive
    except ValueError:                  # a plugin's profile not loaded in this process: its name
        return name
DRAWS = 4000                               # simulation draws behind the recall interval
# Beta(a, b) prior of a stratum's maths share in the recall simulation: Jeffreys' 1/2 on the not-maths
# side, 0.15 on the maths side.  With Jeffreys' (1/2, 1/2) every stratum whose judged pages hold no maths
# page still adds N/(2(m+1)) maths pages to the uncollected total; summed over several such strata the
# missed pages were overstated and the recall interval covered the truth in only 79% of 200 samples
# (synthetic frame, precision 0.05); with 0.15 the synthetic frames of tests/test_judging.py cover in
# 95-97% (measured, prior chosen on them, then checked on the mini-crawl and the development crawl).
PRIOR = (0.15, 0.5)
# Beta(a, b) prior of a stratum's decidable share (decided / judged): a stratum whose judged pages were
# all decided is presumed nearly all decidable (0.1 on the unsure side), one with unsure pages is
# estimated from them.  Without unsure verdicts the estimates equal the decided-only ones.
PRIOR_DECIDED = (0.5, 0.1)
# The design guess of the maths share of uncollected pages under flagged hosts, at least: a host is flagged
# when more than 10% of its pages were collected, and the pages the path step is for sit there while their
# scores are low.  With their mean score as the guess (0.02 on the mini-crawl's iteration 1 at threshold
# 0.05, where 16 of the stratum's 95 pages are maths) the stratum got 14 of 55 uncollected judgements, a
# sample held no maths page in about 7% of draws and the recall interval covered the truth in 91% of 200
# samples; with 0.1 it gets 23 and covers in 98.5% (the same 164 judgements; 0.94 -> 0.945 at threshold
# 0.03, 0.97 -> 0.985 on the loop's own collection).
FLAGGED_GUESS = 0.1
RECALL_WIDTH = 0.05                        # the recall half-width the "how many more" advice aims at


# ---------------------------------------------------------------- strata and the sample
def band(score: Optional[float]) -> int:
    """Index of the score band of ``score`` (a page without a score is in the lowest band)."""
    s = 0.0 if score is None else float(score)
    b = 0
    for k, lo in enumerate(BANDS):
        if s >= lo:
            b = k
    return b


def band_name(b: int) -> str:
    hi = BANDS[b + 1] if b + 1 < len(BANDS) else 1.0
    return f"{BANDS[b]:.1f}-{hi:.1f}"


def stratum(collected: bool, flagged: bool, score: Optional[float]) -> str:
    if not collected and flagged:
        return FLAGGED
    return f"{'collected' if collected else 'uncollected'} {band_name(band(score))}"


def is_collected_stratum(name: str) -> bool:
    return name.startswith("collected ")


def sample_key(random_seed: int, page_id: str) -> int:
    """The page's place in the random order of ``random_seed`` (the first 60 bits of SHA-256 of
    ``"<random_seed>:<page_id>"``; ``spark/judge_sample.py`` computes the same number)."""
    return int(hashlib.sha256(f"{random_seed}:{page_id}".encode("utf-8")).hexdigest()[:15], 16)


def precision_size(n_collected: int, margin: float) -> int:
    """Judgements of collected pages for a 95% precision half-width of ``margin`` at the worst case
    p = 0.5 (simple random sampling, finite population corrected; stratifying can only narrow it),
    plus 5% for the simulated interval's Monte Carlo error and its prior (measured: at p = 0.52 the
    widest of 200 intervals was 0.0497 without them)."""
    if n_collected <= 0:
        return 0
    n0 = math.ceil(1.05 * Z * Z * 0.25 / (margin * margin))
    return min(n_collected, math.ceil(n0 / (1 + (n0 - 1) / n_collected)))


def allocate(strata: dict, margin: float, uncollected: Optional[int] = None) -> dict:
    """``{stratum: k}``: how many pages of each stratum to judge.

    ``strata``: ``{name: {"N": pages, "mean_score": ...}}``.  Collected strata share
    :func:`precision_size` in proportion to their size (with p = 0.5 everywhere Neyman's allocation is
    proportional); uncollected strata share ``uncollected`` judgements (default: half the precision
    sample) by Neyman's allocation with the stratum's mean score as the guess of its maths share
    (clamped to 0.01..0.5: a design guess only, the estimates never use it), at least
    :data:`FLAGGED_GUESS` for the uncollected pages under flagged hosts.  Every non-empty stratum
    gets at least 2 (or all its pages).
    """
    coll = {h: s for h, s in strata.items() if is_collected_stratum(h) and s["N"] > 0}
    unc = {h: s for h, s in strata.items() if not is_collected_stratum(h) and s["N"] > 0}
    n_c = sum(s["N"] for s in coll.values())
    n = precision_size(n_c, margin)
    out = {h: min(s["N"], max(2, math.ceil(n * s["N"] / n_c))) for h, s in coll.items()}
    budget = (n + 1) // 2 if uncollected is None else uncollected
    guess = {h: max(FLAGGED_GUESS, _clamp(s.get("mean_score"))) if h == FLAGGED else _clamp(s.get("mean_score"))
             for h, s in unc.items()}
    weight = {h: s["N"] * math.sqrt(guess[h] * (1 - guess[h])) for h, s in unc.items()}
    total = sum(weight.values()) or 1.0
    for h, s in unc.items():
        out[h] = min(s["N"], max(2, math.ceil(budget * weight[h] / total)))
    return out


def _clamp(p) -> float:
    return min(0.5, max(0.01, 0.01 if p is None else float(p)))


def draw(frame: Iterable[tuple], random_seed: int, sizes: dict) -> dict:
    """``{stratum: [page_id, ...]}`` in key order: the ``sizes[stratum]`` pages of smallest
    :func:`sample_key` of each stratum.  ``frame``: (page_id, score, collected, flagged) rows.
    The driver-side twin of ``spark/judge_sample.draw_sample`` (used by the tests' resampling)."""
    return draw_strata(group(frame), random_seed, sizes)


def group(frame: Iterable[tuple]) -> dict:
    """``{stratum: [page_id, ...]}`` of a driver-side frame."""
    by: dict = {}
    for pid, score, collected, flagged in frame:
        by.setdefault(stratum(bool(collected), bool(flagged), score), []).append(pid)
    return by


def draw_strata(by: dict, random_seed: int, sizes: dict) -> dict:
    """:func:`draw` on a frame already :func:`group`-ed (repeated samples of one frame group it once)."""

    return {h: [p for _, p in heapq.nsmallest(sizes.get(h, 0), ((sample_key(random_seed, p), p) for p in pids))]
            for h, pids in by.items()}


def strata_counts(frame: Iterable[tuple]) -> dict:
    """``{stratum: {"N", "mean_score"}}`` of a driver-side frame (the Spark layer computes the same)."""
    acc: dict = {}
    for _pid, score, collected, flagged in frame:
        a = acc.setdefault(stratum(bool(collected), bool(flagged), score), [0, 0.0])
        a[0] += 1
        a[1] += float(score or 0.0)
    return {h: {"N": n, "mean_score": s / n} for h, (n, s) in acc.items()}


# ---------------------------------------------------------------- verdicts
def page_verdicts(judgements: Iterable[dict]) -> dict:
    """``{page_id: verdict}``: each judge's latest verdict per page, then the majority of the
    profile's label / ``not-`` + it among judges (a tie, or only "unsure", is "unsure")."""
    latest: dict = {}
    for j in sorted(judgements, key=lambda j: str(j.get("at") or "")):
        latest[(j["page_id"], j.get("judge") or "")] = j["verdict"]
    votes: dict = {}
    for (pid, _), v in latest.items():
        c = votes.setdefault(pid, [0, 0, None])
        if v.startswith("not-"):
            c[1] += 1
            c[2] = v[len("not-"):]
        elif v != UNSURE:
            c[0] += 1
            c[2] = v
    return {pid: pos if m > n else "not-" + pos if n > m else UNSURE for pid, (m, n, pos) in votes.items()}


def cohen_kappa(judgements: Iterable[dict]) -> list[dict]:
    """Cohen's kappa for every pair of judges with pages in common (their latest verdicts)."""
    latest: dict = {}
    for j in sorted(judgements, key=lambda j: str(j.get("at") or "")):
        latest.setdefault(j.get("judge") or "", {})[j["page_id"]] = j["verdict"]
    names = sorted(latest)
    out = []
    for a_i, a in enumerate(names):
        for b in names[a_i + 1:]:
            both = sorted(set(latest[a]) & set(latest[b]))
            if not both:
                continue
            n = len(both)
            agree = sum(1 for p in both if latest[a][p] == latest[b][p]) / n
            seen = {latest[a][p] for p in both} | {latest[b][p] for p in both}
            chance = sum((sum(1 for p in both if latest[a][p] == v) / n) * (sum(1 for p in both if latest[b][p] == v) / n)
                         for v in seen)
            kappa = 1.0 if chance >= 1 else (agree - chance) / (1 - chance)
            out.append({"judges": [a, b], "pages": n, "agreement": round(agree, 4), "kappa": round(kappa, 4)})
    return out


# ---------------------------------------------------------------- estimation
@dataclass
class Stratum:
    name: str
    N: int               # pages in the stratum
    k: int               # pages drawn
    judged: int          # length of the judged prefix of its hash order
    m: int               # maths + not maths verdicts in that prefix ("unsure" left out)
    x: int               # maths verdicts in that prefix

    @property
    def collected(self) -> bool:
        return is_collected_stratum(self.name)

    @property
    def p(self) -> Optional[float]:
        return self.x / self.m if self.m else None

    @property
    def p_smooth(self) -> float:
        return (self.x + 0.5) / (self.m + 1)

    @property
    def unsure(self) -> int:
        return self.judged - self.m

    @property
    def decidable(self) -> float:
        """Estimated decidable pages of the stratum: N x decided / judged."""
        return self.N * self.m / self.judged if self.judged else 0.0

    @property
    def maths(self) -> float:
        """Estimated maths pages of the stratum: N x maths / judged."""
        return self.N * self.x / self.judged if self.judged else 0.0



def judged_strata(strata: dict, order: dict, verdicts: dict) -> list[Stratum]:
    """Per stratum, the judged prefix of its hash order.  ``strata``: ``{name: {"N", "k"}}``;
    ``order``: ``{name: [page_id, ...]}`` in key order; ``verdicts``: ``{page_id: verdict}``."""
    out = []
    for name in sorted(strata):
        s = strata[name]
        judged = m = x = 0
        for pid in order.get(name, []):
            v = verdicts.get(pid)
            if v is None:
                break
            judged += 1
            if v != UNSURE:
                m += 1
                x += not v.startswith("not-")
        out.append(Stratum(name, int(s["N"]), int(s.get("k", len(order.get(name, [])))), judged, m, x))
    return out


def precision_estimate(strata: list[Stratum], draws: int = DRAWS, random_seed: int = 0, sim=None) -> Optional[dict]:
    """Precision over decidable pages: the collected strata's estimated maths pages over their estimated
    decidable pages (a ratio estimator); interval: the 2.5 and 97.5 percentiles of the same ratio over
    :func:`_posterior_totals` (``sim``: those draws of the non-empty strata, when already made), widened
    to hold the point value.  None until every collected stratum has a maths or not-maths verdict."""
    import numpy as np

    live = [s for s in strata if s.N > 0]
    coll = [k for k, s in enumerate(live) if s.collected]
    if not coll or any(live[k].m == 0 for k in coll):
        return None
    d_c = sum(live[k].decidable for k in coll)
    value = sum(live[k].maths for k in coll) / d_c if d_c > 0 else 1.0
    if sim is None:
        sim = _posterior_totals(live, draws, random_seed)
    maths, decided = sim
    den = decided[:, coll].sum(axis=1)
    p_sim = np.where(den > 0, maths[:, coll].sum(axis=1) / np.maximum(den, 1e-12), 1.0)
    low, high = (float(q) for q in np.percentile(p_sim, [2.5, 97.5]))
    return {"value": value, "low": min(low, value), "high": max(high, value), "n": sum(live[k].m for k in coll)}


def _posterior_totals(strata: list[Stratum], draws: int, random_seed: int):
    """(maths pages, decidable pages) per stratum, simulated (each draws x strata): the judged ones plus,
    for the unjudged pages, a Binomial draw of the decidable ones at a Beta(m+a, u+b) draw of the
    stratum's decidable share (:data:`PRIOR_DECIDED`), and of the maths ones among those at a
    Beta(x+a, m-x+b) draw of its maths share (:data:`PRIOR`).  Deterministic for ``random_seed``."""
    import numpy as np

    rng = np.random.default_rng(random_seed)
    maths, decided = [], []
    for s in strata:
        rest = max(s.N - s.judged, 0)
        if rest == 0:
            maths.append(np.full(draws, float(s.x)))
            decided.append(np.full(draws, float(s.m)))
            continue
        p = rng.beta(s.x + PRIOR[0], s.m - s.x + PRIOR[1], size=draws)
        if s.unsure:
            q = rng.beta(s.m + PRIOR_DECIDED[0], s.unsure + PRIOR_DECIDED[1], size=draws)
            d = rng.binomial(rest, q).astype(float)
        else:           # no unsure page judged: as sure as the decided-only estimate (the same draws)
            d = np.full(draws, float(rest))
        x = rng.binomial(d.astype(np.int64), p).astype(float)
        maths.append(s.x + x)
        decided.append(s.m + d)
    if not maths:
        return np.zeros((draws, 0)), np.zeros((draws, 0))
    return np.column_stack(maths), np.column_stack(decided)


def unsure_estimate(strata: list[Stratum], draws: int = DRAWS, random_seed: int = 0, sim=None) -> Optional[dict]:
    """The estimated share of pages nobody can decide ("unsure"), of the collected pages and of all
    pages, each ``{value, low, high}`` (the same simulation), and ``n`` the judged pages.  None until
    every non-empty stratum has a judged page."""
    import numpy as np

    live = [s for s in strata if s.N > 0]
    if not live or any(s.judged == 0 for s in live):
        return None
    if sim is None:
        sim = _posterior_totals(live, draws, random_seed)
    _, decided = sim
    out: dict = {"n": sum(s.judged for s in live)}
    for name, idx in (("collected", [k for k, s in enumerate(live) if s.collected]),
                      ("all", list(range(len(live))))):
        n = sum(live[k].N for k in idx)
        if not idx or n == 0:
            out[name] = None
            continue
        value = 1 - sum(live[k].decidable for k in idx) / n
        u = 1 - decided[:, idx].sum(axis=1) / n
        low, high = (float(q) for q in np.percentile(u, [2.5, 97.5]))
        out[name] = {"value": value, "low": min(low, value), "high": max(high, value)}
    return out


def recall_estimate(strata: list[Stratum], draws: int = DRAWS, random_seed: int = 0, sim=None) -> Optional[dict]:
    """Recall over decidable pages = collected maths / (collected maths + uncollected maths), both
    estimated totals (N_h x x_h / judged_h).  Interval: 2.5 and 97.5 percentiles of the ratio over
    :func:`_posterior_totals`, widened to hold the point value.  Also the maths pages missed per
    uncollected stratum, their share under flagged hosts, and how many more judgements in which strata
    would bring the recall half-width to :data:`RECALL_WIDTH`.  None until every non-empty stratum has
    a maths or not-maths verdict."""
    import numpy as np

    live = [s for s in strata if s.N > 0]
    if not live or any(s.m == 0 for s in live) or not any(s.collected for s in live):
        return None
    t, _ = _posterior_totals(live, draws, random_seed) if sim is None else sim
    c_idx = [i for i, s in enumerate(live) if s.collected]
    u_idx = [i for i, s in enumerate(live) if not s.collected]
    f_idx = [i for i, s in enumerate(live) if s.name == FLAGGED]
    tc, tu = t[:, c_idx].sum(axis=1), t[:, u_idx].sum(axis=1)
    ratio = np.where(tc + tu > 0, tc / np.maximum(tc + tu, 1e-12), 1.0)
    est = {s.name: s.maths for s in live}
    e_c = sum(est[s.name] for s in live if s.collected)
    e_u = sum(est[s.name] for s in live if not s.collected)
    value = e_c / (e_c + e_u) if e_c + e_u > 0 else 1.0
    low, high = (float(q) for q in np.percentile(ratio, [2.5, 97.5]))
    missed = []
    for i, s in enumerate(live):
        if not s.collected:
            lo, hi = (float(q) for q in np.percentile(t[:, i], [2.5, 97.5]))
            missed.append({"stratum": s.name, "pages": s.N, "n": s.m, "maths": s.x, "missed": round(est[s.name], 1),
                           "low": round(lo, 1), "high": round(hi, 1)})
    share = None
    if u_idx:
        fl = t[:, f_idx].sum(axis=1) if f_idx else np.zeros(draws)
        sh = np.where(tu > 0, fl / np.maximum(tu, 1e-12), 0.0)
        e_f = sum(est[s.name] for s in live if s.name == FLAGGED)
        lo, hi = (float(q) for q in np.percentile(sh, [2.5, 97.5]))
        v = e_f / e_u if e_u > 0 else None
        share = {"value": v, "low": lo if v is None else min(lo, v), "high": hi if v is None else max(hi, v),
                 "missed_total": e_u}
    return {"value": value, "low": min(low, value), "high": max(high, value),
            "n": sum(s.m for s in live), "missed": missed, "flagged_share": share,
            "more_for_width": more_for_recall_width(live, RECALL_WIDTH)}


def more_for_recall_width(strata: list[Stratum], width: float) -> dict:
    """``{"width", "total", "by_stratum"}``: about how many more maths/not-maths judgements, in which
    strata, would bring the recall half-width to ``width`` (delta method, optimal allocation of
    n_h proportional to N_h sqrt(p(1-p)) x |dR/dT|, finite populations ignored, so an upper bound)."""
    e = {s.name: s.N * s.p_smooth for s in strata}
    tc = sum(v for h, v in e.items() if is_collected_stratum(h))
    tu = sum(v for h, v in e.items() if not is_collected_stratum(h))
    tot = tc + tu
    if tot <= 0:
        return {"width": width, "total": 0, "by_stratum": {}}
    a = {s.name: (tu if s.collected else tc) / tot ** 2 * s.N * math.sqrt(s.p_smooth * (1 - s.p_smooth))
         for s in strata}
    target_var = (width / Z) ** 2
    n_tot = sum(a.values()) ** 2 / target_var
    sa = sum(a.values()) or 1.0
    by = {}
    for s in strata:
        need = min(s.N, math.ceil(n_tot * a[s.name] / sa)) - s.m
        if need > 0:
            by[s.name] = need
    return {"width": width, "total": sum(by.values()), "by_stratum": by}


def stopping_sentence(recall: Optional[dict]) -> Optional[str]:
    """One sentence a person can act on, from the flagged hosts' share of the missed maths pages."""
    if not recall or not recall.get("flagged_share") or recall["flagged_share"]["value"] is None:
        if recall and recall.get("flagged_share"):
            return "the sample found no maths page among the uncollected ones: nothing suggests another iteration."
        return None
    sh = recall["flagged_share"]
    total = sh["missed_total"]
    pct = sh["value"]
    verdict = ("another iteration is worth it" if pct >= 0.25 else
               "another iteration's path step can reach few of them; stopping is reasonable")
    return (f"about {pct:.0%} (95% interval {sh['low']:.0%}-{sh['high']:.0%}) of the ~{total:,.0f} maths pages "
            f"still missed are under flagged hosts: {verdict}.")


def estimates(strata: dict, order: dict, verdicts: dict, random_seed: int = 0) -> dict:
    """Everything the report shows for one iteration, from its strata, sample order and verdicts."""
    st = judged_strata(strata, order, verdicts)
    live = [s for s in st if s.N > 0]
    sim = _posterior_totals(live, DRAWS, random_seed) if live and all(s.judged for s in live) else None
    prec = precision_estimate(st, random_seed=random_seed, sim=sim)
    rec = recall_estimate(st, random_seed=random_seed, sim=sim)
    return {
        "estimated_precision": prec,
        "estimated_recall": None if rec is None else {k: rec[k] for k in ("value", "low", "high", "n")},
        # beside them: the share of pages judged "unsure" (precision and recall are over the others)
        "estimated_unsure": unsure_estimate(st, random_seed=random_seed, sim=sim),
        "strata": [{"stratum": s.name, "pages": s.N, "drawn": s.k, "judged": s.judged, "n": s.m, "maths": s.x,
                    "unsure": s.unsure} for s in st],
        "missed": rec["missed"] if rec else [],
        "flagged_share": rec["flagged_share"] if rec else None,
        "more_for_recall_width": rec["more_for_width"] if rec else None,
        "stopping": stopping_sentence(rec),
        "judged": sum(s.judged for s in st),
        "to_judge": sum(max(s.k - s.judged, 0) for s in st),
    }


# ---------------------------------------------------------------- the run folder's judging data
SAMPLE_STAGE = "judge_sample"        # RUN/iter=NNN/judge_sample/: the drawn sample (committed stage)
SAMPLE_FILE = "sample.jsonl"
JUDGEMENTS = "judgements"            # RUN/judgements/judgements.jsonl: every verdict, who and when
JUDGEMENTS_FILE = "judgements.jsonl"


def check_judgement(obj, where: str, positive: str = "math") -> dict:
    """A judgement record, validated: ``{"page_id", "verdict", "judge", "at"[, "url"]}``, its verdict
    one of the profile's (:func:`verdicts` of ``positive``); raises ValueError naming what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: a judgement must be a JSON object")
    for k in ("page_id", "judge", "at"):
        if not isinstance(obj.get(k), str) or not obj[k].strip() or len(obj[k]) > 500:
            raise ValueError(f"{where}: {k!r} must be a non-empty string (at most 500 characters)")
    allowed = verdicts(positive)
    if obj.get("verdict") not in allowed:
        raise ValueError(f"{where}: 'verdict' must be one of {', '.join(allowed)}, got {obj.get('verdict')!r}")
    if obj.get("url") is not None and not isinstance(obj["url"], str):
        raise ValueError(f"{where}: 'url' must be a string")
    return {"page_id": obj["page_id"], "url": obj.get("url"), "verdict": obj["verdict"], "judge": obj["judge"],
            "at": obj["at"]}


def judgements_path(run) -> str:
    return fsmod.join(run.path(JUDGEMENTS), JUDGEMENTS_FILE)


def read_judgements(run) -> list[dict]:
    """Every judgement of the run folder (a run view), with the verdicts of its profile (an unreadable
    line raises InputFileError)."""

    path = judgements_path(run)
    if not run.fs.exists(path):
        return []
    positive = run_positive(run)
    out = []
    for n, line in enumerate(run.fs.read_text(path).splitlines(), 1):
        if line.strip():
            try:
                out.append(check_judgement(json.loads(line), f"line {n}", positive))
            except ValueError as e:
                raise InputFileError(path, str(e), n) from None
    return out


def merge(old: list[dict], new: list[dict]) -> list[dict]:
    """``old`` plus ``new`` without exact repeats (a judge's re-verdict is kept: the latest wins)."""
    seen = {(j["page_id"], j["judge"], j["at"], j["verdict"]) for j in old}
    out = list(old)
    for j in new:
        k = (j["page_id"], j["judge"], j["at"], j["verdict"])
        if k not in seen:
            seen.add(k)
            out.append(j)
    return out


def write_judgements(run, rows: list[dict]) -> str:
    """One plain write of the whole file (no rename: the same on every filesystem)."""

    path = judgements_path(run)
    run.fs.mkdirs(run.path(JUDGEMENTS))
    run.fs.write_text(path, "".join(json.dumps(j, ensure_ascii=False, sort_keys=True) + "\n" for j in rows))
    return path


def read_sample(run, iteration: int) -> Optional[tuple[dict, list[dict]]]:
    """(the sample stage's counts, its rows in stratum and rank order), or None when not drawn. ``run``: a
    run view."""

    path = run.location(SAMPLE_STAGE, iteration)
    m = run.marker(path)
    if m is None:
        return None
    text = run.fs.read_text(fsmod.join(run.data(path), SAMPLE_FILE))
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return m.get("counts", {}), sorted(rows, key=lambda r: (r["stratum"], r["rank"]))


def iteration_estimates(run, iteration: int, verdicts: dict) -> Optional[dict]:
    """:func:`estimates` of an iteration whose sample was drawn (None otherwise)."""
    got = read_sample(run, iteration)
    if got is None:
        return None
    counts, rows = got
    order: dict = {}
    for r in rows:
        order.setdefault(r["stratum"], []).append(r["page_id"])
    out = estimates(counts["strata"], order, verdicts, random_seed=int(counts.get("seed", 0)))
    out.update(seed=counts.get("seed"), margin=counts.get("margin"))
    if counts.get("excluded_seed_pages"):         # judged pages the seed trained on, not in the frame
        out["excluded_seed_pages"] = counts["excluded_seed_pages"]
    return out
