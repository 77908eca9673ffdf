"""The Markdown summary printed at the end of a run."""
from __future__ import annotations

from .html import _decon_sentence, corpus_folder


def _p(x, pct=False) -> str:
    if x is None:
        return "–"
    return f"{x:.1%}" if pct else f"{x:.3f}"


def render_markdown(s: dict) -> str:
    lines = [f"## corpus_pipeline run: {s.get('run', '')}", "",
             f"stopped because: **{s.get('stopped_because') or 'not finished'}**", "",
             "| iter | collected pages | tokens | overlap w/ prev | new | flagged domains | seed | +seed "
             "| clf P/R/F1 | true P | true R |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for it in s.get("iterations", []):
        c = it.get("classifier") or {}
        lines.append(
            f"| {it['iteration']} | {it['collected_pages']:,} | {it['collected_tokens']:,} | "
            f"{_p(it['overlap_with_previous'], True)} | {it['new_pages']:,} | {it['flagged_domains']} | "
            f"{it['seed_positives']:,} | {it['seed_added']:,} | "
            f"{_p(c.get('precision'))}/{_p(c.get('recall'))}/{_p(c.get('f1'))} | "
            f"{_p(it['true_precision'], True)} | {_p(it['true_recall'], True)} |")
    for it in s.get("iterations", []):
        if it.get("drift_warning"):
            lines += ["", f"drift warning: iteration {it['iteration']} collected more pages than the one before "
                          "with the same seed"]
    for it in s.get("iterations", []):
        j = it.get("judging")
        if not j:
            continue
        est = [f"{k} {e['value']:.3f} (95% {e['low']:.3f}-{e['high']:.3f}, n={e['n']})"
               for k, e in (("precision", it.get("estimated_precision")), ("recall", it.get("estimated_recall"))) if e]
        lines += ["", f"iteration {it['iteration']}, judged sample: " + ("; ".join(["estimated " + est[0]] + est[1:])
                                                                         if est else f"{j['judged']} pages judged, "
                                                                         "no estimate yet")]
        if j.get("stopping"):
            lines.append(j["stopping"])
    f = s.get("final") or {}
    if f.get("pages") is not None:         # no final corpus yet (a run waiting for marks): no line
        lines += ["", f"final corpus ({corpus_folder(f)}/): {f['pages']:,} pages, {f.get('tokens') or 0:,} tokens of the "
                      f"final text; {_decon_sentence(f)}"]
    if s.get("marked_file"):
        lines += ["", f"waiting for annotation: mark the paths on the page `corpus-pipeline annotate {s.get('run', 'RUN')} "
                      f"--serve` serves (or edit `{s['marked_file']}`; `corpus-pipeline annotate {s.get('run', 'RUN')}` "
                      f"shows the worksheet), then run the same command again"]
    return "\n".join(lines) + "\n"
