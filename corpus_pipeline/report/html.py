"""index.html: one self-contained page (inline SVG charts, no scripts, no network)."""
from __future__ import annotations

import html
import json

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


def _axis(ymax: float, fmt) -> str:
    out = []
    for k in range(5):
        v = ymax * k / 4
        y = H - PAD - (H - 2 * PAD) * k / 4
        out.append(f'<line x1="{PAD}" x2="{W - 8}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{PAD - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{fmt(v)}</text>')
    return "".join(out)


def bar_chart(title: str, labels: list, values: list, fmt=compact) -> str:
    if not values:
        return f"<figure><figcaption>{_esc(title)}</figcaption><p>no data</p></figure>"
    ymax = max(max(values), 1e-9)
    n = len(values)
    bw = (W - PAD - 10) / n
    bars = []
    for k, (lab, v) in enumerate(zip(labels, values)):
        h = (H - 2 * PAD) * (v / ymax)
        x = PAD + k * bw
        bars.append(f'<rect x="{x + 1:.1f}" y="{H - PAD - h:.1f}" width="{max(bw - 2, 1):.1f}" height="{h:.1f}" '
                    f'fill="{COLORS[0]}"><title>{_esc(lab)}: {_esc(fmt(v))}</title></rect>')
        if n <= 25:
            bars.append(f'<text x="{x + bw / 2:.1f}" y="{H - PAD + 12}" font-size="9" '
                        f'text-anchor="middle">{_esc(lab)}</text>')
    return (f'<figure><figcaption>{_esc(title)}</figcaption><svg width="{W}" height="{H}" '
            f'xmlns="http://www.w3.org/2000/svg">{_axis(ymax, fmt)}{"".join(bars)}</svg></figure>')


def line_chart(title: str, xs: list, series: dict, ymax: float | None = None, fmt=lambda v: f"{v:.2f}") -> str:
    vals = [v for s in series.values() for v in s if v is not None]
    if not vals:
        return f"<figure><figcaption>{_esc(title)}</figcaption><p>no data</p></figure>"
    ymax = ymax or max(max(vals), 1e-9)
    n = max(len(xs), 2)

    def px(k):
        return PAD + (W - PAD - 16) * k / (n - 1)

    def py(v):
        return H - PAD - (H - 2 * PAD) * (v / ymax)

    parts, legend = [], []
    for c, (name, ys) in enumerate(series.items()):
        color = COLORS[c % len(COLORS)]
        pts = [(px(k), py(v)) for k, v in enumerate(ys) if v is not None]
        if pts:
            parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                         + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
            parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in pts]
        legend.append(f'<span style="color:{color}">&#9632; {_esc(name)}</span>')
    ticks = "".join(f'<text x="{px(k):.1f}" y="{H - PAD + 12}" font-size="10" text-anchor="middle">{_esc(x)}</text>'
                    for k, x in enumerate(xs))
    return (f'<figure><figcaption>{_esc(title)} {" ".join(legend)}</figcaption><svg width="{W}" height="{H}" '
            f'xmlns="http://www.w3.org/2000/svg">{_axis(ymax, fmt)}{"".join(parts)}{ticks}</svg></figure>')


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
    return rows


def _decon_sentence(fin: dict) -> str:
    if fin.get("pages_removed_by_decontamination") is None:
        return "not decontaminated (no --benchmarks)"
    return (f"decontamination removed {fin['pages_removed_by_decontamination']} pages and "
            f"{fin.get('segments_removed')} segments")


def _pct(x) -> str:
    return "–" if x is None else f"{x:.1%}"


def render_html(s: dict) -> str:
    its = s.get("iterations", [])
    xs = [it["iteration"] for it in its]
    charts = [
        bar_chart("Collected pages per iteration", xs, [it["collected_pages"] for it in its]),
        bar_chart("Collected tokens per iteration", xs, [it["collected_tokens"] for it in its]),
        line_chart("Overlap with previous iteration (saturation rule)", xs,
                   {"overlap": [it["overlap_with_previous"] for it in its]}, ymax=1.0),
        bar_chart("Seed positives per iteration", xs, [it["seed_positives"] for it in its]),
        line_chart("Classifier (held-out)", xs,
                   {k: [(it.get("classifier") or {}).get(k) for it in its] for k in ("precision", "recall", "f1")},
                   ymax=1.0),
    ]
    if any(it.get("true_recall") is not None for it in its):
        charts.append(line_chart("True precision and recall (labels)", xs,
                                 {"true precision": [it["true_precision"] for it in its],
                                  "true recall": [it["true_recall"] for it in its]}, ymax=1.0))
    for it in its:
        hist = it.get("score_histogram") or []
        if hist:
            labels = [f"{k / len(hist):.2f}" if k % 5 == 0 else "" for k in range(len(hist))]
            charts.append(bar_chart(f"Score histogram, iteration {it['iteration']}", labels, hist))

    rows = [[it["iteration"], f"{it['collected_pages']:,}", f"{it['collected_tokens']:,}",
             _pct(it["overlap_with_previous"]), it["new_pages"], it["flagged_domains"], it["seed_positives"],
             it["seed_added"], _pct(it["true_precision"]), _pct(it["true_recall"])] for it in its]
    table = _table(["iteration", "pages", "tokens", "overlap", "new", "flagged", "seed", "+seed", "true P", "true R"],
                   rows)
    dom_rows = []
    for it in its:
        for d in it.get("top_flagged_domains", [])[:10]:
            dom_rows.append([it["iteration"], d.get("host"), d.get("pages"), d.get("collected"),
                             _pct(d.get("fraction"))])
    mark_rows = [[it["iteration"], p] for it in its for p in it.get("marked_prefixes", [])]
    skip_rows = drop_rows(s)
    fin = s.get("final") or {}
    decon = s.get("decontamination") or {}
    by_bench = decon.get("by_benchmark") if isinstance(decon, dict) else None
    decon_rows = []
    if isinstance(by_bench, dict):
        for b, d in sorted(by_bench.items()):
            decon_rows.append([b, json.dumps(d)])
    css = ("body{font-family:system-ui,sans-serif;margin:24px;color:#222}figure{display:inline-block;margin:8px;"
           "vertical-align:top}figcaption{font-weight:600;font-size:13px}table{border-collapse:collapse;margin:8px 0}"
           "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}th{background:#f3f3f3}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>corpus_pipeline report</title><style>{css}</style></head>
<body>
<h1>corpus_pipeline report</h1>
<p>run: <code>{_esc(s.get('run', ''))}</code> &middot; stopped because: <b>{_esc(s.get('stopped_because'))}</b></p>
<h2>Iterations</h2>{table}
<h2>Charts</h2>{''.join(charts)}
<h2>Final corpus</h2>
<p>{_esc(fin.get('pages'))} pages, {_esc(fin.get('tokens'))} tokens; {_esc(_decon_sentence(fin))}.</p>
{_table(['benchmark', 'removed'], decon_rows) if decon_rows else ''}
<h2>Top flagged domains</h2>{_table(['iteration', 'domain', 'pages', 'collected', 'fraction'], dom_rows)}
<h2>Marked path prefixes</h2>{_table(['iteration', 'prefix'], mark_rows)}
<h2>Dropped records by stage and reason</h2>
{bar_chart("Dropped records by reason", [f"{r[0]}:{r[1]}" for r in skip_rows], [r[2] for r in skip_rows])}
{_table(['stage', 'reason', 'count'], skip_rows)}
</body></html>
"""
