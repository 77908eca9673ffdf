"""Reference copies of logic the product runs on Spark, in plain Python over lists: the tests compare
the Spark layer's tables with them (and test the rules on small inputs without a JVM). Nothing in
``corpus_pipeline`` calls them; they left the package in issue 36."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from corpus_pipeline.config import Config, DomainConfig
from corpus_pipeline.counters import Counts
from corpus_pipeline.decontam import (PAGE_FLAGGED, PAGE_REMOVED, R_NGRAM, SEGMENT_FLAGGED, SEGMENT_REMOVED,
                                      GramIndex, common_on_pages, decontaminate_text, empty_counts,
                                      without_grams)
from corpus_pipeline.domains import (HIST_BINS, domain_key, fraction, is_flagged, normalize_host,
                                     topical_prefixes)
from corpus_pipeline.spark.reextract import reextract_row


# ---------------------------------------------------------------- domains (spark/domains.py)
@dataclass(frozen=True)
class PageRef:
    """The few page fields the domain step needs."""

    page_id: str
    host: str
    path: str
    collected: bool
    url: str = ""
    title: str = ""
    markup: bool = False                 # the page's HTML carried maths markup
    score: Optional[float] = None        # this iteration's classifier score


def aggregate_domains(pages: Iterable[PageRef], cfg: DomainConfig) -> list[dict]:
    """Rows of the DOMAINS table (host = domain key), sorted by host.  Pages without a host are left out."""
    counts: dict[str, list[int]] = {}
    for p in pages:
        k = domain_key(p.host, cfg.key)
        if not k:
            continue
        c = counts.setdefault(k, [0, 0])
        c[0] += 1
        c[1] += 1 if p.collected else 0
    return [
        {"host": k, "pages": n, "collected": c, "fraction": fraction(c, n), "flagged": is_flagged(n, c, cfg)}
        for k, (n, c) in sorted(counts.items())
    ]


def aggregate_prefixes(pages: Iterable[PageRef], flagged_keys: set, cfg: DomainConfig) -> list[dict]:
    """Rows of the PREFIXES table for pages whose domain key is in ``flagged_keys``.

    ``host_pages`` / ``host_collected`` are the totals of the prefix's host (every page,
    whether or not it is under a listed prefix): the proposer compares a prefix with the
    rest of its host.

    ``examples`` is a list of ``{"url", "title", "collected"}`` (the Spark layer
    writes it as a JSON string): collected examples first, each kind by page id.
    Sorted by host, depth, prefix.
    """
    stats: dict[tuple, dict] = {}
    totals: dict[str, list[int]] = {}
    for p in pages:
        host = normalize_host(p.host)
        if not host or domain_key(host, cfg.key) not in flagged_keys:
            continue
        t = totals.setdefault(host, [0, 0])
        t[0] += 1
        t[1] += 1 if p.collected else 0
        b = min(int((p.score or 0.0) * HIST_BINS), HIST_BINS - 1) if p.score is not None else 0
        for d, pre in topical_prefixes(p.path, cfg.path_depth):
            s = stats.setdefault((host, pre), {"depth": d, "pages": 0, "collected": 0, "ex": [],
                                               "markup": [0, 0], "hist": ([0] * HIST_BINS, [0] * HIST_BINS)})
            s["pages"] += 1
            s["collected"] += 1 if p.collected else 0
            side = 0 if p.collected else 1
            s["markup"][side] += 1 if p.markup else 0
            s["hist"][side][b] += 1
            s["ex"].append((not p.collected, p.page_id, p.url, p.title, p.collected))
    per_host: dict[str, list] = {}
    for (host, pre), s in stats.items():
        if s["pages"] >= cfg.prefix_min_pages or pre == "/":
            per_host.setdefault(host, []).append((pre, s))
    rows = []
    for host, items in per_host.items():
        items.sort(key=lambda t: (t[0] != "/", -t[1]["pages"], t[0]))
        for pre, s in items[: cfg.max_prefixes_per_domain]:
            rows.append({
                "host": host, "prefix": pre, "depth": s["depth"], "pages": s["pages"],
                "collected": s["collected"], "fraction": fraction(s["collected"], s["pages"]),
                "examples": choose_examples(s["ex"], cfg.examples),
                "host_pages": totals[host][0], "host_collected": totals[host][1],
                "markup_collected": s["markup"][0], "markup_uncollected": s["markup"][1],
                "hist_collected": list(s["hist"][0]), "hist_uncollected": list(s["hist"][1]),
            })
    rows.sort(key=lambda r: (r["host"], r["depth"], r["prefix"]))
    return rows


def choose_examples(items: list[tuple], n: int) -> list[dict]:
    """Up to ``n`` collected and ``n`` uncollected examples; items are
    ``(not collected, page_id, url, title, collected)``; collected first, then by page id."""
    out, taken = [], {True: 0, False: 0}
    for item in sorted(items, key=lambda t: (t[0], t[1])):
        c = bool(item[4])
        if taken[c] < n:
            taken[c] += 1
            out.append({"url": item[2], "title": item[3], "collected": c})
    return out



# ---------------------------------------------------------------- decontamination (spark/decontam.py)
def decontaminate_pages(pages: Iterable[dict], index: GramIndex, cfg, id_field: str = "page_id"):
    """Apply :func:`decontaminate_text` to dicts with ``text`` and ``id_field``.

    With ``cfg.max_pages`` a first pass finds the grams found on more than that many of the pages
    (:func:`common_on_pages`) and the rules run without them.
    Returns (kept pages with text cleaned, contamination rows in schemas.CONTAMINATION order, counts)."""
    max_pages = int(getattr(cfg, "max_pages", 0) or 0)
    if max_pages > 0:
        pages = list(pages)
        index = without_grams(index, common_on_pages((p.get("text") for p in pages), index, max_pages))
    out, rows, stats = [], [], []
    n = 0
    for p in pages:
        n += 1
        r = decontaminate_text(p.get("text"), index, cfg)
        pid = p.get(id_field)
        rows.extend((pid,) + row for row in r.rows)
        if r.contaminated:
            stats.append((pid, r.removed, r.lines_removed, r.flagged, r.lines_flagged))
        if not r.removed:
            q = dict(p)
            q["text"] = r.text
            out.append(q)
    counts = tally(n, stats, rows)
    counts["short_items"] = index.stats.get("short_by_benchmark", {})
    return out, rows, counts


def tally(pages_in: int, page_stats: Iterable[tuple], rows: Iterable[tuple]) -> dict:
    """Counts for the report.

    ``page_stats``: (page_id, removed, lines_removed[, flagged, lines_flagged]) of every contaminated
    page; ``rows``: contamination rows (page_id, benchmark, item_id, action, reason, ...).
    Page counts per benchmark and per rule count distinct pages."""
    c = empty_counts()
    c["pages_in"] = int(pages_in)
    for _pid, removed, lines, *flag in page_stats:
        if flag and flag[0]:
            c["pages_flagged"] += 1
            c["segments_flagged"] += int(flag[1])
        elif removed:
            c["pages_removed"] += 1
        else:
            c["pages_cleaned"] += 1
            c["segments_removed"] += int(lines)
    c["pages_out"] = c["pages_in"] - c["pages_removed"]
    by_rule: dict = {}
    by_b: dict = {}
    by_br: dict = {}
    for pid, bench, _item, action, reason, *_evidence in rows:
        rule = R_NGRAM if action in (SEGMENT_REMOVED, SEGMENT_FLAGGED) else reason
        if action in (PAGE_REMOVED, PAGE_FLAGGED) and reason == R_NGRAM:
            rule = None  # an n-gram item on a page the short rule removed: the page counts under the short rule
        if rule:
            by_rule.setdefault(rule, set()).add(pid)
        by_b.setdefault(bench, {}).setdefault(action, set()).add(pid)
        by_br.setdefault(bench, {}).setdefault(reason, set()).add(pid)
    for k, v in by_rule.items():
        c["by_rule"][k] = len(v)
    c["by_benchmark"] = {b: {a: len(p) for a, p in sorted(d.items())} for b, d in sorted(by_b.items())}
    c["by_benchmark_rule"] = {b: {r: len(p) for r, p in sorted(d.items())} for b, d in sorted(by_br.items())}
    return c



# ---------------------------------------------------------------- re-extraction (spark/reextract.py)
def reextract_rows(rows, cfg: Config, counts: Counts):
    """Pure: FINAL_CORPUS dicts carrying ``warc_file``/``warc_offset`` -> FINAL_CORPUS dicts, the
    text (and n_tokens) from ``final.extractor`` where it gives one.  Counts every row's outcome
    (:func:`reextract_row`): ``reextracted`` or the reason the page kept its bulk text."""
    for row in rows:
        out, outcome = reextract_row(row, cfg)
        counts.add(outcome)
        yield out



# ---------------------------------------------------------------- labels (the report's true precision)
def precision_recall(collected_labels: list[str], math_total: int, positive: str = "math"
                     ) -> tuple[float | None, float | None]:
    """True precision among the collected pages labelled ``positive`` or ``non-<positive>`` (a
    profile's labels; maths by default), and recall against all ``positive`` pages."""
    labeled = [x for x in collected_labels if x in (positive, "non-" + positive)]
    math_hit = sum(1 for x in labeled if x == positive)
    precision = (math_hit / len(labeled)) if labeled else None
    recall = (math_hit / math_total) if math_total else None
    return precision, recall

