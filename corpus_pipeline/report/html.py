"""index.html: one self-contained page (inline SVG charts, no scripts, no network)."""
from __future__ import annotations

import html
import math
import re

from .languages import language_label

W, H, PAD = 420, 200, 36
COLORS = ["#3b6ea8", "#d9822b", "#3a9a5b", "#b8435a", "#7b5ea7", "#6c757d"]


def _esc(x) -> str:
    return html.escape(str(x))


def compact(v: float) -> str:
    """Axis numbers that fit the margin: 173,945 -> 174k."""
    if v >= 1e6:
        return f"{v / 1e6:.1f}M"
    if v >= 1e4:
        return f"{v / 1e3:.0f}k"
    return f"{v:,.0f}"


def nice_ticks(vmax: float, n: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``vmax``: steps of 1, 2 or 5 times a power of ten, at most
    ``n`` + 1 ticks (753 -> 0, 200, 400, 600, 800; 1.0 -> 0, 0.2, ..., 1.0)."""
    if vmax <= 0:
        return [0.0, 1.0]
    raw = vmax / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw - 1e-12)
    k = math.ceil(vmax / step - 1e-9)
    return [round(step * j, 10) for j in range(k + 1)]


def log_ticks(vmax: float) -> list[float]:
    """0, 1, 10, 100, ... up to the first power of ten at or above ``vmax`` (log scale, zero kept)."""
    top = max(1, math.ceil(math.log10(max(vmax, 1)) - 1e-12))
    return [0.0] + [10.0 ** k for k in range(top + 1)]


def _log_pos(v: float, top: float) -> float:
    """Where ``v`` sits on a log axis from 0 to ``top`` (a power of ten), 0..1: log10(1 + v) / log10(1 + top)."""
    return math.log10(1 + max(v, 0)) / math.log10(1 + top)


def _axis(ticks: list, fmt, log: bool = False) -> str:
    top = ticks[-1]
    out = []
    for v in ticks:
        f = _log_pos(v, top) if log else v / top
        y = H - PAD - (H - 2 * PAD) * f
        out.append(f'<line x1="{PAD}" x2="{W - 8}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        if not (log and v == 1 and len(ticks) > 4):     # 0 and 1 sit too close on a tall log axis
            out.append(f'<text x="{PAD - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{fmt(v)}</text>')
    return "".join(out)


def _pct_tick(v: float) -> str:
    return f"{v:.0%}"


def bar_chart(title: str, labels: list, values: list, fmt=compact, log: bool = False,
              marks: tuple = (), edges: bool = False) -> str:
    """Vertical bars; ``log``: a log scale (zero kept at the bottom); ``marks``: (position in bars from the
    left edge, label) vertical lines, e.g. the selection threshold on a score histogram; ``edges``: the
    labels name the bars' edges (a histogram's bins: one more label than bars), not their middles."""
    if not values:
        return f"<figure><figcaption>{_esc(title)}</figcaption><p>no data</p></figure>"
    ticks = log_ticks(max(values)) if log else nice_ticks(max(values))
    top = ticks[-1]
    n = len(values)
    bw = (W - PAD - 10) / n
    bars = []
    for k, (lab, v) in enumerate(zip(labels, values)):
        h = (H - 2 * PAD) * (_log_pos(v, top) if log else v / top)
        x = PAD + k * bw
        bars.append(f'<rect x="{x + 1:.1f}" y="{H - PAD - h:.1f}" width="{max(bw - 2, 1):.1f}" height="{h:.1f}" '
                    f'fill="{COLORS[0]}"><title>{_esc(lab)}: {_esc(fmt(v))}</title></rect>')
        if n <= 25:
            bars.append(f'<text x="{x + (0 if edges else bw / 2):.1f}" y="{H - PAD + 12}" font-size="9" '
                        f'text-anchor="middle">{_esc(lab)}</text>')
    if edges and len(labels) > n:
        bars.append(f'<text x="{PAD + n * bw:.1f}" y="{H - PAD + 12}" font-size="9" '
                    f'text-anchor="middle">{_esc(labels[n])}</text>')
    for pos, label in marks:
        x = PAD + pos * bw
        bars.append(f'<line class="threshold" x1="{x:.1f}" x2="{x:.1f}" y1="{PAD - 8}" y2="{H - PAD}" '
                    f'stroke="{COLORS[3]}" stroke-width="1.5" stroke-dasharray="4 3"/>'
                    f'<text x="{x + 3:.1f}" y="{PAD - 10}" font-size="10" fill="{COLORS[3]}">{_esc(label)}</text>')
    scale = " (log scale)" if log else ""
    return (f'<figure><figcaption>{_esc(title)}{scale}</figcaption><svg width="{W}" height="{H}" '
            f'xmlns="http://www.w3.org/2000/svg">{_axis(ticks, fmt, log)}{"".join(bars)}</svg></figure>')


def hbar_chart(title: str, labels: list, values: list, label_width: int = 250) -> str:
    """Horizontal bars on a log scale, one row per label with its value: long labels stay readable and
    one large count does not flatten the others."""
    if not values:
        return f"<figure><figcaption>{_esc(title)}</figcaption><p>no data</p></figure>"
    row, width = 16, W + 140
    top = log_ticks(max(values))[-1]
    span = width - label_width - 60
    height = row * len(values) + 24
    parts = []
    for v in log_ticks(max(values)):
        x = label_width + span * _log_pos(v, top)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{height - 16}" stroke="#eee"/>'
                     f'<text x="{x:.1f}" y="{height - 4}" font-size="9" text-anchor="middle">{compact(v)}</text>')
    for k, (lab, v) in enumerate(zip(labels, values)):
        y = k * row + 2
        w = span * _log_pos(v, top)
        parts.append(f'<text x="{label_width - 6}" y="{y + 11}" font-size="11" text-anchor="end">{_esc(lab)}</text>'
                     f'<rect x="{label_width}" y="{y}" width="{max(w, 0.5):.1f}" height="{row - 4}" '
                     f'fill="{COLORS[0]}"><title>{_esc(lab)}: {v:,}</title></rect>'
                     f'<text x="{label_width + w + 4:.1f}" y="{y + 11}" font-size="10">{v:,}</text>')
    return (f'<figure><figcaption>{_esc(title)} (log scale)</figcaption><svg class="hbar" width="{width}" '
            f'height="{height}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg></figure>')


def _label_positions(points: list) -> list:
    """(series index, x, y, text) of the value labels at one x: the highest point's label above it, the
    others below theirs, pushed down until no two overlap (11 px per line)."""
    out, last = [], None
    for j, (c, x, y, text) in enumerate(sorted(points, key=lambda p: p[2])):
        ly = y - 6 if j == 0 else y + 14
        if last is not None and ly < last + 11:
            ly = last + 11
        out.append((c, x, ly, text))
        last = ly
    return out


def line_chart(title: str, xs: list, series: dict, ymax: float | None = None, fmt=lambda v: f"{v:.2f}",
               labels: bool = False, hlines: tuple = (), axis_fmt=None) -> str:
    """Lines per series; ``labels``: each point's value written beside it (``fmt``); ``hlines``: (value,
    label) dashed horizontal lines, e.g. the saturation threshold."""
    vals = [v for s in series.values() for v in s if v is not None]
    if not vals:
        return f"<figure><figcaption>{_esc(title)}</figcaption><p>no data</p></figure>"
    ticks = nice_ticks(ymax or max(max(vals), 1e-9))
    top = ticks[-1]
    n = max(len(xs), 2)

    def px(k):
        return PAD + (W - PAD - 16) * k / (n - 1)

    def py(v):
        return H - PAD - (H - 2 * PAD) * (v / top)

    parts, legend, points = [], [], {}
    for c, (name, ys) in enumerate(series.items()):
        color = COLORS[c % len(COLORS)]
        pts = [(px(k), py(v)) for k, v in enumerate(ys) if v is not None]
        if pts:
            parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                         + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
            parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in pts]
            for k, v in enumerate(ys):
                if v is not None:
                    points.setdefault(k, []).append((c, px(k), py(v), fmt(v)))
        legend.append(f'<span style="color:{color}">&#9632; {_esc(name)}</span>')
    if labels:
        for k in sorted(points):
            anchor = "end" if k == n - 1 else "start" if k == 0 else "middle"     # inside the chart at its ends
            parts += [f'<text class="point" x="{x:.1f}" y="{y:.1f}" font-size="10" fill="{COLORS[c % len(COLORS)]}" '
                      f'text-anchor="{anchor}">{_esc(text)}</text>' for c, x, y, text in _label_positions(points[k])]
    for v, label in hlines:
        y = py(v)
        parts.append(f'<line class="threshold" x1="{PAD}" x2="{W - 8}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="{COLORS[3]}" stroke-width="1.5" stroke-dasharray="4 3"/>'
                     f'<text x="{PAD + 4}" y="{y - 3:.1f}" font-size="10" fill="{COLORS[3]}" '
                     f'text-anchor="start">{_esc(label)}</text>')
    ticks_x = "".join(f'<text x="{px(k):.1f}" y="{H - PAD + 12}" font-size="10" text-anchor="middle">{_esc(x)}</text>'
                      for k, x in enumerate(xs))
    return (f'<figure><figcaption>{_esc(title)} {" ".join(legend)}</figcaption><svg width="{W}" height="{H}" '
            f'xmlns="http://www.w3.org/2000/svg">{_axis(ticks, axis_fmt or fmt)}{"".join(parts)}{ticks_x}'
            f'</svg></figure>')


def _table(headers: list, rows: list) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def drop_rows(s: dict) -> list[list]:
    """(stage, reason, count) for every counted drop: ingest skips, dedup removals, decontamination."""
    ingest = s.get("ingest") or {}
    rows = [["ingest", reason, n] for reason, n in sorted((ingest.get("skips") or {}).items())]
    for key in ("url_duplicates", "exact_duplicates", "near_duplicates"):
        if key in ingest:
            rows.append(["dedup", key, ingest[key]])
    decon = s.get("decontamination") or {}
    for reason, n in sorted((decon.get("by_rule") or {}).items()):
        rows.append(["decontamination", reason, n])
    # kept with their bulk text, not dropped: the final extractor could not re-extract them
    for reason, n in sorted((s.get("reextraction") or {}).items()):
        if reason != "reextracted":
            rows.append(["final re-extraction (bulk text kept)", reason, n])
    return rows


def _decon_sentence(fin: dict) -> str:
    if fin.get("pages_removed_by_decontamination") is None:
        return "not decontaminated (no --benchmarks)"
    return (f"decontamination removed {fin['pages_removed_by_decontamination']} pages and "
            f"{fin.get('segments_removed')} segments")


def _pct(x) -> str:
    return "–" if x is None else f"{x:.1%}"


FINAL_CORPUS = "final/corpus"      # the default recipe's corpus folder, for a summary that does not say


def corpus_folder(fin: dict) -> str:
    """Where the run's final stage committed the corpus, relative to the run folder."""
    return fin.get("folder") or FINAL_CORPUS


