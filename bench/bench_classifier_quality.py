"""The loop's first classifier on real pages in no training set, by site, English and Chinese apart.

Sites: a labeled page's host; a text source's repository.  Training and evaluation never share a
site.  The first classifier as the loop trains it: positives are a seed (the shipped starter seed,
or a candidate), negatives are random crawl pages drawn as ``spark/classify.training_sets`` draws
them (no page with maths markup, per language in the positives' proportions, the shipped
background set where the crawl has too few of a language).  The crawl is the development crawl
(``devtools.devcrawl``); its pages are extracted with the bulk extractor, as ``RUN/pages``
holds them.

* **English**: the labeled real pages (``labeled/``: llm-webkit, article and trafilatura
  benchmarks) split by site into a *tuning* half and an *evaluation* half (a hash of the site).
  A half is scored by a classifier whose negatives come from the crawl without that half's sites;
  defaults are chosen on the tuning half and reported on the evaluation half.
* **Chinese** (leave one site out): fold *A* holds out oi-wiki.org whole (its maths from the seed,
  its non-maths pages from the crawl) and is scored on them; fold *B* holds out the pumpkin-book
  (seed) and docs.pingcap.com (crawl; its background texts too) and is scored on them.  Fold A
  tunes, fold B reports.

``python -m bench classifier_quality`` prints precision, recall and average precision at the
default threshold for each seed candidate (``SEEDS`` below; ``BENCH_QUALITY_SEEDS`` picks some).
"""
from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_P, TARGET_R = 0.9, 0.85


def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


def half(site: str) -> str:
    return "tune" if hashlib.sha1(site.encode("utf-8")).digest()[0] & 1 == 0 else "eval"


def load(data: Path) -> dict:
    """The development crawl's pages as the loop's pages table holds them (bulk text, markup, language)."""
    from devtools import devcrawl
    from corpus_pipeline.config import Config
    from corpus_pipeline.extract import Extracted, extract_html
    from corpus_pipeline.seeds import load_seed_records

    ic = Config().ingest
    pages = []
    for p in devcrawl.collect(str(data)):
        html = p["html"].decode("utf-8", "replace")
        e = extract_html(html, p["url"], timeout_s=60, extractor=ic.extractor)
        if not (isinstance(e, Extracted) and len(e.text.strip()) >= ic.min_text_chars) and ic.fallback():
            e = extract_html(html, p["url"], timeout_s=60, extractor=ic.fallback(), favor="fast")
        if not isinstance(e, Extracted) or len(e.text.strip()) < ic.min_text_chars:
            continue
        pages.append({"url": p["url"], "site": p["site"], "label": p["label"], "source": p["source"],
                      "text": e.text, "markup": bool(e.has_math_markup), "lang": e.lang or "und"})
    return {"pages": pages, "seed": load_seed_records(None)}


