"""The code domain ("programming tutorials and Q&A"): how far the first classifier gets with the
code starter seed, on the labelled mini-crawl and on real pages (not part of the product).

    python -m bench.code_domain [--pages 3000] [--random-seed 1] [--seed-file F] [--json OUT]

What it does, with the project's own pieces and default settings:

1. ``corpus-pipeline minicrawl --pages N --random-seed S --label-domain code`` into a temporary
   folder (``labels_code.jsonl``: ``code`` / ``non-code`` for every URL);
2. the crawl's pages extracted as the loop's ingest extracts them
   (:func:`corpus_pipeline.ingest.process_source`, default ``Config().ingest``);
3. fastText trained as the loop trains its first classifier
   (:func:`corpus_pipeline.classify.train_model`, ``ClassifierConfig()`` defaults): positives the
   code seed (``seeds/code/starter_seed.jsonl.gz``), negatives ``negatives_per_positive`` x as many
   random crawl pages, drawn per language as :func:`corpus_pipeline.classify.negative_plan` plans
   them (the loop's draw, minus its maths-markup exclusion, which has no meaning here).  Two
   negative draws are compared: ``random`` (any page) and ``no-code-blocks`` (pages whose HTML has
   no ``<pre>`` block are drawn: the code analogue of ``negatives_exclude_math_markup``);
4. every extracted crawl page scored, precision / recall at ``SelectConfig().threshold`` against
   ``labels_code.jsonl`` (all pages, and the pages that were not drawn as negatives);
5. the real pages of ``$CORPUS_PIPELINE_DATA`` (default ``../shared/data``; read its MANIFEST.md):
   ``labeled/pages_labeled.jsonl``, where the llm-webkit benchmark's ``code`` category (20 pages:
   Stack Overflow, API docs, tutorials, forums, Chinese blogs) is the positive class and every
   other page (news, blogs, shops, maths) is negative; extracted and scored the same way.  Also the
   scores of ``text/seed_sources/nonmath_docs.jsonl``'s groups (Python PEPs and OI Wiki's C++
   language pages are programming text; Wikipedia tables and recipes are not).

Measured with the shipped seed (582 documents), ``--pages 3000 --random-seed 1``, threshold 0.5:

* mini-crawl, random negatives: recall 0.00 (75 of the 129 code pages were drawn as negatives, and
  they are all one template), average precision 0.52; negatives without code blocks: precision 1.00,
  recall 1.00 (the crawl's code pages are the only pages with code, so this is easy);
* real pages scored by those models: precision 0.03, recall 0.97: negatives that are all synthetic
  teach "real text vs generated text", so nearly every real page scores high;
* real pages with real negatives (the other half by site): random negatives precision 0.50,
  recall 0.92, AP 0.83; negatives without code blocks precision 0.44, recall 0.95, AP 0.87.
  Chinese code pages score lowest (the seed is English).

It also counts how often each class's HTML carries a code block (a ``<pre>`` element, or a ``<code>``
element over more than one line), the candidate "markup" column of a code profile.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# Programming pages among the benchmarks' "non-maths" pages, labelled by hand (code / ambiguous): the
# product's list, which the development crawl's code labelling (devcrawl --label-domain code) uses too.
from devtools.devcrawl import REAL_CODE_LABELS
from corpus_pipeline.profiles.code import has_code_block   # the code profile's markup rule

ROOT = Path(__file__).resolve().parents[1]
SEED_FILE = ROOT / "seeds" / "code" / "starter_seed.jsonl.gz"

def data_dir() -> Path:
    return Path(os.environ.get("CORPUS_PIPELINE_DATA", ROOT.parent / "shared" / "data")).resolve()


# ------------------------------------------------------------------ the mini-crawl
def crawl_pages(out: Path, pages: int, seed: int) -> list[dict]:
    """The crawl's extracted pages with their code label and code-block flag."""
    from warcio.archiveiterator import ArchiveIterator

    from corpus_pipeline.config import Config
    from corpus_pipeline.counters import Counts
    from corpus_pipeline.ingest import process_source
    from corpus_pipeline.minicrawl import generate

    generate(out, pages=pages, random_seed=seed, label_domains=("code",))
    labels = {}
    for line in (out / "labels_code.jsonl").read_text(encoding="utf-8").splitlines():
        x = json.loads(line)
        labels[x["url"]] = x["label"]
    math = {}
    for line in (out / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        x = json.loads(line)
        math[x["url"]] = x["label"]
    blocks = {}
    for f in sorted((out / "warc").glob("*.warc.gz")):
        with open(f, "rb") as fh:
            try:
                for rec in ArchiveIterator(fh):
                    if rec.rec_type == "response":
                        uri = rec.rec_headers.get_header("WARC-Target-URI").strip("<>")
                        blocks[uri] = has_code_block(rec.content_stream().read())
            except Exception:  # noqa: BLE001 - the crawl's one truncated record ends its file
                pass
    cfg, rows = Config(), []
    for f in sorted((out / "warc").glob("*.warc.gz")):
        for r in process_source(str(f), cfg, Counts("ingest", str(f))):
            rows.append({"url": r["url"], "host": r["host"], "path": r["path"], "text": r["text"], "lang": r["lang"],
                         "label": labels.get(r["url"]), "math_label": math.get(r["url"]),
                         "code_block": blocks.get(r["url"], False)})
    return rows


# ------------------------------------------------------------------ training and scoring
def draw_negatives(pos_langs: Counter, pages: list[dict], n_neg: int, exclude_code_blocks: bool, rnd: int = 1
                   ) -> list[dict]:
    """Random crawl pages per language as the loop plans them (no background set: the crawl has
    enough English pages)."""
    from corpus_pipeline import classify as C

    cand = [p for p in pages if not (exclude_code_blocks and p["code_block"])]
    avail = Counter(p["lang"] for p in cand)
    out = []
    for lang, (n_crawl, _, _) in C.negative_plan(dict(pos_langs), dict(avail), {}, n_neg).items():
        pool = [p for p in cand if (p["lang"] not in pos_langs if lang == C.OTHER_LANGUAGES else p["lang"] == lang)]
        random.Random(f"{rnd}:{lang}").shuffle(pool)
        out += pool[:n_crawl]
    return out


def train(seed_texts: list[str], negatives: list[str]):
    from corpus_pipeline import classify as C
    from corpus_pipeline.config import ClassifierConfig

    cfg = ClassifierConfig()
    return C.train_model(seed_texts, negatives, cfg, random_seed=1), cfg


def metrics(scores, labels, threshold) -> dict:
    from corpus_pipeline import classify as C

    m = C.pr_metrics(scores, labels, threshold)
    m.pop("pr_curve", None)
    return m


def _fmt(m: dict) -> str:
    f = lambda v: "n/a" if v is None else f"{v:.3f}"  # noqa: E731
    return (f"precision {f(m['precision'])}  recall {f(m['recall'])}  F1 {f(m['f1'])}  AP {f(m['average_precision'])}"
            f"  (tp {m['tp']}, fp {m['fp']}, fn {m['fn']}; {m['n_positive']} code / {m['n_negative']} non-code)")


# ------------------------------------------------------------------ real pages
def real_pages(data: Path) -> list[dict]:
    from corpus_pipeline.config import Config
    from corpus_pipeline.extract import Extracted, extract_html

    index = {}
    for line in (data / "html" / "llm_webkit_bench" / "index.jsonl").read_text(encoding="utf-8").splitlines():
        x = json.loads(line)
        index["html/llm_webkit_bench/" + x["file"]] = x.get("source_category", "")
    ic = Config().ingest
    out = []
    for line in (data / "labeled" / "pages_labeled.jsonl").read_text(encoding="utf-8").splitlines():
        x = json.loads(line)
        if x["label"] == "exclude":
            continue
        raw = (data / x["path"]).read_bytes()
        if x.get("compressed") or x["path"].endswith(".gz"):
            raw = gzip.decompress(raw)
        e = extract_html(raw, x["url"], timeout_s=60, extractor=ic.extractor)
        if not (isinstance(e, Extracted) and len(e.text.strip()) >= ic.min_text_chars) and ic.fallback():
            e = extract_html(raw, x["url"], timeout_s=60, extractor=ic.fallback(), favor="fast")
        if not isinstance(e, Extracted) or len(e.text.strip()) < ic.min_text_chars:
            continue
        label = "code" if index.get(x["path"]) == "code" else REAL_CODE_LABELS.get(x["url"], "non-code")
        out.append({"url": x["url"], "site": x["domain"] or x["url"], "source": x["path"].split("/")[1],
                    "label": label, "math_label": x["label"],
                    "text": e.text, "lang": e.lang or "und", "code_block": has_code_block(raw)})
    return out


def text_groups(data: Path) -> dict:
    """nonmath_docs.jsonl's texts by site: HTML through the bulk extractor, Markdown and plain text as they
    are (rendering Markdown with the project's render_markup would drop its code blocks)."""
    from corpus_pipeline.config import Config
    from corpus_pipeline.extract import Extracted, extract_html

    p = data / "text" / "seed_sources" / "nonmath_docs.jsonl"
    groups: dict = {}
    if p.exists():
        for line in p.read_text(encoding="utf-8").splitlines():
            x = json.loads(line)
            text = x["text"]
            if x.get("format") == "html":
                e = extract_html(text, x["url"], timeout_s=60, extractor=Config().ingest.extractor)
                text = e.text if isinstance(e, Extracted) else ""
            groups.setdefault(f"{x['domain']} ({x.get('format')}, {x.get('label')})", []).append(text)
    return groups


# ------------------------------------------------------------------ main
def fold(site: str) -> int:
    """Two halves of the real pages by site (a page's host): a hash bit, as bench_classifier_quality halves."""
    return hashlib.sha1(site.encode("utf-8")).digest()[0] & 1


def _real_report(log, name: str, scores, pages, threshold) -> dict:
    ev = [(s, p) for s, p in zip(scores, pages) if p["label"] in ("code", "non-code")]
    y = [p["label"] == "code" for _, p in ev]
    m = metrics([s for s, _ in ev], y, threshold)
    en = [(s, p) for s, p in ev if p["lang"] != "zh"]
    m_en = metrics([s for s, _ in en], [p["label"] == "code" for _, p in en], threshold)
    med = {lab: statistics.median([s for s, p in ev if p["label"] == lab] or [0.0]) for lab in ("code", "non-code")}
    log(f"  {name}, all:            {_fmt(m)}")
    log(f"  {name}, not Chinese:    {_fmt(m_en)}")
    log(f"    median score: code {med['code']:.3f}, non-code {med['non-code']:.3f}")
    fp_math = Counter(p["math_label"] for s, p in ev if s >= threshold and p["label"] == "non-code")
    log(f"    non-code pages over the threshold by maths label: {dict(fp_math)}")
    by_src = {}
    for src in sorted({p["source"] for _, p in ev}):
        ss = [s for s, p in ev if p["source"] == src and p["label"] == "non-code"]
        by_src[src] = [sum(x >= threshold for x in ss), len(ss)]
    log(f"    non-code pages over the threshold by source: {by_src}")
    codes = sorted(((s, p["url"]) for s, p in ev if p["label"] == "code"), reverse=True)
    log("    code pages: " + "; ".join(f"{s:.2f} {u.split('/')[2]}" for s, u in codes))
    top = sorted(((s, p["url"]) for s, p in ev if p["label"] != "code"), reverse=True)[:8]
    log("    highest non-code pages: " + "; ".join(f"{s:.2f} {u}" for s, u in top))
    return {"all": m, "not_zh": m_en, "median": med, "fp_by_math_label": dict(fp_math), "non_code_over_threshold_by_source": by_src,
            "code_scores": [[round(s, 4), u] for s, u in codes], "top_non_code": [[round(s, 4), u] for s, u in top]}


def run(pages: int, random_seed: int, seed_file: Path, log=print) -> dict:
    from corpus_pipeline import classify as C
    from corpus_pipeline.config import ClassifierConfig, SelectConfig
    from corpus_pipeline.lang import detect_lang

    threshold = SelectConfig().threshold
    seed = [json.loads(x) for x in gzip.open(seed_file, "rt", encoding="utf-8")]
    seed_texts = [r["text"] for r in seed]
    pos_langs = Counter(r.get("lang") or detect_lang(r["text"]) for r in seed)
    n_neg = int(round(len(seed) * ClassifierConfig().negatives_per_positive))
    log(f"seed: {len(seed)} documents from {seed_file} ({dict(pos_langs)}); threshold {threshold}")
    res: dict = {"pages": pages, "random_seed": random_seed, "threshold": threshold, "seed_documents": len(seed)}

    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="code_domain_") as tmp:
        crawl = crawl_pages(Path(tmp) / "crawl", pages, random_seed)
    code_n = Counter(p["label"] for p in crawl)
    blk = Counter((p["label"], p["code_block"]) for p in crawl)
    log(f"mini-crawl --pages {pages} --random-seed {random_seed}: {len(crawl)} extracted pages "
        f"({code_n['code']} code, {code_n['non-code']} non-code) in {time.time() - t0:.0f} s; code blocks in the "
        f"HTML: code pages {blk[('code', True)]}/{code_n['code']}, non-code pages {blk[('non-code', True)]}/{code_n['non-code']}")
    res["crawl_code_blocks"] = {lab: [blk[(lab, True)], code_n[lab]] for lab in ("code", "non-code")}

    data = data_dir()
    real = real_pages(data) if (data / "labeled" / "pages_labeled.jsonl").exists() else []
    if not real:
        log(f"no labeled real pages under {data}: set CORPUS_PIPELINE_DATA (real-page part skipped)")
    else:
        rn = Counter(p["label"] for p in real)
        rb = Counter((p["label"], p["code_block"]) for p in real)
        log(f"real pages: {len(real)} extracted ({dict(rn)}); code blocks in the HTML: "
            + ", ".join(f"{lab} {rb[(lab, True)]}/{rn[lab]}" for lab in sorted(rn)))
        res["real_code_blocks"] = {lab: [rb[(lab, True)], rn[lab]] for lab in sorted(rn)}

    # A. the loop's setting on the mini-crawl: negatives are random pages of the crawl it scores
    for variant in ("random", "no-code-blocks"):
        t0 = time.time()
        neg = draw_negatives(pos_langs, crawl, n_neg, exclude_code_blocks=(variant == "no-code-blocks"))
        neg_urls = {p["url"] for p in neg}
        model, cfg = train(seed_texts, [p["text"] for p in neg])
        scores = C.predict_proba(model, [p["text"] for p in crawl], cfg)
        y = [p["label"] == "code" for p in crawl]
        m_all = metrics(scores, y, threshold)
        rest = [(sc, t) for sc, t, p in zip(scores, y, crawl) if p["url"] not in neg_urls]
        m_rest = metrics([sc for sc, _ in rest], [t for _, t in rest], threshold)
        out = {"negatives": len(neg), "negatives_code": sum(p["label"] == "code" for p in neg),
               "crawl_all": m_all, "crawl_not_drawn": m_rest}
        log(f"\n[A. mini-crawl, {variant} negatives: {len(neg)} crawl pages, {out['negatives_code']} of them code] "
            f"trained + scored in {time.time() - t0:.0f} s")
        log(f"  mini-crawl, all pages:        {_fmt(m_all)}")
        log(f"  mini-crawl, pages not drawn:  {_fmt(m_rest)}")
        fp = Counter(p["host"] for sc, p in zip(scores, crawl) if sc >= threshold and p["label"] != "code")
        fn = Counter(p["host"] for sc, p in zip(scores, crawl) if sc < threshold and p["label"] == "code")
        if fp:
            log(f"  false positives by host: {dict(fp.most_common(8))}")
        if fn:
            log(f"  false negatives by host: {dict(fn.most_common(8))}")
        out["crawl_fp"], out["crawl_fn"] = dict(fp), dict(fn)
        if real:        # the same model on real pages: its negatives were all synthetic
            out["real"] = _real_report(log, "real pages (mini-crawl negatives)",
                                       C.predict_proba(model, [p["text"] for p in real], cfg), real, threshold)
        res[f"A_{variant}"] = out

    # B. real pages with real negatives: two halves by site, each scored by a classifier whose
    # negatives are the other half's pages (all of them, or those without a code block)
    if real:
        for variant in ("random", "no-code-blocks"):
            t0 = time.time()
            scores = [0.0] * len(real)
            n_negs = []
            for k in (0, 1):
                neg = [p["text"] for p in real if fold(p["site"]) != k
                       and not (variant == "no-code-blocks" and p["code_block"])]
                n_negs.append(len(neg))
                model, cfg = train(seed_texts, neg)
                idx = [i for i, p in enumerate(real) if fold(p["site"]) == k]
                for i, sc in zip(idx, C.predict_proba(model, [real[i]["text"] for i in idx], cfg)):
                    scores[i] = sc
            log(f"\n[B. real pages, negatives = the other half's real pages ({variant}: {n_negs[0]} / {n_negs[1]})] "
                f"trained + scored in {time.time() - t0:.0f} s")
            out = _real_report(log, "real pages (real negatives)", scores, real, threshold)
            out["negatives"] = n_negs
            res[f"B_{variant}"] = out

        groups = text_groups(data)
        if groups:      # other texts, scored by a classifier with every real page without a code block as negative
            model, cfg = train(seed_texts, [p["text"] for p in real if not p["code_block"]])
            g = {}
            for name, texts in sorted(groups.items()):
                ss = C.predict_proba(model, texts, cfg)
                g[name] = {"n": len(ss), "median": round(statistics.median(ss), 4),
                           "over_threshold": sum(x >= threshold for x in ss)}
            log(f"\ntext groups (negatives: all real pages without a code block): {g}")
            res["text_groups"] = g
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="code-domain seed on the labelled mini-crawl and on real pages")
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--random-seed", type=int, default=1)
    ap.add_argument("--seed-file", default=str(SEED_FILE))
    ap.add_argument("--json", help="write the results here as JSON")
    a = ap.parse_args(argv)
    res = run(a.pages, a.random_seed, Path(a.seed_file))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
