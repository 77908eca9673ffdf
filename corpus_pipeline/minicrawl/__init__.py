"""Deterministic, labeled mini-crawl generator (gzip WARCs + labels.jsonl + manifest.json).

    generate(out_dir, pages=3000, random_seed=1, mix=None, label_domains=(), code_sites=False) -> dict   # the manifest

All page text is assembled at random from word banks and templates written
for this generator (``textgen.py``, ``formulas.py``); no real documents are
copied, so there is no ``data/`` folder.  The mix (hosts, sections, document
kinds, maths markup, duplicate/redirect/non-HTML rates) is tunable through
:class:`MixConfig` and the site table in ``sites.py``; ``code_sites=True`` adds the
programming sites of ``sites.CODE_SITES`` (page texts: ``codetext.py``).
"""
from .generator import MixConfig, generate

__all__ = ["MixConfig", "generate"]
