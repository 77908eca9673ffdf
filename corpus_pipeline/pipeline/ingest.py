"""The ingest stages: WARC files -> RUN/pages (+ pages_skips, pages_duplicates), built once per run.

1. ``extract`` (``RUN/ingest/extract/batch=NNNNN/``): sources are resolved on
   the driver; the files not yet extracted are cut into batches of
   ``ingest.files_per_commit`` files, and each batch is one Spark job (two in
   flight, so one batch's tail overlaps the next) with one task per
   ``ingest.files_per_task`` files applying the pure
   :func:`corpus_pipeline.ingest.process_source`.  Each task yields its page rows
   and then its counters as rows of the same table (counts are data, so a
   retried task cannot count twice).  A batch's marker lists its files: that is
   the recorded progress.  Once every file is in a committed batch, the stage's
   own marker records the totals.
2. the dedup stages, one per rule (``url_dedup``: per normalized URL the latest
   fetch survives; ``exact_dedup``: per normalized-text hash the smallest
   ``page_id``; ``near_dedup``: MinHash; each in its folder, ``corpus_pipeline/stages/<name>/``).
   Each stores only what it removed (``DEDUP_REMOVED``); its input is the
   extracted pages minus the removals of the dedup stages before it, so no
   stage copies the corpus and every rule ignores partitioning.
3. ``pages_duplicates`` (the removal tables together), ``pages_skips`` (every
   skip reason per source file), then ``pages``, whose marker carries the
   ingest counts.

Counts are computed once from data (one aggregate over the counter rows, one
count per small removal table) and carried forward through the markers.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from .. import fs as fsmod
from .. import schemas
from ..errors import NoInputError, UsageError
from ..ingest import LANG_PREFIX, SHOWN_FILES, STAT_KEYS, no_input_message, no_page_message, split_totals
from ..profiles import for_config as profile_of
from ..sources import resolve
from ..spark import ingest as sparkingest
from ..spark.classic import master as master_of
from ..spark.io import write_counted
from .stage import BATCHES, INGEST, Stage, TableStage

EXTRACT_KEYS = ("ingest.max_page_bytes", "ingest.extract_timeout_s", "ingest.min_text_chars",
                "ingest.keep_status", "ingest.html_content_types", "ingest.manifest_base", "ingest.favor",
                "ingest.extractor", "ingest.fallback_extractor",
                "profile.name")   # the profile's markup column is computed while extracting
COUNTERS = "counters"   # a batch marker's config key: its counter totals, {reason: n}
IN_FLIGHT = 2     # extraction batches submitted at once: one batch's last tasks overlap the next


class Extract(Stage):
    name, path, scope = "extract", "ingest/extract", INGEST
    commit_mode = BATCHES           # one sub-folder and marker per batch of files, then the stage's marker
    schema = sparkingest.STAGED
    keys = EXTRACT_KEYS
    about = ("read the WARCs (local, S3, HTTPS, any Hadoop filesystem, a `warc.paths` manifest), keep HTTP 200 "
             "HTML responses, extract the main text with its maths kept as TeX (resiliparse for the bulk pass, "
             "trafilatura as fallback), detect the language; committed in batches of files")

    def batches(self, run) -> list[str]:
        """The batch folders (committed or not), in order."""
        base = self.location(run)
        return [f"{base}/{e}" for e in run.fs.listdir(base) if e.startswith("batch=")]

    def progress(self, run) -> dict[str, str]:
        """Recorded progress: input file -> the committed batch folder that holds its rows."""
        done = {}
        for b in self.batches(run):
            for f in (run.marker(b) or {}).get("counts", {}).get("files", []):
                done[f] = b
        return done

    def schema_for(self, cfg):
        return sparkingest.staged(profile_of(cfg).markup_column)

    def totals(self, ctx, batches: list[str]) -> dict:
        """Every counter of the committed ``batches`` summed: from their markers (the totals observed
        while each was written); a batch committed without them (an older version's) is read back."""
        run, out, unrecorded = ctx.run, {}, []
        for b in batches:
            found = ((run.marker(b) or {}).get("config") or {}).get(COUNTERS)
            if found is None:
                unrecorded.append(b)
                continue
            for reason, n in found.items():
                out[reason] = out.get(reason, 0) + int(n)
        if unrecorded:
            staged = sparkingest.read_batches(ctx.spark, [run.data(b) for b in unrecorded], self.schema_for(ctx.cfg))
            for reason, n in sparkingest.counter_totals(staged).items():
                out[reason] = out.get(reason, 0) + n
        return out

    def load(self, ctx, location: str):
        m = ctx.run.marker(location) or {}
        return sparkingest.read_batches(ctx.spark, [ctx.run.data(fsmod.join(location, b))
                                                    for b in m.get("config", {}).get("batches", [])],
                                        self.schema_for(ctx.cfg))

    def write(self, ctx, base: str):
        """Every input file extracted in committed batches; (counts, config) of the stage's marker, which
        the runner writes in place. Files already in a committed batch are not read again; batches that
        are not committed (a killed run's) are removed first."""
        run, cfg, log = ctx.run, ctx.cfg, ctx.say
        inputs = list(ctx.inputs.inputs)
        refs = list(dict.fromkeys(resolve(inputs, cfg.ingest, ctx.spark, master=master_of(ctx.spark))))  # once each
        if not refs:
            raise UsageError("ingest: no input")
        log(f"[ingest] {len(refs)} WARC file(s), {cfg.ingest.files_per_task} per task")
        wanted = set(refs)
        for b in self.batches(run):               # unfinished attempts, or files no longer in the inputs
            files = (run.marker(b) or {}).get("counts", {}).get("files")
            if files is None or not set(files) <= wanted:
                run.fs.delete(b)
        done = self.progress(run)
        todo = [r for r in refs if r not in done]
        per = sparkingest.files_per_commit(ctx.spark, cfg)
        batches = [todo[k:k + per] for k in range(0, len(todo), per)]
        numbers = [int(b.rsplit("=", 1)[1]) for b in self.batches(run)]
        first = max(numbers, default=-1) + 1
        log(f"[ingest] extract: {len(done)} of {len(refs)} file(s) already extracted; {len(todo)} to read in "
            f"{len(batches)} batch(es) of <= {per} file(s), {cfg.ingest.files_per_task} per task")

        def one(k: int, files: list[str]) -> str:
            path = fsmod.join(base, f"batch={first + k:05d}")

            found: dict = {}

            def build(attempt: str) -> dict:
                found.update(sparkingest.extract_to_staging(ctx.spark, files, cfg, attempt))
                return {"files": list(files)}

            # the batch's counter totals (observed while writing) go in its marker's config: the
            # stage's totals are summed from the markers, no job reads the counter rows back
            ctx.commit_batch(path, build, config=lambda: {"batch": first + k, COUNTERS: dict(found)})
            return path

        t0 = time.time()
        if batches:
            with ThreadPoolExecutor(max_workers=IN_FLIGHT) as pool:
                for fut in [pool.submit(one, k, files) for k, files in enumerate(batches)]:
                    fut.result()
        log(f"[ingest] extract: {len(todo)} file(s) in {time.time() - t0:.1f}s")

        order = sorted(set(self.progress(run).values()))
        stats, skips, langs = split_totals(self.totals(ctx, order))
        if stats["files_read"] == 0 or stats["pages_extracted"] == 0:
            # nothing to go on (exit 2, one line): no file gave a record, or no record a page
            if stats["files_read"] == 0:
                per_file = {r: {} for r in refs}
                staged = sparkingest.read_batches(ctx.spark, [run.data(b) for b in order], self.schema_for(cfg))
                rows = sparkingest.skip_rows(staged, STAT_KEYS, LANG_PREFIX).limit(20 * SHOWN_FILES + 1000)
                for row in rows.collect():
                    per_file.setdefault(row["source"], {})[row["reason"]] = int(row["count"])
                message = no_input_message(per_file, len(refs))
            else:
                message = no_page_message(len(refs), {**stats, **skips})
            run.fs.delete(base)
            raise NoInputError(message)
        counts = {**stats, "inputs": len(refs), "skips": skips, "skipped_records": sum(skips.values()),
                  "languages": langs, "batches": len(order), "files_extracted_now": len(todo)}
        return counts, {"batches": [b.rsplit("/", 1)[1] for b in order]}


class Dedup(Stage):
    """One dedup rule: stores the rows it removes from what the dedup stages before it kept."""

    scope = INGEST
    schema = schemas.DEDUP_REMOVED
    section = "dedup"
    kind = ""                       # url, exact, near: counted as <kind>_duplicates

    @property
    def count_key(self) -> str:
        """The marker count of the rows this stage removed."""
        return f"{self.kind}_duplicates"

    def enabled(self, cfg) -> bool:
        return bool(getattr(cfg.dedup, self.kind))

    def removals(self, pages, ctx) -> tuple[dict, object]:
        """(extra counts, the removed rows as DEDUP_REMOVED) of ``pages``."""
        raise NotImplementedError

    def build(self, ctx, staging: str) -> dict:
        if not self.enabled(ctx.cfg):
            ctx.write_table(sparkingest.empty(ctx.spark, self.schema), staging, self.schema)
            return {self.count_key: 0}
        extra, df = self.removals(remaining(ctx, before=self), ctx)
        n = write_counted(df, staging, self.schema)
        return {self.count_key: n, **extra}

    def subtract(self, pages, removed):
        """``pages`` less this stage's committed removals ``removed``."""
        return sparkingest.without_pages(pages, removed)

    def describe(self, cfg) -> str:
        return self.about + ("" if self.enabled(cfg) else " (off)")


def dedup_stages(ctx, before: Optional[Stage] = None) -> list[Dedup]:
    """The dedup stages of the recipe (those before ``before``), in order."""
    out = []
    for s in ctx.runner.recipe.ingest:
        if s is before:
            break
        if isinstance(s, Dedup):
            out.append(s)
    return out


def remaining(ctx, before: Optional[Stage] = None):
    """The extracted pages minus the rows the dedup stages (before ``before``) removed."""
    pages = sparkingest.page_rows(ctx.read("extract"))
    for s in dedup_stages(ctx, before):
        if ctx.counts(s.name).get(s.count_key, 0):     # the stage removed nothing: no join
            pages = s.subtract(pages, ctx.read(s.name))
    return pages


def _dedup_counts(ctx) -> dict:
    out = {}
    for s in dedup_stages(ctx):
        out.update(ctx.counts(s.name))
    return out


class PagesDuplicates(TableStage):
    name, path, scope = "pages_duplicates", "pages_duplicates", INGEST
    schema = schemas.DUPLICATES
    reads = ("url_dedup", "exact_dedup", "near_dedup")
    about = "every removed duplicate, with the page it duplicates and the rule that removed it"

    def record(self, ctx):
        return ctx.cfg.section("dedup")

    def table(self, ctx):
        dfs = [ctx.read(s.name) for s in dedup_stages(ctx)]
        d = dfs[0]
        for other in dfs[1:]:
            d = d.unionByName(other)
        return d

    def build(self, ctx, staging: str) -> dict:
        ctx.write_table(self.table(ctx), staging, self.schema)
        counts = _dedup_counts(ctx)
        return {s.count_key: counts.get(s.count_key, 0) for s in dedup_stages(ctx)}


class PagesSkips(TableStage):
    name, path, scope = "pages_skips", "pages_skips", INGEST
    schema = schemas.SKIPS
    reads = ("extract",)
    about = "every skipped record, counted with its reason, per source file"

    def record(self, ctx):
        return ctx.cfg.section("ingest")

    def table(self, ctx):
        return sparkingest.skip_rows(ctx.read("extract"), STAT_KEYS, LANG_PREFIX)

    def build(self, ctx, staging: str) -> dict:
        ctx.write_table(self.table(ctx), staging, self.schema)
        return dict(ctx.counts("extract").get("skips", {}))


class Pages(TableStage):
    name, path, scope = "pages", "pages", INGEST
    schema = schemas.PAGES
    reads = ("extract", "url_dedup", "exact_dedup", "near_dedup", "pages_duplicates")
    cached = True
    about = "the deduplicated pages, written once and read by every iteration"

    def schema_for(self, cfg):
        return profile_of(cfg).pages_schema

    def record(self, ctx):
        return {"ingest": ctx.cfg.section("ingest"), "dedup": ctx.cfg.section("dedup"),
                "inputs": list(ctx.inputs.inputs)}

    def table(self, ctx):
        return remaining(ctx, before=self)

    def build(self, ctx, staging: str) -> dict:
        ctx.write_table(self.table(ctx), staging, self.schema_for(ctx.cfg))
        ext = ctx.counts("extract")
        dres = ctx.counts("pages_duplicates")
        counts = {k: ext.get(k, 0) for k in STAT_KEYS}
        removed_rows = sum(dres.get(s.count_key, 0) for s in dedup_stages(ctx))
        counts.update({
            "inputs": ext.get("inputs", 0),
            "pages": counts["pages_extracted"] - removed_rows,   # every removal row is one extracted row
            "skips": dict(ext.get("skips", {})),
            "skipped_records": ext.get("skipped_records", 0),
            "languages": dict(ext.get("languages", {})),
        })
        counts.update(dres)
        near = _dedup_counts(ctx).get("near_dedup")
        if near:
            counts["near_dedup"] = near
        return counts


def summarize(counts: dict) -> str:
    c = counts
    return (f"pages={c.get('pages', 0)} files={c.get('files', 0)} read={c.get('files_read', 0)} "
            f"records={c.get('records', 0)} extracted={c.get('pages_extracted', 0)} "
            f"url_dups={c.get('url_duplicates', 0)} exact_dups={c.get('exact_duplicates', 0)} "
            f"near_dups={c.get('near_duplicates', 0)} skipped={c.get('skipped_records', 0)}")
