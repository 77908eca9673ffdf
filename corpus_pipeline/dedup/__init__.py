"""Deduplication: URL (url.py), exact text (exact.py), MinHash near-dedup (minhash.py)."""
