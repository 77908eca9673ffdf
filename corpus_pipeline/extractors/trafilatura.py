"""``trafilatura``: the maths rewrite on trafilatura's lxml tree, then trafilatura 2.x
(:func:`corpus_pipeline.extract.trafilatura_extract`)."""
from __future__ import annotations

from ..extract import trafilatura_extract


class TrafilaturaExtractor:
    name = "trafilatura"

    def extract(self, html: str, url: str, favor: str = "default"):
        return trafilatura_extract(html, url, favor)
