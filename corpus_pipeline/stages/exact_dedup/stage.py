"""The ``exact_dedup`` stage: of the pages with one normalized-text hash, all but the smallest page_id
(``RUN/ingest/exact_dedup``), from what URL dedup kept.  Its step is :func:`.step.exact_dedup`."""
from __future__ import annotations

from ...pipeline.ingest import Dedup
from . import step


class ExactDedup(Dedup):
    name, path, kind = "exact_dedup", "ingest/exact_dedup", "exact"
    keys = ("dedup.exact",)
    about = "identical normalized text: keep the smallest page_id"

    def removals(self, pages, ctx):
        return {}, step.exact_dedup(pages)[1]
