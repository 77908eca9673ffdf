"""The ``url_dedup`` stage: of several fetches of one URL (one page_id), the rows that are not the
latest (``RUN/ingest/url_dedup``).  Its step is :func:`.step.url_dedup`."""
from __future__ import annotations

from ...pipeline.ingest import Dedup
from . import step


class UrlDedup(Dedup):
    name, path, kind = "url_dedup", "ingest/url_dedup", "url"
    keys = ("dedup.url",)
    about = "of several fetches of one URL, keep the latest"

    def removals(self, pages, ctx):
        return {}, step.url_dedup(pages)[1]

    def subtract(self, pages, removed):
        # a removed fetch has its survivor's page_id, and a record read twice (a retried file) has its
        # twin's WARC position too: the deterministic rule is applied again instead of an anti-join
        return step.url_dedup(pages)[0]
