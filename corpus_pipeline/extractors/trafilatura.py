"""``trafilatura``: the maths rewrite on trafilatura's lxml tree, then trafilatura 2.x (``extract.py``)."""
from __future__ import annotations

from .. import extract as _ex


class TrafilaturaExtractor:
    name = "trafilatura"

    def extract(self, html: str, url: str, favor: str = "default"):
        return _ex._extract(html, url, favor)