def _num(x) -> str:
    return "–" if x is None else f"{x:,}"


def final_paragraph(s: dict) -> str:
    """The final corpus in words: its pages and tokens (of the final extractor's text, set beside the
    last iteration's count of the bulk pass's text), decontamination and where it is in the run folder."""
    fin = s.get("final") or {}
    if fin.get("pages") is None:
        return "<p>No final corpus yet: the loop has not finished.</p>"
    its = s.get("iterations") or []
    bulk = (f" (the last iteration counted {its[-1]['collected_tokens']:,} tokens of the same pages in the bulk "
            f"pass's text, which the iterations table shows)") if its else ""
    re = s.get("reextraction") or {}
    again = f"{re.get('reextracted', 0):,} pages extracted again by the final extractor; " if re else ""
    return (f"<p>{_num(fin.get('pages'))} pages, {_num(fin.get('tokens'))} tokens of the final text{_esc(bulk)}; "
            f"{_esc(again)}{_esc(_decon_sentence(fin))}.</p>"
            f"<p>The corpus: <code>{_esc(corpus_folder(fin))}/</code> in the run folder (Parquet, with a dataset card, "
            f"<code>README.md</code>).</p>")


def short_items_section(s: dict) -> str:
    """Per benchmark: whole short questions looked up, and left out as generic (``short_items``)."""
    d = s.get("decontamination") or {}
    short = d.get("short_items") if isinstance(d, dict) else None
    if not short:
        return ""
    rows = [[b, v.get("used"), v.get("generic")] for b, v in sorted(short.items())]
    return ("<p>Short questions (under 13 tokens) looked up whole on every page, and left out as generic "
            "(formula or phrasing found in several benchmark questions):</p>"
            + _table(["benchmark", "used", "left out as generic"], rows))


