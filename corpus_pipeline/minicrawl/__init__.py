"""Deterministic, labeled mini-crawl generator (gzip WARCs + labels.jsonl + manifest.json)."""
from .generator import MixConfig, generate

__all__ = ["MixConfig", "generate"]
