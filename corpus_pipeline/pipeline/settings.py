"""The settings check of a rerun: refuse, or recompute from the first changed stage.

Every committed stage's marker records the settings that shaped it (its
config keys, the settings that are not config keys such as the seed's digest,
and ``recipe.upstream``, the stages before it in the recipe).  On a rerun
:func:`check_settings` walks the committed stages in recipe order and compares
each recorded setting with the current one.  The first stage whose settings
changed is either refused (exit 2, naming the keys and the stage) or, with
``--recompute``, invalidated together with every stage after it.  Leaf stages
nothing else reads (``eval``, ``final/*``) are recomputed without asking.
Recorded keys the current run does not compute (a marker of an earlier release
has keys this one dropped) are not compared, and keys a marker did not record
are not compared either, so a run folder of the previous release resumes.

Keys in :data:`NEUTRAL` (Spark tuning, retries, batch sizes, logging, when to
stop) never shape a committed result.  ``tests/test_stages.py`` checks that
every key of :class:`~corpus_pipeline.config.Config` is classified.
"""
from __future__ import annotations

import fnmatch
from typing import Callable, Optional

from ..config import Config
from ..errors import UsageError
from .recipe import Recipe, default_recipe
from .stage import BATCHES, Stage, flat, matches

__all__ = ["NEUTRAL", "check_settings", "classify_key", "flat", "walk"]

# Settings that never change a committed result.
NEUTRAL = (
    "spark.*",                      # Spark tuning, app name, log level, checkpoint folder
    "ingest.files_per_task", "ingest.files_per_commit",   # grouping of files; results ignore it
    "ingest.s3_endpoint_url", "ingest.s3_anonymous_buckets", "ingest.s3_anonymous",
    "ingest.s3_max_attempts", "ingest.s3_read_timeout_s", "ingest.s3_connect_timeout_s",
    "ingest.file_attempts", "ingest.file_retry_backoff_s",   # how to reach the same bytes
    "ingest.http_*", "ingest.shared_local_paths",
    "ingest.warc_reader",           # the WARC parser: same records, same skips (tests/test_warc.py)
    "dedup.sample_pairs",           # example pairs kept for the report only
    "classifier.score_batch_size",  # batching of predictions
    "annotate.mode",                # how future worksheets are decided; marks already made stay
    "annotate.worksheet_max_prefixes",  # how many candidates the worksheet lists
    "loop.saturation", "loop.max_iterations",   # when to stop: re-decided from committed counts
    "plugins.modules",              # which code can be chosen; the choice (classifier.kind, ...) is the setting
)


def classify_key(key: str, recipe: Optional[Recipe] = None) -> list[str]:
    """Names of the stages a config key shapes ([] for a neutral key)."""
    if any(fnmatch.fnmatch(key, p) for p in NEUTRAL):
        return []
    return [s.name for s in (recipe or default_recipe()).committed_stages() if matches(key, s.keys, s.exclude)]


def walk(run, recipe: Optional[Recipe] = None) -> list[tuple[Stage, str]]:
    """Every stage location of ``run`` in recipe order (committed or not)."""
    recipe = recipe or default_recipe()
    out = [(s, s.location(run)) for s in recipe.ingest if s.commits]
    for i in run.iterations():
        out += [(s, s.location(run, i)) for s in recipe.iteration if s.commits]
    out += [(s, s.location(run)) for s in recipe.final if s.commits]
    return out


def changed(recorded: dict, current: dict) -> list[str]:
    """Keys whose recorded value differs (keys the marker did not record are not compared)."""
    return sorted(k for k, v in recorded.items() if k in current and current[k] != v)


def check_settings(run, cfg: Config, recompute: bool = False,
                   current: Optional[Callable[[Stage], dict]] = None,
                   log: Callable[[str], None] = print, recipe: Optional[Recipe] = None) -> Optional[str]:
    """Compare every committed stage's recorded settings with ``cfg``.

    ``current(stage)`` gives a stage's settings now when they are more than its
    config keys (labels digest, benchmarks, the stages before it; default
    ``stage.settings(cfg)``); recorded keys it does not return are not
    compared.  Returns the relative path of the first recomputed stage, or
    None.  Raises :class:`UsageError` when settings changed and ``recompute``
    is false.
    """
    stages = walk(run, recipe)
    for k, (stage, path) in enumerate(stages):
        m = run.marker(path)
        if not m and stage.commit_mode == BATCHES:       # not finished (extraction): its batches' settings
            m = next((run.marker(b) for b in stage.batches(run) if run.is_committed(b)), None)
        if not m or not stage.compares(m):
            continue
        now = current(stage) if current else stage.settings(cfg)
        keys = changed(m.get("settings") or {}, now)
        if not keys:
            continue
        rel = run._rel(path)
        if stage.leaf:
            log(f"[recompute] {rel}: {', '.join(keys)} changed")
            run.invalidate(path)
            continue
        if not recompute:
            was = m.get("settings") or {}
            detail = ", ".join(f"{key}: {was[key]!r} -> {now[key]!r}" for key in keys)
            raise UsageError(f"{run.uri}: settings changed since stage {rel} was committed ({detail}); "
                             f"{rel} and every stage after it would change. Rerun with --recompute to redo "
                             f"them, or use the original settings or a new --run folder.")
        log(f"[recompute] {rel} and every later stage: {', '.join(keys)} changed")
        for _, later in reversed(stages[k:]):
            run.invalidate(later)
        for i in run.iterations():                      # iteration folders left empty
            if not run.fs.listdir(run.iter_dir(i)):
                run.fs.delete(run.iter_dir(i))
        return rel
    return None