def _generic_note(generic) -> str:
    """The items left out of the canary kinds as generic on their own (``items_generic``)."""
    left = {k: v for k, v in (generic or {}).items() if v}
    if not left:
        return ""
    return (" Left out as generic on their own (no specific run: stock words, single digits and letters; "
            "no rule that keeps generic runs catches them): "
            + ", ".join(f"{_esc(v)} {_esc(k)} items" for k, v in sorted(left.items())) + ".")


def canaries_section(s: dict) -> str:
    """The planted-item canaries (``decontamination_canaries``): per kind, the caught share with its
    95% interval and n, and what the rules took of the copies' own text."""
    c = s.get("decontamination_canaries") or {}
    kinds = c.get("kinds") if isinstance(c, dict) else None
    if not kinds:
        return ""
    rows = [[k, v.get("n"), v.get("caught"), _pct(v.get("share")),
             f"{_pct(v.get('low95'))} – {_pct(v.get('high95'))}", v.get("pages_removed_short_rule"),
             v.get("own_lines_removed")] for k, v in kinds.items()]
    return ("<h3 id=\"canaries\">Decontamination canaries: planted benchmark items caught</h3>"
            f"<p>{_esc(c.get('measures', ''))}: {_esc(c.get('pages_sampled'))} corpus pages copied, one item "
            "planted per copy as its own lines (as it is, TeX-varied, hard-wrapped); the corpus is not touched."
            + _generic_note(c.get("items_generic")) + "</p>"
            + _table(["kind", "n", "caught", "share", "95% interval", "pages removed by the short rule",
                      "copies' own lines removed"], rows))


