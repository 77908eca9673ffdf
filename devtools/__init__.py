"""Development material, outside the product package (the wheel ships ``corpus_pipeline`` only):
the development crawl of real content (``devcrawl``), the extraction-quality reference pages
(``extract_quality``). Used by tests/, bench/ and seeds/build_seed.py; run from the repository's root
(``python -m devtools.devcrawl``)."""
