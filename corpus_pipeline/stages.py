"""One description of every committed stage, walked by ingest and the loop.

A :class:`Stage` says where a stage's output lives in the run folder, which
table schema it holds, and which configuration keys shape its result.  The
builders that fill a stage live with the Spark code (``spark/ingest.py``,
``loop.py``); they commit through :meth:`RunFolder.stage` with
``settings=stage.settings(cfg)``, so every marker records the settings that
shaped it.

On a rerun :func:`check_settings` walks the committed stages in pipeline order
and compares each recorded setting with the current configuration.  The first
stage whose settings changed is either refused (exit 2, naming the keys and the
stage) or, with ``--recompute``, invalidated together with every stage after it.
Leaf stages nothing else reads (``eval``, ``final/*``) are recomputed without
asking.  Keys in :data:`NEUTRAL` (Spark tuning, retries, batch sizes, logging,
when to stop) never shape a committed result.  ``tests/test_stages.py`` checks
that every key of :class:`~corpus_pipeline.config.Config` is classified.
"""
from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from typing import Callable, Optional

from . import schemas
from .config import Config
from .errors import UsageError

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
)


@dataclass(frozen=True)
class Stage:
    name: str
    path: str                       # relative to RUN; "{iter}" is the iteration folder
    schema: Optional[str] = None    # DDL of the table it holds (None: files)
    keys: tuple = ()                # config keys (fnmatch patterns) that shape the result
    exclude: tuple = ()             # patterns taken out of ``keys``
    leaf: bool = False              # nothing reads it later: recomputed without asking

    def location(self, run, i: Optional[int] = None) -> str:
        rel = self.path.replace("{iter}", run.iter_name(i) if i is not None else "")
        return run.path(*rel.split("/"))

    def settings(self, cfg: Config, extra: Optional[dict] = None) -> dict:
        """The flat ``section.key -> value`` settings that shaped this stage (plus ``extra``)."""
        out = {}
        for key, value in flat(cfg).items():
            if any(fnmatch.fnmatch(key, p) for p in self.keys) and not any(
                    fnmatch.fnmatch(key, p) for p in self.exclude):
                out[key] = value
        out.update(extra or {})
        return json.loads(json.dumps(out, default=str))     # as the marker stores it


EXTRACT_KEYS = ("ingest.max_page_bytes", "ingest.extract_timeout_s", "ingest.min_text_chars",
                "ingest.keep_status", "ingest.html_content_types", "ingest.manifest_base", "ingest.favor",
                "ingest.extractor", "ingest.fallback_extractor")
NEAR_KEYS = ("dedup.near", "dedup.shingle_size", "dedup.bands", "dedup.rows", "dedup.minhash_seed",
             "dedup.verify_jaccard", "dedup.verify_with", "dedup.max_iterations_cc", "dedup.sub_buckets", "dedup.rescue_rounds")

# ingest, in order
EXTRACT = Stage("extract", "ingest/extract", keys=EXTRACT_KEYS)     # one committed batch=NNNNN per file group
URL_DEDUP = Stage("url_dedup", "ingest/url_dedup", keys=("dedup.url",))
EXACT_DEDUP = Stage("exact_dedup", "ingest/exact_dedup", keys=("dedup.exact",))
NEAR_DEDUP = Stage("near_dedup", "ingest/near_dedup", keys=NEAR_KEYS)
PAGES_DUPLICATES = Stage("pages_duplicates", "pages_duplicates", schemas.DUPLICATES)
PAGES_SKIPS = Stage("pages_skips", "pages_skips", schemas.SKIPS)
PAGES = Stage("pages", "pages", schemas.PAGES)
INGEST = (EXTRACT, URL_DEDUP, EXACT_DEDUP, NEAR_DEDUP, PAGES_DUPLICATES, PAGES_SKIPS, PAGES)

# per iteration, in order (the seed of i+1 is built at the end of iteration i)
SEED = Stage("seed", "{iter}/seed", schemas.SEED, keys=("annotate.seed_min_score", "annotate.max_seed_additions",
                                                        "annotate.seed_markup_admits", "judge.add_to_seed"))