def render_html(s: dict) -> str:
    its = s.get("iterations", [])
    details = s.get("details") or {}
    xs = [it["iteration"] for it in its]
    sat = s.get("saturation")
    charts = [
        bar_chart("Collected pages per iteration", xs, [it["collected_pages"] for it in its]),
        bar_chart("Collected tokens per iteration", xs, [it["collected_tokens"] for it in its]),
        line_chart("Overlap with previous iteration (saturation rule)", xs,
                   {"overlap": [it["overlap_with_previous"] for it in its]}, ymax=1.0, fmt=_pct, labels=True,
                   axis_fmt=_pct_tick, hlines=((sat, f"saturation {sat:.0%}"),) if sat else ()),
        bar_chart("Seed positives per iteration", xs, [it["seed_positives"] for it in its]),
        _language_chart(details),
        line_chart("Classifier (held-out)", xs,
                   {k: [(it.get("classifier") or {}).get(k) for it in its] for k in ("precision", "recall", "f1")},
                   ymax=1.0, axis_fmt=_pct_tick),
    ]
    if any(it.get("true_recall") is not None for it in its):
        charts.append(line_chart("True precision and recall (labels, by iteration)", xs,
                                 {"true precision": [it["true_precision"] for it in its],
                                  "true recall": [it["true_recall"] for it in its]}, ymax=1.0, labels=True,
                                 fmt=_pct, axis_fmt=_pct_tick))
    hists = []
    for it in its:
        hist = it.get("score_histogram") or []
        if hist:
            labels = [f"{k / len(hist):.2f}" if k % 5 == 0 else "" for k in range(len(hist) + 1)]
            t = it.get("select_threshold")
            if t is None:
                t = ((details.get("iterations") or {}).get(str(it["iteration"])) or {}).get("threshold")
            marks = ((t * len(hist), f"threshold {t:g}"),) if t is not None else ()
            hists.append(bar_chart(f"Score histogram, iteration {it['iteration']}", labels, hist, log=True,
                                   marks=marks, edges=True))

    def clf(it, k):
        return _pct((it.get("classifier") or {}).get(k))

    rows = [[it["iteration"], f"{it['collected_pages']:,}", f"{it['collected_tokens']:,}",
             _pct(it["overlap_with_previous"]), f"{it['new_pages']:,}", it["flagged_domains"],
             f"{it['seed_positives']:,}", f"{it['seed_added']:,}", clf(it, "precision"), clf(it, "recall"),
             clf(it, "f1"), _pct(it["true_precision"]), _pct(it["true_recall"])] for it in its]
    table = _table(["iteration", "pages", "tokens (bulk text)", "overlap", "new", "flagged", "seed", "+seed",
                    "classifier P", "classifier R", "classifier F1", "true P", "true R"], rows)
    dom_rows = []
    for it in its:
        for d in it.get("top_flagged_domains", [])[:10]:
            dom_rows.append([it["iteration"], d.get("host"), d.get("pages"), d.get("collected"),
                             _pct(d.get("fraction"))])
    mark_rows = mark_table(its, details)
    skip_rows = drop_rows(s)
    decon = s.get("decontamination") or {}
    by_bench = decon.get("by_benchmark") if isinstance(decon, dict) else None
    decon_head, decon_rows = decon_table(by_bench if isinstance(by_bench, dict) else {},
                                         (decon.get("by_benchmark_rule") or {}) if isinstance(decon, dict) else {})
    css = ("body{font-family:system-ui,sans-serif;margin:24px;color:#222}figure{display:inline-block;margin:8px;"
           "vertical-align:top}figcaption{font-weight:600;font-size:13px}table{border-collapse:collapse;margin:8px 0}"
           "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}th{background:#f3f3f3}"
           "td.t{text-align:left;max-width:640px}.tex{font-family:ui-monospace,monospace;color:#303080}"
           "td.u{text-align:left;font-family:ui-monospace,monospace;font-size:11px;word-break:break-all;max-width:320px}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>corpus_pipeline report</title><style>{css}</style></head>
<body>
<h1>corpus_pipeline report</h1>
<p>run: <code>{_esc(s.get('run', ''))}</code> &middot; stopped because: <b>{_esc(s.get('stopped_because'))}</b></p>
<h2 id="iterations">Iterations</h2>{table}
<p>Tokens: whitespace-separated words of the bulk extraction's text. Classifier P/R/F1: on the seed's held-out
part. True P/R: against the labels file, when one was given.</p>
<h2 id="charts">Charts</h2>{''.join(charts)}
{judging_section(s)}
<h2 id="final">Final corpus</h2>
{final_paragraph(s)}
{_table(decon_head, decon_rows) if decon_rows else ''}
{short_items_section(s)}{canaries_section(s)}
{_details_sections(details)}
<h2 id="flagged">Top flagged domains</h2>{_table(['iteration', 'domain', 'pages', 'collected', 'fraction'], dom_rows)}
<h2 id="marks">Marked path prefixes</h2>
<p>Who decided each mark and how many uncollected pages it added to the next iteration's seed.</p>
{_table(['iteration', 'prefix', 'decided by', 'first decided by', 'since iteration', 'pages added to seed'],
        mark_rows)}
{_rejected(its)}
<h2 id="drops">Dropped records by stage and reason</h2>
{hbar_chart("Dropped records by reason", [f"{r[0]}: {r[1].replace('_', ' ')}" for r in skip_rows],
            [r[2] for r in skip_rows])}
{_table(['stage', 'reason', 'count'], [[st, r, f'{n:,}'] for st, r, n in skip_rows])}
<h2 id="histograms">Score histograms</h2>{''.join(hists)}
</body></html>
"""


# ---------------------------------------------------------------- readable tables
_ACTIONS = {"segment_removed": "pages with lines removed", "page_removed": "pages removed",
            "segment_flagged": "pages with lines flagged", "page_flagged": "pages flagged"}


def decon_table(by_bench: dict, by_rule: dict) -> tuple[list, list]:
    """Per benchmark: pages with lines removed, pages removed, and pages per rule (no raw JSON)."""
    actions = sorted({a for d in by_bench.values() for a in d})
    rules = sorted({r for d in by_rule.values() for r in d})
    head = ["benchmark"] + [_ACTIONS.get(a, a.replace("_", " ")) for a in actions] + \
        [f"rule: {r.replace('_', ' ')}" for r in rules]
    rows = [[b] + [by_bench[b].get(a, 0) for a in actions] + [(by_rule.get(b) or {}).get(r, 0) for r in rules]
            for b in sorted(by_bench)]
    return head, rows


def mark_table(its: list, details: dict) -> list[list]:
    growth_by = {k: (v or {}).get("mark_growth") or {} for k, v in (details.get("iterations") or {}).items()}
    rows = []
    for it in its:
        growth = growth_by.get(str(it["iteration"]), {})
        marks = it.get("marks") or [{"path": p} for p in it.get("marked_prefixes", [])]
        for m in marks:
            g = growth.get(m["path"])
            rows.append([it["iteration"], m["path"], m.get("decided_by", "–"), m.get("first_decided_by", "–"),
                         m.get("since") if m.get("since") is not None else "–", "–" if g is None and not growth
                         else (g or 0)])
    return rows


def _rejected(its: list) -> str:
    rows = [[it["iteration"], p] for it in its for p in it.get("rejected_prefixes") or []]
    if not rows:
        return ""
    return "<h3>Rejected path prefixes (not asked again)</h3>" + _table(["iteration", "prefix"], rows)


def _cell(v, cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return f"<td{c}>{_esc(v)}</td>"


def _tex(text: str) -> str:
    """Escaped text with $...$ spans marked (maths stays as TeX)."""

    out, last = [], 0
    for m in re.finditer(r"\$\$[^$]+?\$\$|\$[^$\n]+?\$", text or ""):
        out.append(_esc(text[last:m.start()]))
        out.append(f'<span class="tex">{_esc(m.group(0))}</span>')
        last = m.end()
    out.append(_esc((text or "")[last:]))
    return "".join(out)


def _rich_table(headers: list, rows: list) -> str:
    """Rows of (value, kind) cells: kind "t" text with TeX, "u" a URL (as text, not a link), "" a number."""
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = []
    for r in rows:
        cells = []
        for v, kind in r:
            if kind == "t":
                cells.append(f'<td class="t">{_tex(v)}</td>')
            else:
                cells.append(_cell(v, kind))
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _score(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _details_sections(d: dict) -> str:
    if not d:
        return ("<p>(Sample pages, near duplicates, decontamination examples and languages are shown when the "
                "report is written with the run's tables: <code>corpus-pipeline report RUN</code>.)</p>")
    out = []
    con = d.get("contamination") or {}
    if con.get("decontaminated"):
        rows = [[(r.get("action", "").replace("_", " "), ""), (r.get("reason", "").replace("_", " "), ""),
                 (r.get("url") or r.get("page_id"), "u"), (r.get("benchmark"), ""), (r.get("item_id"), ""),
                 ((r.get("evidence") or "")[:300], "t"), ((r.get("removed_text") or "")[:400], "t"),
                 ((r.get("item_text") or "")[:300], "t")] for r in con.get("rows", [])]
        out.append(f'<h2 id="contamination">Decontamination: what was removed</h2><p>{con.get("total", 0)} '
                   f"rows; the first {len(rows)}, each with its evidence (the page's words that matched the "
                   "benchmark item), the text it removed and the item's own text.</p>"
                   + _rich_table(["action", "rule", "page", "benchmark", "item", "matched", "removed text",
                                  "item text"], rows))
    its = d.get("iterations") or {}
    if its:
        rows = []
        for i in sorted(its, key=int):
            v = its[i]
            for kind, key in (("near the threshold", "near_threshold"), ("far above", "far_above")):
                for r in v.get(key) or []:
                    rows.append([(i, ""), (kind, ""), (_score(r.get("score")), ""), (r.get("url"), "u"),
                                 (r.get("title") or "", "t"), (r.get("excerpt") or "", "t")])
        out.append('<h2 id="samples">Sample collected pages per iteration</h2>'
                   "<p>The lowest-scoring collected pages (nearest the threshold) and the highest-scoring ones.</p>"
                   + _rich_table(["iteration", "sample", "score", "url", "title", "text"], rows))
    nd = d.get("near_duplicates") or {}
    if nd:
        rows = [[(r.get("page_id"), "u"), (r.get("kind"), ""),
                 ("exact" if r.get("similarity") is None else f"{r['similarity']:.3f}", ""),
                 (r.get("kept_url"), "u"), (r.get("kept_excerpt") or "", "t")] for r in nd.get("pairs", [])]
        out.append(f'<h2 id="duplicates">Near-duplicate examples</h2><p>{nd.get("total", 0)} pages removed as near '
                   "duplicates; the least similar pairs (nearest the threshold), with the page kept instead.</p>"
                   + _rich_table(["removed page", "kind", "similarity", "kept page", "kept text"], rows))
    langs = d.get("languages") or {}
    if langs.get("pages"):
        keys = sorted(set(langs.get("pages", {})) | set(langs.get("final", {})),
                      key=lambda k: (-langs["pages"].get(k, 0), k))
        rows = [[language_label(k), f"{langs['pages'].get(k, 0):,}",
                 langs.get("final", {}).get(k, "–") if "final" in langs else "–"] for k in keys]
        out.append('<h2 id="languages">Pages per language</h2>' + _table(["language", "pages", "final corpus"], rows))
    return "\n".join(out)


def _language_chart(d: dict) -> str:
    langs = ((d or {}).get("languages") or {}).get("final") or ((d or {}).get("languages") or {}).get("pages")
    if not langs or list(langs) == ["unknown"]:
        return ""
    keys = sorted(langs, key=lambda k: (-langs[k], k))[:12]
    return hbar_chart("Pages per language (final corpus)", [language_label(k) for k in keys],
                      [langs[k] for k in keys], label_width=160)


# ---------------------------------------------------------------- estimates from judged samples
def _interval(e) -> str:
    return "–" if not e else f"{e['value']:.3f}"


def _ci(e) -> str:
    return "–" if not e else f"{e['low']:.3f} – {e['high']:.3f}"


def judging_section(s: dict) -> str:
    """Per iteration: estimated precision and recall with their 95% intervals and the judgements
    behind them, the truth beside them where labels exist, the strata, the maths pages missed per
    stratum and the stopping aid; in words when nothing was sampled or judged yet."""
    its = s.get("iterations", [])
    run = s.get("judging") or {}
    out = ['<h2 id="judging">Precision and recall from judged samples</h2>']
    if not any(it.get("judging") for it in its):
        out.append("<p>No iteration has a judging sample yet, so there are no estimates: without labels, precision "
                   "and recall are unknown here. <code>corpus-pipeline judge RUN --serve</code> draws a random "
                   "sample of the latest iteration and opens a page to judge it (a few hundred pages).</p>")
        return "\n".join(out)
    out.append("<p>Estimated from a stratified random sample judged by people (<code>corpus-pipeline judge</code>). "
               "Precision: the collected pages' maths share, stratified by score band. Recall: collected maths "
               "pages over all maths pages, both stratified totals. 95% intervals: the 2.5–97.5 percentiles of a "
               "simulation of each stratum's unjudged pages (a Beta posterior of its maths share, Binomial "
               "draws). n: maths and not-maths verdicts behind the estimate (unsure ones are left out).</p>")
    kappa = run.get("agreement") or []
    judges = run.get("judges") or []
    line = f"{run.get('judgements', 0)} judgements of {run.get('pages', 0)} pages by {len(judges)} " \
           f"judge{'s' if len(judges) != 1 else ''}"
    if kappa:
        line += "; agreement: " + ", ".join(f"{k['judges'][0]} and {k['judges'][1]}: Cohen's kappa "
                                           f"{k['kappa']:.2f} on {k['pages']} pages" for k in kappa)
    if run.get("added_to_seed") is None:
        out.append(f"<p>{_esc(line)}. Judgements never train the classifier.</p>")
    else:
        out.append(f"<p>{_esc(line)}. With <code>judge.add_to_seed = true</code>, {run['added_to_seed']:,} pages "
                   "judged maths joined the seed (they train later iterations' classifiers) and are left out of "
                   "later iterations' sample frames: their being collected says nothing about the classifier.</p>")
    for it in its:
        j = it.get("judging")
        i = it["iteration"]
        if not j:
            out.append(f"<h3>Iteration {i}</h3><p>No sample drawn for this iteration "
                       f"(<code>corpus-pipeline judge RUN --iteration {i}</code>).</p>")
            continue
        out.append(f"<h3 id=\"judging-{i}\">Iteration {i}</h3>")
        if j.get("excluded_seed_pages"):
            out.append(f"<p>{j['excluded_seed_pages']:,} judged pages this iteration's seed trained on "
                       "(<code>judge.add_to_seed</code>) are not in its sample frame: the estimates are about "
                       "the other pages.</p>")
        p, r = it.get("estimated_precision"), it.get("estimated_recall")
        if p is None and r is None:
            out.append(f"<p>{j['judged']} of the sample's pages judged, {j['to_judge']} left: no estimate yet "
                       "(every stratum needs at least one verdict).</p>")
        else:
            has_truth = it.get("true_precision") is not None or it.get("true_recall") is not None
            head = ["", "estimate", "95% interval", "n"] + (["true (labels)"] if has_truth else [])
            rows = []
            for name, e, t in (("precision", p, it.get("true_precision")), ("recall", r, it.get("true_recall"))):
                row = [name, _interval(e), _ci(e), "–" if not e else e["n"]]
                if has_truth:
                    row.append(_pct(t) if t is None else f"{t:.3f}")
                rows.append(row)
            out.append(_table(head, rows))
            if r is None:
                out.append("<p>Recall needs a verdict in every uncollected stratum too.</p>")
        if j.get("stopping"):
            out.append(f"<p><b>{_esc(j['stopping'])}</b></p>")
        more = j.get("more_for_recall_width") or {}
        if more.get("total"):
            by = ", ".join(f"{n} in {h}" for h, n in sorted(more["by_stratum"].items(), key=lambda x: -x[1]))
            out.append(f"<p>For a recall interval of about ±{more['width']:.2f}: about {more['total']:,} more "
                       f"judgements ({_esc(by)}).</p>")
        out.append(_table(["stratum", "pages", "drawn", "judged", "n (maths or not)", "maths"],
                          [[x["stratum"], f"{x['pages']:,}", x["drawn"], x["judged"], x["n"], x["maths"]]
                           for x in j.get("strata", [])]))
        if j.get("missed"):
            out.append("<p>Estimated maths pages missed (not collected), per stratum:</p>" +
                       _table(["stratum", "pages", "n", "maths in sample", "missed maths pages", "95% interval"],
                              [[m["stratum"], f"{m['pages']:,}", m["n"], m["maths"], f"{m['missed']:,.0f}",
                                f"{m['low']:,.0f} – {m['high']:,.0f}"] for m in j["missed"]]))
    return "\n".join(out)
