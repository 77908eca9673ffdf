"""Deduplication's pure rules: URL (url.py), exact text (exact.py); MinHash near dedup's are in its stage
folder (stages/near_dedup/rules.py)."""
