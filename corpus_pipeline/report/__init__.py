"""Reports: metrics gathered from the run folder's commit markers, rendered as
``summary.json`` (the contract), ``index.html`` (self-contained, with charts)
and a Markdown summary."""
from .summary import build_summary, write_report  # noqa: F401