def draw_negatives(pos: list[dict], crawl: list[dict], n_neg: int, rnd: int = 1, skip_sites=()) -> list[str]:
    """Random crawl pages as ``training_sets`` draws them: the same plan (``classify.negative_plan``),
    the pages of each language by a seeded shuffle instead of the hash order."""
    from corpus_pipeline import classify as C
    from corpus_pipeline.seeds import load_background

    cand = [p for p in crawl if not p["markup"]]
    pos_langs: dict = {}
    for d in pos:
        pos_langs[d["lang"]] = pos_langs.get(d["lang"], 0) + 1
    avail: dict = {}
    for p in cand:
        avail[p["lang"]] = avail.get(p["lang"], 0) + 1
    bg = {lang: [t for t, site in load_background(lang, with_sites=True) if site not in skip_sites]
          for lang in pos_langs}
    out = []
    for lang, (n_crawl, n_bg, n_rep) in C.negative_plan(pos_langs, avail, {k: len(v) for k, v in bg.items()},
                                                        n_neg).items():
        pool = [p for p in cand if (p["lang"] not in pos_langs if lang == C.OTHER_LANGUAGES else p["lang"] == lang)]
        random.Random(f"{rnd}:{lang}").shuffle(pool)
        got = [p["text"] for p in pool[:n_crawl]] + bg.get(lang, [])[:n_bg]
        if n_rep:                                      # repeated to the quota, as training_sets does
            got = (got * ((len(got) + n_rep) // len(got) + 1))[:len(got) + n_rep]
        out += got
    return out


def _score(seed: list[dict], crawl: list[dict], evaluate: list[dict], cfg, skip_sites=()) -> list[tuple]:
    from corpus_pipeline import classify as C

    neg = draw_negatives(seed, crawl, int(round(len(seed) * cfg.negatives_per_positive)), skip_sites=skip_sites)
    model = C.train_model([d["text"] for d in seed], neg, cfg, random_seed=1)
    return list(zip(C.predict_proba(model, [p["text"] for p in evaluate], cfg), evaluate))


def measure(d: dict, seed: list[dict] = None, cfg=None) -> dict:
    """pr_metrics per evaluation set: en/tune, en/eval (labeled real pages), zh/A, zh/B (leave one site out)."""
    from corpus_pipeline import classify as C
    from corpus_pipeline.config import ClassifierConfig

    cfg = cfg or ClassifierConfig()
    seed = seed if seed is not None else d["seed"]
    pages = d["pages"]
    labeled = [p for p in pages if p["source"] == "labeled_html" and p["label"] in ("math", "non-math")
               and p["lang"] != "zh"]
    out, errors = {}, []
    for h in ("tune", "eval"):
        ev = [p for p in labeled if half(p["site"]) == h]
        sites = {p["site"] for p in ev}
        crawl = [p for p in pages if p["site"] not in sites]
        scored = _score(seed, crawl, ev, cfg)
        out[f"en/{h}"] = C.pr_metrics([s for s, _ in scored], [p["label"] == "math" for _, p in scored])
        errors += [(round(s, 3), p["label"], p["url"]) for s, p in scored if (s >= 0.5) != (p["label"] == "math")]
    folds = {"A": ({"oi-wiki.org", "OI-wiki/OI-wiki"}, ()),
             "B": ({"datawhalechina.github.io", "datawhalechina/pumpkin-book", "docs.pingcap.com"},
                   ("docs.pingcap.com",))}
    for name, (held, bg_skip) in folds.items():
        s_in = [r for r in seed if r["site"] not in held]
        maths = [{"url": r["url"], "text": r["text"], "label": "math"} for r in seed if r["site"] in held]
        maths += [p for p in pages if p["site"] in held and p["label"] == "math" and p["lang"] == "zh"]
        others = [p for p in pages if p["site"] in held and p["label"] == "non-math" and p["lang"] == "zh"]
        crawl = [p for p in pages if p["site"] not in held]
        scored = _score(s_in, crawl, maths + others, cfg, skip_sites=bg_skip)
        out[f"zh/{name}"] = C.pr_metrics([s for s, _ in scored], [p["label"] == "math" for _, p in scored])
        errors += [(round(s, 3), p["label"], p["url"]) for s, p in scored if (s >= 0.5) != (p["label"] == "math")]
    out["_errors"] = sorted(errors)
    return out


def candidate_seeds(data: Path) -> dict:
    """Seed candidates built in memory from the test data (``seeds/build_seed.py``'s rules)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_seed", ROOT / "seeds" / "build_seed.py")
    bs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bs)
    base = bs.BASE_SOURCES
    web = data / "text" / "web_sources" / "math_web_en.jsonl.gz"
    docs = data / "text" / "seed_sources" / "math_docs.jsonl"

    def seed(extra):
        return [dict(r, site=r.get("source_repo") or r["domain"]) for r in bs.build(docs, web, base | set(extra))]
    return {"maths docs only (before)": seed(()),
            "+ Napkin": seed({"vEnhance/napkin"}),
            "+ StatProofBook": seed({"StatProofBook/StatProofBook.github.io"}),
            "+ Napkin + StatProofBook": seed({"vEnhance/napkin", "StatProofBook/StatProofBook.github.io"})}


def main() -> None:
    import time

    t0 = time.time()
    data = data_dir()
    d = load(data)
    print(f"{len(d['pages'])} development-crawl pages extracted in {time.time() - t0:.0f} s; "
          f"shipped seed {len(d['seed'])} documents")
    wanted = [v.strip() for v in os.environ.get("BENCH_QUALITY_SEEDS", "").split(",") if v.strip()]
    seeds = {"shipped starter seed": d["seed"]}
    if os.environ.get("BENCH_QUALITY_CANDIDATES", "1") != "0":
        seeds.update(candidate_seeds(data))
    f = lambda x: "n/a" if x is None else f"{x:.3f}"    # noqa: E731
    print(f"\ntargets at the default threshold: precision >= {TARGET_P}, recall >= {TARGET_R}")
    print("\n| seed | docs | eval set | maths | non-maths | precision | recall | avg. precision |\n"
          "|---|---:|---|---:|---:|---:|---:|---:|")
    for name, seed in seeds.items():
        if wanted and name not in wanted:
            continue
        res = measure(d, [dict(r, site=r.get("site") or r.get("source_repo") or r["domain"]) for r in seed])
        for k, m in res.items():
            if k.startswith("_"):
                continue
            print(f"| {name} | {len(seed)} | {k} | {m['n_positive']} | {m['n_negative']} | {f(m['precision'])} | "
                  f"{f(m['recall'])} | {f(m['average_precision'])} |", flush=True)
        if name == "shipped starter seed":
            print("errors:", res["_errors"][:40])


if __name__ == "__main__":
    main()
