"""``RUN/final/corpus/README.md``: the final corpus as a Hugging Face dataset, as it stands.

A dataset card: YAML metadata (the data files and their features, the size category, the languages
found, the licence) and the run's facts in prose and tables (counts per iteration, the settings that
shaped the corpus, the decontamination with the benchmarks used, the canary figures when the run
measured them, and whose rights the texts are under).  ``datasets.load_dataset(RUN/final/corpus)``
reads the folder through it.

Written with the report (:func:`corpus_pipeline.report.write_report`, at the end of ``run`` and by
``corpus-pipeline report``), once the final corpus is committed.  It holds no time and no absolute
path, so that two runs of the same code on the same inputs write the same bytes
(``bench/compare_commits.py`` compares it).  It sits beside the commit marker, not in
the attempt folder, so the YAML names the data by a pattern (``attempt=*/part-*``): after a commit the
run folder keeps one attempt folder.
"""
from __future__ import annotations

import json
import os
import re
from typing import Optional

from .. import fs as fsmod
from .. import profiles
from .. import schemas
from ..pipeline.runview import RunView
from ..seeds import default_seed_path
from .languages import language_name

CARD = "README.md"

# Spark SQL types of the corpus's schema -> the datasets library's dtypes
_DTYPES = {"STRING": "string", "DOUBLE": "float64", "FLOAT": "float32", "INT": "int32", "BIGINT": "int64",
           "BOOLEAN": "bool"}
_FORMATS = {"parquet": "attempt=*/part-*.parquet", "jsonl.gz": "attempt=*/part-*.json.gz"}

# what each column holds, for the card's table
_COLUMNS = {
    "page_id": "stable id of the page (a hash of its URL)",
    "url": "the page's URL, as crawled",
    "host": "the URL's host",
    "text": "the page's main text as Markdown-flavoured plain text, extracted from the WARC record: each formula "
            "once as TeX (`$...$`, `$$...$$`), code fenced, data tables as pipe tables, no script or style text",
    "score": "the last iteration's classifier score, P(in domain)",
    "first_iteration": "the iteration that first collected the page",
    "n_tokens": "whitespace-separated words of `text`",
    "title": "the page's title",
    "lang": "ISO 639-1 code of the page's language (`und`: undetermined)",
    "fetched_at": "when the crawler fetched the page (the WARC record's date)",
    "warc_file": "the WARC file holding the page's record",
    "warc_offset": "the record's byte offset in that file",
}


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value for ``n`` rows: ``n<1K``, ``1K<n<10K``, ..."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
              (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
              (10_000_000_000, "1B<n<10B")]
    for bound, name in bounds:
        if n < bound:
            return name
    return "n>1T" if n >= 10 ** 12 else "10B<n<100B" if n < 10 ** 11 else "100B<n<1T"


def features(ddl: str = schemas.FINAL_CORPUS) -> list[tuple[str, str]]:
    return [(c, _DTYPES.get(t, "string")) for c, t in schemas.types(ddl).items()]


def _q(x) -> str:
    """A YAML scalar: JSON's quoting is valid YAML."""
    return json.dumps(x, ensure_ascii=False)