MODEL = Stage("model", "{iter}/model", None, keys=("classifier.*", "loop.random_seed"),
              exclude=("classifier.score_batch_size",))
SCORES = Stage("scores", "{iter}/scores", schemas.SCORES)
COLLECTED = Stage("collected", "{iter}/collected", schemas.COLLECTED, keys=("select.*",))
EVAL = Stage("eval", "{iter}/eval", None, leaf=True)                       # extra: labels digest
DOMAINS = Stage("domains", "{iter}/domains", schemas.DOMAINS,
                keys=("domains.key", "domains.flag_fraction", "domains.min_pages"))
PREFIXES = Stage("prefixes", "{iter}/prefixes", schemas.PREFIXES,
                 keys=("domains.key", "domains.path_depth", "domains.examples", "domains.prefix_min_pages",
                       "domains.max_prefixes_per_domain"))
ANNOTATIONS = Stage("annotations", "{iter}/annotations", None,
                    keys=("annotate.propose_*", "annotate.worksheet_max_domains"))                         # auto mode only; in place
ITERATION = (SEED, MODEL, SCORES, COLLECTED, EVAL, DOMAINS, PREFIXES, ANNOTATIONS)

# after the loop (extra: benchmarks, last iteration)
CONTAMINATION = Stage("contamination", "final/contamination", schemas.CONTAMINATION,
                      keys=("decontam.*",), leaf=True)
CORPUS = Stage("corpus", "final/corpus", schemas.FINAL_CORPUS, keys=("decontam.*", "final.*"), leaf=True)
FINAL = (CONTAMINATION, CORPUS)


def flat(cfg: Config) -> dict:
    return {f"{s}.{k}": v for s, sec in cfg.to_dict().items() for k, v in sec.items()}


def classify_key(key: str) -> list[str]:
    """Names of the stages a config key shapes ([] for a neutral key)."""
    if any(fnmatch.fnmatch(key, p) for p in NEUTRAL):
        return []
    return [s.name for s in INGEST + ITERATION + FINAL
            if any(fnmatch.fnmatch(key, p) for p in s.keys) and not any(fnmatch.fnmatch(key, p) for p in s.exclude)]


def walk(run) -> list[tuple[Stage, str]]:
    """Every stage location of ``run`` in pipeline order (committed or not)."""
    out = [(s, s.location(run)) for s in INGEST]
    for i in run.iterations():
        out += [(s, s.location(run, i)) for s in ITERATION]
    out += [(s, s.location(run)) for s in FINAL]
    return out


def extract_batches(run) -> list[str]:
    """The batch folders of the extraction stage (committed or not), in order."""
    base = EXTRACT.location(run)
    return [f"{base}/{e}" for e in run.fs.listdir(base) if e.startswith("batch=")]


def changed(recorded: dict, current: dict) -> list[str]:
    """Keys whose recorded value differs (keys the marker did not record are not compared)."""
    return sorted(k for k, v in recorded.items() if k in current and current[k] != v)


def check_settings(run, cfg: Config, recompute: bool = False,
                   current: Optional[Callable[[Stage], dict]] = None,
                   log: Callable[[str], None] = print) -> Optional[str]:
    """Compare every committed stage's recorded settings with ``cfg``.

    ``current(stage)`` gives a stage's settings now when they are more than its
    config keys (labels digest, benchmarks; default ``stage.settings(cfg)``);
    recorded keys it does not return are not compared.  Returns the
    relative path of the first recomputed stage, or None.  Raises
    :class:`UsageError` when settings changed and ``recompute`` is false.
    """
    stages = walk(run)
    for k, (stage, path) in enumerate(stages):
        m = run.marker(path)
        if not m and stage is EXTRACT:                  # extraction not finished: its batches' settings
            m = next((run.marker(b) for b in extract_batches(run) if run.is_committed(b)), None)
        if not m:
            continue
        now = current(stage) if current else stage.settings(cfg)
        if stage is ANNOTATIONS and (m.get("config") or {}).get("mode") != "auto":
            continue                                    # a person's marks depend on no setting
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

