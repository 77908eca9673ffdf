"""The recipe's stages, one folder each (``stages/<name>/``): the stage class with its declared reads,
output, schema and settings (``stage.py``), its DataFrame step (``step.py``, the only module of the
folder that imports pyspark) and its pure rules (``rules.py``).  docs/layout.md lists which stages have
moved here; the others are still in ``pipeline/`` (the stage classes), ``spark/`` (their steps) and the
base modules (their rules)."""
