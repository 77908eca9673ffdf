"""Exact dedup, one folder: ``stage.py`` (the stage) and ``step.py`` (its DataFrame step). Its key, the
normalized text's hash, is computed while extracting (``dedup/exact.py``): no rules of its own here."""