def seed_sources(profile) -> Optional[str]:
    """The bullet list of the shipped starter seed's sources and licences (its ``LICENCES.md``)."""
    try:
        path = os.path.join(os.path.dirname(default_seed_path(profile.starter_seed)), "LICENCES.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except Exception:  # noqa: BLE001 - a card without the list beats no card
        return None
    items = re.findall(r"^- \*\*.*?(?=^\s*$|^- |\Z)", text, re.M | re.S)
    return "\n".join(" ".join(line.strip() for line in it.strip().splitlines()) for it in items) or None


def _cfg(config: dict, key: str):
    section, _, name = key.partition(".")
    return (config.get(section) or {}).get(name)


def render_card(summary: dict, config: dict, languages: dict, seed_text: Optional[str], own_seed: bool,
                fmt: str = "parquet", profile_name: str = "math", benchmarks: tuple = ()) -> str:
    """The card's text from the report's summary, the run's configuration (``run.json``), the pages per
    language of the corpus and the seed's sources (None: a seed of the user's)."""
    fin = summary.get("final") or {}
    its = summary.get("iterations") or []
    n = int(fin.get("pages") or 0)
    langs = sorted((k for k in languages if k not in ("und", "unknown", None)), key=lambda k: (-languages[k], k))
    out = ["---", "configs:", "- config_name: default", "  data_files:", "  - split: train",
           f"    path: {_q(_FORMATS.get(fmt, _FORMATS['parquet']))}", "dataset_info:", "  features:"]
    for name, dtype in features():
        out += [f"  - name: {name}", f"    dtype: {dtype}"]
    if langs:
        out.append("language:")
        out += [f"- {_q(k)}" for k in langs]            # quoted: YAML reads a bare `no` as false
    out += ["license: other", "license_name: publishers-rights",
            "license_details: \"Web pages crawled from their publishers: each keeps its publisher's copyright and "
            "licence (see url).\"",
            "size_categories:", f"- {size_category(n)}", "task_categories:", "- text-generation",
            "tags:", f"- {profile_name}", "- web-crawl", "- common-crawl", "- corpus_pipeline",
            f"pretty_name: {_q(profile_name.capitalize() + ' web corpus (corpus_pipeline)')}", "---", ""]

    out += [f"# {profile_name.capitalize()} web corpus", "",
            f"{n:,} web pages ({int(fin.get('tokens') or 0):,} tokens of text) that the "
            "corpus_pipeline recipe (DeepSeekMath's: iterative fastText classification of "
            "crawled pages, domain flagging and URL-path annotation, then benchmark decontamination) collected "
            f"from a web crawl. The run stopped because: {_stopped(summary)}.", "",
            "```python", "from datasets import load_dataset", "", 'ds = load_dataset("path/to/this/folder", '
            'split="train")', "```", "",
            "## Columns", "", "| column | type | holds |", "|---|---|---|"]
    out += [f"| `{c}` | {t} | {_COLUMNS.get(c, '')} |" for c, t in features()]
    if languages:
        out += ["", "## Languages", "", "| language | pages |", "|---|---:|"]
        out += [f"| {language_name(k)} (`{k}`) | {languages[k]:,} |"
                for k in sorted(languages, key=lambda k: (-languages[k], k))]

    out += ["", "## How it was built: the iterations", "",
            "Each iteration trains a classifier on the seed, scores every page, collects those above the "
            "threshold, flags domains and marks URL path prefixes whose pages join the next seed. Tokens here "
            "count the bulk extraction's text" + ("; the corpus's own text was extracted again (`final.extractor`)"
                                                   if summary.get("reextraction") else "") + ".", "",
            "| iteration | seed positives | collected pages | tokens | overlap with previous | new pages | "
            "flagged domains | classifier P/R/F1 (held out) |", "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for it in its:
        c = it.get("classifier") or {}
        prf = "/".join("–" if c.get(k) is None else f"{c[k]:.3f}" for k in ("precision", "recall", "f1"))
        ov = it.get("overlap_with_previous")
        out.append(f"| {it['iteration']} | {it['seed_positives']:,} | {it['collected_pages']:,} | "
                   f"{it['collected_tokens']:,} | {'–' if ov is None else f'{ov:.1%}'} | {it['new_pages']:,} | "
                   f"{it['flagged_domains']} | {prf} |")
    if any(it.get("true_precision") is not None for it in its):
        last = [it for it in its if it.get("true_precision") is not None][-1]
        out += ["", f"Against the crawl's labels, iteration {last['iteration']} had precision "
                    f"{last['true_precision']:.1%} and recall {last['true_recall']:.1%}."]
    est = [it for it in its if it.get("estimated_precision")]
    if est:
        e = est[-1]
        p = e["estimated_precision"]
        line = (f"From a judged random sample, iteration {e['iteration']}'s precision is estimated at "
                f"{p['value']:.1%} (95% interval {p['low']:.1%}–{p['high']:.1%})")
        r = e.get("estimated_recall")
        if r:
            line += f" and its recall at {r['value']:.1%} ({r['low']:.1%}–{r['high']:.1%})"
        out += ["", line + "."]

    settings = [("profile.name", "the domain profile"), ("select.mode", "how pages are selected"),
                ("select.threshold", "score a page needs (threshold mode)"),
                ("loop.saturation", "overlap with the previous iteration that stops the loop"),
                ("loop.max_iterations", "most iterations"), ("classifier.kind", "classifier"),
                ("annotate.mode", "path annotation"), ("dedup.near", "near-duplicate removal (MinHash)"),
                ("dedup.verify_jaccard", "similarity at which a page is a near duplicate"),
                ("final.extractor", "extractor of the corpus's text"), ("decontam.mode", "decontamination mode"),
                ("decontam.ngram", "decontamination n-gram length")]
    out += ["", "## Settings that shaped it", "", "| setting | value | meaning |", "|---|---|---|"]
    for key, meaning in settings:
        v = _cfg(config, key)
        if v is not None:
            out.append(f"| `{key}` | `{json.dumps(v)}` | {meaning} |")
    ing = summary.get("ingest") or {}
    if ing:
        dups = ", ".join(f"{ing[k]:,} {k.replace('_duplicates', '')}" for k in
                         ("url_duplicates", "exact_duplicates", "near_duplicates") if k in ing)
        skips = ", ".join(f"{n:,} {r.replace('_', ' ')}" for r, n in
                          sorted((ing.get("skips") or {}).items(), key=lambda x: (-x[1], x[0])) if n)
        out += ["", f"Ingest kept {ing.get('pages', 0):,} pages of the crawl. It skipped WARC records "
                    f"({skips or 'none'}) and removed duplicate pages ({dups or 'none'})."]

    out += ["", "## Decontamination", ""]
    if fin.get("pages_removed_by_decontamination") is None:
        out.append("Not decontaminated: the run was given no benchmarks. Check the corpus against your "
                   "evaluation sets before training on it (`corpus-pipeline decontaminate`).")
    else:
        decon = summary.get("decontamination") or {}
        by_bench = decon.get("by_benchmark") or {}
        names = sorted(set(benchmarks) | set(by_bench))
        out.append(f"Every page was checked for {_cfg(config, 'decontam.ngram') or 10}-gram overlap with the test "
                   f"sets of: {', '.join(names) if names else 'the benchmarks given'}. "
                   f"{fin['pages_removed_by_decontamination']:,} pages were removed and "
                   f"{fin.get('segments_removed') or 0:,} segments (lines) cut out of others.")
        if by_bench:
            acts = sorted({a for d in by_bench.values() for a in d})
            out += ["", "| benchmark | " + " | ".join(a.replace("_", " ") for a in acts) + " |",
                    "|---|" + "---:|" * len(acts)]
            out += [f"| {b} | " + " | ".join(f"{by_bench[b].get(a, 0):,}" for a in acts) + " |"
                    for b in sorted(by_bench)]
    canaries = summary.get("decontamination_canaries") or {}
    if canaries.get("kinds"):
        out += ["", "## Decontamination canaries", "",
                f"{canaries.get('measures') or 'The rules measured on planted benchmark items'}: "
                f"{canaries.get('pages_sampled', 0):,} corpus pages were copied and one benchmark item planted in "
                "each copy as its own lines; the corpus itself was not touched. Per kind of item, the share of "
                "copies whose item the rules removed, with its 95% interval:", "",
                "| kind | n | caught | share | 95% interval |", "|---|---:|---:|---:|---|"]
        out += [f"| {k} | {v.get('n', 0):,} | {v.get('caught', 0):,} | {v.get('share', 0):.1%} | "
                f"{v.get('low95', 0):.1%}–{v.get('high95', 0):.1%} |" for k, v in canaries["kinds"].items()]

    out += ["", "## Licences", "",
            "The texts are web pages as their publishers put them online. Each page keeps its publisher's "
            "copyright and licence, whatever they are; `url` names the page. This card grants no rights to "
            "them: check the terms of the sites you use before redistributing or training on the pages."]
    if own_seed:
        out += ["", "The classifier that selected the pages was trained on a seed the user supplied "
                    "(`--seed-corpus`). The seed's texts are not part of this corpus."]
    else:
        out += ["", "The classifier that selected the pages was trained on corpus_pipeline's starter seed. The "
                    "seed's texts are not part of this corpus and their licences do not cover it; they come from:",
                ""]
        out.append(seed_text or "(the seed's sources: seeds/LICENCES.md in corpus_pipeline)")
    return "\n".join(out) + "\n"


def write_card(run, summary: dict) -> Optional[str]:
    """Write the final corpus's ``README.md`` (None: no committed corpus yet) from the report's summary
    (the pages per language of the corpus: its ``details``, when the report was written with the run's
    tables) and ``run.json`` (the settings, the profile, whether the seed was the user's)."""
    run = RunView.of(run)
    loc = run.location("corpus")
    if not run.is_committed(loc):
        return None
    runjson = run.read_json(run.path("run.json"), {}) or {}
    config = runjson.get("config") or {}
    fmt = _cfg(config, "final.format") or "parquet"
    try:
        prof = profiles.get(_cfg(config, "profile.name") or profiles.DEFAULT)
    except ValueError:         # a profile of a plugin not loaded here: the maths defaults
        prof = profiles.get(profiles.DEFAULT)
    languages = (((summary.get("details") or {}).get("languages") or {}).get("final")) or {}
    own_seed = bool(runjson.get("seed_corpus"))
    marker = run.marker(loc) or {}
    bench = tuple(((marker.get("config") or {}).get("decontam") or {}).get("benchmarks") or ())
    if not bench and marker.get("config", {}).get("benchmarks"):
        bench = tuple(prof.benchmarks or ())    # the profile's default list, as decontamination used it
    text = render_card(summary, config, languages, None if own_seed else seed_sources(prof), own_seed, fmt,
                       prof.name or "math", bench)
    path = fsmod.join(loc, CARD)
    run.fs.write_text(path, text)
    return path


def _stopped(summary: dict) -> str:
    why = summary.get("stopped_because") or "not finished"
    if why == "saturated" and summary.get("stop_detail") == "seed_unchanged":
        return "saturated (the seed did not change, so the next iteration would have collected the same pages)"
    if why == "saturated":
        return "saturated (98% or more of the last collection was already collected by the iteration before)" \
            if summary.get("saturation") in (None, 0.98) else \
            f"saturated ({summary['saturation']:.0%} or more of the last collection was collected before)"
    return why
