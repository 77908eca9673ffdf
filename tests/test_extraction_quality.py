"""Quality gates of issue 14 on real pages with published ground truth (see extract_quality).

For the extractor that writes the final corpus (``final.extractor``'s default) every gate holds:
maths kept on >= 18 of the 20 llm_webkit_bench maths pages, token F1 on llm_webkit_bench and
article_extraction_benchmark no worse than plain trafilatura's by more than 0.02, trafilatura's
evaldata.json snippets at least as good as plain trafilatura's.  The bulk-pass extractor
(``ingest.extractor``'s default) must keep the maths and the llm_webkit_bench F1; its article F1
and snippet scores are measured and printed (README, quality table) rather than gated: they
are why the final corpus is re-extracted.
"""
from __future__ import annotations

import pytest

from corpus_pipeline.config import Config
from corpus_pipeline.extract import Extracted, extract_html
from devtools.extract_quality import evaluate

pytestmark = pytest.mark.slow
F1_SLACK = 0.02
MATHS_TARGET = 18


@pytest.fixture(scope="module")
def plain(shared_data):
    import trafilatura

    return evaluate(lambda h, u: trafilatura.extract(h, url=u, include_comments=False) or "", shared_data)


def _ours(name):
    def run(html, url):
        r = extract_html(html, url, timeout_s=30.0, extractor=name)
        return r.text if isinstance(r, Extracted) else ""
    return run


def _line(name, q):
    return (f"{name:<22} webkit F1 {q['webkit_f1']:.3f}  article F1 {q['article_f1']:.3f}  "
            f"maths {q['maths_kept']}/{q['maths_pages']}  snippets {q['snippets_right']}/{q['snippets_total']}")


def test_final_extractor_holds_every_gate(shared_data, plain):
    name = Config().final.extractor
    q = evaluate(_ours(name), shared_data)
    print("\n" + _line("plain trafilatura", plain) + "\n" + _line(name, q))
    assert q["maths_pages"] == 20 and q["maths_kept"] >= MATHS_TARGET
    assert q["webkit_f1"] >= plain["webkit_f1"] - F1_SLACK
    assert q["article_f1"] >= plain["article_f1"] - F1_SLACK
    assert q["snippets_right"] >= plain["snippets_right"] - 0.001 * plain["snippets_total"]


def test_bulk_extractor_keeps_maths_and_main_text(shared_data, plain):
    name = Config().ingest.extractor
    q = evaluate(_ours(name), shared_data)
    print("\n" + _line("plain trafilatura", plain) + "\n" + _line(name, q))
    assert q["maths_pages"] == 20 and q["maths_kept"] >= MATHS_TARGET
    assert q["webkit_f1"] >= plain["webkit_f1"] - F1_SLACK
    # measured, not gated (see module doc): still a real main-text extractor on news pages
    assert q["article_f1"] >= 0.85
