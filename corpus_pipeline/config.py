"""Typed, validated settings for every stage.

One TOML file (sections below) plus repeated ``--set section.key=value``
overrides.  Unknown sections or keys and wrong types are errors that name the
key (:class:`ConfigError`, exit code 2 in the CLI).  Defaults are the paper's
(DeepSeekMath §2.1) where it gives one.

Each stage reads only its own section, so a stage's resolved section is what
gets recorded in that stage's commit marker.
"""
from __future__ import annotations

import difflib
import dataclasses
import json
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

from .classifiers import kinds as _classifier_kinds
from .extractors import names as _extractors
from .plugins import load
from .profiles import names as _profiles


class ConfigError(ValueError):
    """Invalid configuration: the message names the file and/or key."""


def opt(default: Any = dataclasses.MISSING, help: str = "", *,
        default_factory: Any = dataclasses.MISSING) -> Any:
    """A setting: a dataclass field whose help text is data (``metadata["help"]``).

    ``corpus_pipeline.docgen`` builds docs/configuration.md's reference from it, and
    ``tests/test_docs.py`` checks that no setting is without one.
    """
    return field(default=default, default_factory=default_factory, metadata={"help": help})


@dataclass
class SparkConfig:
    master: Optional[str] = opt(
        None, "Spark master URL; unset: the one spark-submit hands the driver, else `local[*]`")
    remote: Optional[str] = opt(
        None, "Spark Connect URL (`sc://host:15002`; also `SPARK_REMOTE`): a Connect session instead of a classic "
              "one (needs pyspark 4.x and `corpus_pipeline[connect]`; the client reaches run folders on object storage through pyarrow)")
    ship_code: bool = opt(
        True, "Spark Connect: send the product's own code to the server's Python workers as an artifact "
              "(`addArtifacts(pyfile=True)`, once per session); false when the server's Python already has "
              "this version of `corpus_pipeline` installed")
    app_name: str = opt("corpus_pipeline", "Spark application name")
    driver_memory: Optional[str] = opt(
        None, "driver memory, e.g. \"4g\"; only applies when the command starts the JVM itself")
    shuffle_partitions: Optional[int] = opt(
        None, "`spark.sql.shuffle.partitions`; unset: 2 x the default parallelism")
    log_level: str = opt(
        "WARN", "lowest level of Spark's own log lines written to the command's Spark log: `RUN/logs/spark.log`, "
                "or a file in the temporary folder (the `[spark]` line names it); under spark-submit, the root "
                "level of the driver's log configuration, which decides where the lines go")
    console_log_level: str = opt(
        "ERROR", "lowest level of Spark's log lines also shown on the console (stderr): `WARN` shows Spark's "
                 "warnings too, `OFF` none; only when the command starts the JVM itself")
    checkpoint_dir: Optional[str] = opt(
        None, "Spark checkpoint folder (near dedup's connected components); unset: `<run>/_checkpoints`")
    driver_java_options: str = opt(
        "-XX:TieredStopAtLevel=1",
        "options of the driver JVM when the command starts it itself (not under spark-submit; in local mode "
        "the driver JVM runs the executors too); the default compiles with the JIT's first tier only, which "
        "saves the optimising compiler's CPU on short runs (docs/how-it-works.md); `SPARK_SUBMIT_OPTS` and "
        "`spark.driver.extraJavaOptions` come after it and win; empty: the JVM's own defaults")
    class_archive: str = opt(
        "auto",
        "class-data-sharing archive the driver JVM maps when the command starts it itself, which cuts its "
        "start-up (`corpus-pipeline jvm-cache` writes it; `make setup` runs that): `auto` uses the one in "
        "the cache folder for this java and these Spark jars when it exists, a path names another file, "
        "`off` none; a missing or mismatched archive only means the JVM starts without it")
    conf: dict = opt(default_factory=dict, help="any other `spark.*` settings, as a table")


@dataclass
class IngestConfig:
    max_page_bytes: int = opt(
        2_000_000, "HTTP payloads larger than this are skipped (`page_too_large`)")
    extract_timeout_s: float = opt(
        5.0, "per-page extraction time limit in seconds (SIGALRM, or a watchdog in non-main threads); "
             "a timed-out page is counted as `extract_timeout`")
    min_text_chars: int = opt(
        100, "extracted text shorter than this is dropped (`text_too_short`), after the fallback extractor")
    keep_status: list = opt(default_factory=lambda: [200], help="HTTP status codes of the responses kept")
    html_content_types: list = opt(
        default_factory=lambda: ["text/html", "application/xhtml+xml"],
        help="Content-Types read as HTML; other responses are skipped (`not_html`)")
    files_per_task: int = opt(1, "WARC files per Spark task (a Common Crawl WARC is ~1 GB compressed)")
    files_per_commit: Optional[int] = opt(
        None, "WARC files per committed extraction batch (the unit a resumed ingest skips); unset: two "
              "task waves of the cluster")
    s3_endpoint_url: Optional[str] = opt(
        None, "another S3 service (MinIO, a loopback moto server in tests); unset: AWS")
    s3_anonymous_buckets: list = opt(
        default_factory=lambda: ["commoncrawl"],
        help="buckets read with unsigned (anonymous) requests; others use the boto3 credential chain")
    s3_anonymous: Optional[bool] = opt(
        None, "force unsigned (true) or signed (false) requests for every bucket; unset: "
              "`s3_anonymous_buckets` decides")
    s3_max_attempts: int = opt(8, "attempts per S3 request (503 SlowDown, resets, timeouts), exponential backoff")
    s3_read_timeout_s: float = opt(60.0, "S3 read timeout in seconds")
    file_attempts: int = opt(
        3, "whole-file attempts after a mid-stream failure: the file is re-opened and resumed after the "
           "last record (`file_retries`)")
    manifest_base: str = opt(
        "s3://commoncrawl/", "what relative lines of a `warc.paths(.gz)` manifest are resolved against")
    favor: Literal["default", "recall", "precision"] = opt(
        "default", "trafilatura's extraction bias (`favor_recall` / `favor_precision`); no effect on resiliparse")
    file_retry_backoff_s: float = opt(
        1.0, "first wait in seconds before re-opening a file after a mid-stream failure (doubles)")
    s3_connect_timeout_s: float = opt(10.0, "S3 connect timeout in seconds")
    http_max_attempts: int = opt(
        8, "attempts per `https://` request (408, 429, 5xx, refused or reset connections, timeouts), "
           "full-jitter exponential backoff; counted `http_retries`")
    http_backoff_s: float = opt(
        1.0, "first wait in seconds between HTTP request attempts (doubles, jittered, at most 60 s; "
             "a `Retry-After` is honoured)")
    http_read_timeout_s: float = opt(60.0, "HTTP read timeout in seconds")
    http_connect_timeout_s: float = opt(10.0, "HTTP connect timeout in seconds")
    shared_local_paths: bool = opt(
        False, "local input paths are on a filesystem every cluster node mounts at the same place "
               "(otherwise a local path with a non-local master is refused)")
    extractor: str = opt(
        "resiliparse", "main-text extractor of the bulk pass (every page; `corpus_pipeline.extractors`): "
                       "`resiliparse` or `trafilatura`; both keep maths")
    fallback_extractor: str = opt(
        "auto", "a page whose bulk text is empty or under `min_text_chars` is extracted again with this one "
                "before it is skipped (counted `bulk_fallback`); `auto`: trafilatura (fast mode) unless the "
                "bulk extractor is trafilatura; `none`: off")
    warc_reader: Literal["fastwarc", "warcio"] = opt(
        "warcio", "WARC record parser; `fastwarc` reads the same records with the same counts, measured "
                  "slower here once made exact (`python -m bench ingest`)")

    def fallback(self) -> Optional[str]:
        """The extractor a page the bulk extractor loses is re-extracted with (None: no fallback)."""
        if self.fallback_extractor == "none":
            return None
        if self.fallback_extractor == "auto":
            return None if self.extractor == "trafilatura" else "trafilatura"
        return None if self.fallback_extractor == self.extractor else self.fallback_extractor


@dataclass
class DedupConfig:
    url: bool = opt(True, "URL dedup: of several fetches of one URL the latest is kept")
    exact: bool = opt(True, "exact dedup on normalized text: the smallest page_id is kept")
    near: bool = opt(True, "MinHash near-dedup: in each cluster the longest text is kept, ties by smallest page_id")
    shingle_size: int = opt(5, "word n-grams the MinHash signatures are computed over")
    bands: int = opt(14, "LSH bands (bands x rows = the number of permutations; 14 x 8 is about a 0.72 "
                         "similarity threshold)")
    rows: int = opt(8, "rows per LSH band (bands x rows = the number of permutations)")
    minhash_seed: int = opt(1, "seed of the MinHash permutations")
    verify_jaccard: Optional[float] = opt(
        0.7, "Jaccard check of candidate pairs: pairs below it are not duplicates; unset: no verification")
    verify_with: str = opt(
        "shingles", "`shingles`: exact Jaccard of the shingle sets; `signatures`: Jaccard estimated from the "
                    "MinHash signatures (fixed 112 values a page, standard error 0.043 at 0.7)")
    max_iterations_cc: int = opt(30, "at most this many rounds of connected components (large-star/small-star)")
    sample_pairs: int = opt(20, "removed pairs kept, with excerpts, for the report")
    sub_buckets: int = opt(64, "LSH buckets split by a page hash into this many sub-buckets: no task holds a "
                               "whole large bucket")
    rescue_rounds: int = opt(2, "members failing verification against their root are regrouped and compared "
                                "again this many times")


@dataclass
class ClassifierConfig:
    dim: int = opt(256, "fastText vector size (the paper's)")
    lr: float = opt(0.1, "fastText learning rate (the paper's)")
    word_ngrams: int = opt(3, "fastText word n-grams (the paper's)")
    min_count: int = opt(3, "fastText minimal word count (the paper's)")
    epoch: int = opt(3, "fastText training epochs (the paper's)")
    bucket: int = opt(200_000, "fastText hash buckets: 200k keep the model ~220 MB; fastText's default 2M "
                               "gives a 2 GB model at dim 256")
    threads: int = opt(1, "fastText training threads; more than 1 makes training non-deterministic")
    seed: int = opt(0, "fastText's random seed (and `train`'s default held-out split seed)")
    max_words: int = opt(2000, "documents are truncated to this many tokens")
    negatives_per_positive: float = opt(
        3.0, "random negatives per seed document (lines balanced to the seed's)")
    holdout_fraction: float = opt(0.1, "share of each class held out to measure the classifier (metrics.json)")
    score_batch_size: int = opt(512, "pages per prediction batch when scoring")
    train_chunk_words: int = opt(
        64, "training documents are split into lines of this many tokens (0: whole documents, which underfit)")
    balance_classes: bool = opt(True, "repeat the smaller class's training lines to match the larger")
    negatives_exclude_math_markup: bool = opt(
        True, "negatives are random pages that are not seeds, the same draw every iteration; with this, pages "
              "carrying the profile's markup are not drawn (maths: MathJax, KaTeX, MathML, TeX images; code: "
              "code blocks); drawing them lets the classifier learn the markup as negative (measured in "
              "docs/configuration.md)")
    negatives_by_language: bool = opt(
        True, "random negatives per language: the positives' languages in the positives' proportions, the "
              "crawl's other languages keep their crawl share")
    background_negatives: bool = opt(
        True, "a language the crawl has too few pages of is filled from the shipped background set "
              "(`seeds/background/<lang>.jsonl.gz`), then by repeating its pages")
    kind: str = opt("fasttext", "classifier implementation from the registry in `corpus_pipeline/classifiers/`")
    options: dict = opt(default_factory=dict,
                        help="a classifier plugin's own settings, as a table (fastText's are the keys above); they "
                             "shape the model like every classifier setting")
    max_positives: int = opt(
        500_000, "training positives sampled (seeded hash) from the seed; the paper's first classifier: 500k")
    max_negatives: int = opt(500_000, "training negatives cap (the paper's 500k random crawl pages)")


@dataclass
class SelectConfig:
    mode: Literal["threshold", "tokens", "fraction"] = opt(
        "threshold", "`threshold`: collect pages scoring at least `threshold`; `tokens` / `fraction`: the "
                     "top pages by score within a token budget")
    threshold: float = opt(0.5, "score at or above which a page is collected (mode `threshold`)")
    token_budget: Optional[int] = opt(None, "tokens to collect, best score first (mode `tokens`)")
    token_fraction: Optional[float] = opt(
        None, "share of all tokens to collect, best score first (mode `fraction`: the paper's top-K)")


@dataclass
class DomainConfig:
    key: Literal["host", "registered"] = opt(
        "host", "`host`: lower-cased host without port; `registered`: the registered domain (offline suffix list)")
    flag_fraction: float = opt(0.10, "a domain is flagged when more than this share of its pages is collected")
    min_pages: int = opt(5, "domains with fewer pages are never flagged (= `annotate.propose_min_pages`)")
    path_depth: int = opt(2, "path-prefix statistics for prefixes of depth 1..path_depth")
    examples: int = opt(3, "example URLs per prefix in the worksheet")
    prefix_min_pages: int = opt(2, "prefixes with fewer pages are left out of the prefix statistics")
    max_prefixes_per_domain: int = opt(200, "at most this many prefixes per host (most pages first)")


@dataclass
class AnnotateConfig:
    mode: Literal["auto", "manual"] = opt(
        "auto", "`auto`: the proposer marks path prefixes; `manual`: the run stops at each worksheet for a "
                "person (`run --annotate` overrides it)")
    propose_min_fraction: float = opt(0.5, "the proposer marks a prefix when collected / pages is at least this")
    propose_min_pages: int = opt(5, "a proposed prefix has at least this many pages")
    propose_min_collected: int = opt(3, "a proposed prefix has at least this many collected pages")
    worksheet_max_prefixes: int = opt(40, "candidate prefixes listed per host in the worksheet")
    propose_min_lift: float = opt(0.3, "a proposed prefix's collected share beats the rest of its host's by this")
    propose_min_rest_pages: int = opt(
        5, "a prefix with fewer pages than this outside it on its host counts as the whole host")
    propose_whole_host_fraction: float = opt(
        0.4, "the whole host (`host/`) is proposed at this collected share when its uncollected pages look "
             "like its collected ones, or when it files every page by id or date")
    propose_min_host_share: float = opt(
        0.8, "a folder holding this share of its host's collected pages, at `propose_min_folder_fraction` or "
             "more collected and its uncollected pages alike, is proposed")
    propose_min_folder_fraction: float = opt(
        0.2, "the collected share a folder holding `propose_min_host_share` of its host's collected pages "
             "needs to be proposed")
    propose_markup_ratio: float = opt(
        0.5, "look-alike: the uncollected pages' maths-markup share is at least this times the collected pages'")
    propose_near_score: float = opt(
        0.1, "look-alike: at least `propose_near_share` of the uncollected pages score this or more")
    propose_near_share: float = opt(
        0.5, "look-alike: the share of uncollected pages that must score `propose_near_score` or more")
    worksheet_max_domains: int = opt(
        100, "flagged domains in the worksheet and marked file (most uncollected pages under their best "
             "prefix first); the full statistics stay in `iter=NNN/prefixes`")
    seed_min_score: float = opt(0.0, "pages under marks join the seed only with this score or more")
    max_seed_additions: int = opt(5000, "at most this many pages join the seed per iteration (best score first)")
    seed_markup_admits: bool = opt(
        False, "with `seed_min_score` > 0: a page with maths markup joins whatever its score")


@dataclass
class LoopConfig:
    saturation: float = opt(
        0.98, "stop when this share of an iteration's collection was collected in the previous one")
    max_iterations: int = opt(6, "stop after this many iterations")
    random_seed: int = opt(
        42, "seed of the training sets' samples (seed rows, random negatives), the held-out split and the "
            "training order (and `judge`'s default `--seed`)")


@dataclass
class DecontamConfig:
    ngram: int = opt(10, "benchmark n-gram length (the paper's 10-grams)")
    short_min_grams: int = opt(
        3, "questions of `short_min_grams` .. `ngram - 1` tokens are short questions, looked up whole")
    benchmarks: list = opt(default_factory=list, help="benchmarks to use; empty: every known benchmark found")
    exclude_short: list = opt(default_factory=list, help="benchmarks left out of the short exact rule")
    min_chars_after: int = opt(100, "pages shorter than this after cleaning are dropped")
    short_include_options: bool = opt(
        False, "the short rule matches a multiple-choice stem only together with its options")
    mode: Literal["remove", "flag"] = opt(
        "remove", "`flag`: write the same contamination rows (`segment_flagged`, `page_flagged`), keep every "
                  "page and line")
    min_specific: int = opt(
        8, "a matched span is evidence only when this many of its tokens lie in a specific 4-gram: one found in "
           "fewer than `generic_items` benchmark questions, with 3 distinct tokens (formula tokens count like "
           "words; a counting sequence, generic matrix or stock phrase does not)")
    min_span: int = opt(13, "a matched span is evidence only with this many tokens (and `min_specific` specific "
                            "ones), unless it is the item's whole question")
    long_span: int = opt(
        40, "a matched span of one item this many tokens long is evidence however generic its 4-grams, when that "
           "many of its tokens lie in a 4-gram that is not predictable (3 distinct tokens, no counting run); 0: off")
    generic_items: int = opt(
        3, "a 4-gram found in this many distinct benchmark questions is generic (notation, identities, stock "
           "phrasing): it makes no span or short question specific; 0: every 4-gram is specific")
    min_coverage: float = opt(
        0.85, "a span inside a question only is evidence when the page around it holds this share of the "
              "question (numbers and single letters as wildcards); 0: off, every span is evidence")
    long_words: int = opt(14, "a span inside a question only is also evidence when it holds this many words")
    max_stock: float = opt(
        0.4, "a span inside a question only is also evidence when under this share of its words is the "
             "benchmarks' stock phrasing (word 4-grams in 3 or more benchmark questions)")
    short_specific: float = opt(
        0.5, "a whole question under `min_span` tokens is looked up only when this share of its tokens lies in a "
             "specific 4-gram (a question under 4 tokens: this share of words); the others are generic, left out")
    max_items: int = opt(1, "a gram in more distinct benchmark questions than this is common and never matches")
    copy_share: float = opt(
        0.8, "two benchmark items sharing this share of the smaller one's n-grams are copies of one text (the same "
             "question in two sets, a subproblem repeating the earlier ones): they count once for `max_items` and "
             "`generic_items`; 0: only items with the same question count once")
    max_pages: int = opt(
        0, "reserved for a corpus commonness rule (a gram on more pages than this is common, NeMo Curator's "
           "`max_matches`); only 0 (off) is accepted: the decontamination stage does not apply it")
    canaries: int = opt(
        100, "`RUN/final/canaries`: per item kind, this many copies of corpus pages with one benchmark item "
             "planted, run through the same rules (the caught share per kind, with its 95% interval; the "
             "corpus is not touched); 0: off")


@dataclass
class JudgeConfig:
    add_to_seed: bool = opt(
        False, "true: pages judged maths (majority verdict, `corpus-pipeline judge`) join the next seed grown "
               "and are left out of later iterations' judging sample frames; false: judgements never train")


@dataclass
class FinalConfig:
    format: Literal["parquet", "jsonl.gz"] = opt(
        "parquet", "`RUN/final/corpus` as Parquet files, or gzipped JSON lines (`part-*.json.gz`)")
    extractor: str = opt(
        "trafilatura", "the final corpus's pages are fetched again by `warc_file` + `warc_offset` and "
                       "re-extracted with this extractor; `ingest`: keep the bulk pass's text (no second "
                       "read of the WARCs)")


def _section(cls: type, help: str) -> Any:
    return field(default_factory=cls, metadata={"help": help})


@dataclass
class ProfileConfig:
    name: str = opt(
        "math", "the domain profile, what the corpus is about: its starter seed, the label that counts as "
                "positive in `--labels` files and verdicts, the markup column of `RUN/pages`, the default "
                "benchmarks (`math`, `code`, or one a plugin registers; `corpus_pipeline/profiles/`)")


@dataclass
class PluginsConfig:
    modules: list = opt(
        default_factory=list,
        help="Python modules imported when the configuration is loaded; each registers its classifiers or "
             "extractors (REGISTRY.register). Importable by the driver; on Spark a classifier's module travels "
             "with the scoring tasks, its libraries must be installed on the executors")


@dataclass
class Config:
    spark: SparkConfig = _section(SparkConfig, "Spark session settings; none of them changes a result")
    ingest: IngestConfig = _section(
        IngestConfig, "reading WARCs (local, S3, HTTPS, Hadoop filesystems, manifests) and extracting their pages")
    dedup: DedupConfig = _section(DedupConfig, "URL, exact and MinHash near deduplication of the extracted pages")
    classifier: ClassifierConfig = _section(
        ClassifierConfig, "the fastText maths classifier: training settings, training sets, scoring")
    select: SelectConfig = _section(SelectConfig, "which scored pages an iteration collects")
    domains: DomainConfig = _section(DomainConfig, "domain flagging and the path-prefix statistics of flagged domains")
    annotate: AnnotateConfig = _section(
        AnnotateConfig, "the path step: the worksheet, the proposer's rules, pages under marks joining the seed")
    loop: LoopConfig = _section(LoopConfig, "the iteration loop: when to stop, the random seed")
    decontam: DecontamConfig = _section(DecontamConfig, "10-gram decontamination against the benchmarks")
    judge: JudgeConfig = _section(JudgeConfig, "judging sampled pages (`corpus-pipeline judge`)")
    final: FinalConfig = _section(FinalConfig, "the final corpus: format and second-tier re-extraction")
    profile: ProfileConfig = _section(
        ProfileConfig, "the domain profile: maths by default, or programming (`code`)")
    plugins: PluginsConfig = _section(
        PluginsConfig, "outside modules that register their own classifiers, extractors or profiles (no fork "
                       "needed)")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def section(self, name: str) -> dict:
        return dataclasses.asdict(getattr(self, name))

    def to_toml(self) -> str:
        return dump_toml(self.to_dict())


# ---------------------------------------------------------------- validation
def _type_check(value: Any, tp: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if origin is typing.Union:  # Optional[X]
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _type_check(value, inner[0], key)
    if origin is Literal:
        if value not in args:
            raise ConfigError(f"{key}: {value!r} is not one of {', '.join(map(repr, args))}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true/false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected a string, got {value!r}")
        return value
    if tp is list or origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        return value
    if tp is dict or origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a table, got {value!r}")
        return value
    return value


def _section_types(cls) -> dict:
    return typing.get_type_hints(cls)


def known_keys() -> list[str]:
    """Every ``section.key`` of the configuration, in declaration order."""
    return [f"{s}.{k}" for s, tp in _section_types(Config).items() for k in _section_types(tp)]


def closest_keys(name: str, n: int = 3) -> list[str]:
    """The known ``section.key`` names closest to ``name`` across every section (difflib): the same key
    in other sections first (``classifier.threshold`` -> ``select.threshold``), then the names closest
    as a whole, then by the key alone."""
    known = known_keys()
    key = name.rsplit(".", 1)[-1]
    out = [k for k in known if k.rsplit(".", 1)[-1] == key]
    out += difflib.get_close_matches(name, known, n=n, cutoff=0.6)
    by_key: dict = {}
    for k in known:
        by_key.setdefault(k.rsplit(".", 1)[-1], []).append(k)
    for m in difflib.get_close_matches(key, list(by_key), n=n, cutoff=0.75):
        out += by_key[m]
    return list(dict.fromkeys(k for k in out if k != name))[:n]


def _did_you_mean(name: str) -> str:
    near = closest_keys(name)
    return f"; did you mean {' or '.join(near)}?" if near else ""


# keys of earlier releases, refused with what replaced them
RETIRED = {
    "decontam.min_words": "use decontam.min_specific (tokens of a span in a specific 4-gram: formula counts, "
                          "generic notation and stock phrasing do not)",
    "decontam.short_min_words": "use decontam.short_specific (share of a short question's tokens in a specific "
                                "4-gram)",
}


def _apply(cfg: Config, data: dict, where: str) -> None:
    sections = _section_types(Config)
    for sname, svalues in data.items():
        if sname not in sections:
            hint = ""
            if isinstance(svalues, dict) and svalues:
                hint = _did_you_mean(f"{sname}.{next(iter(svalues))}")
            raise ConfigError(f"{where}: unknown section [{sname}]{hint} (known sections: {', '.join(sections)})")
        if not isinstance(svalues, dict):
            raise ConfigError(f"{where}: [{sname}] must be a table")
        section = getattr(cfg, sname)
        hints = _section_types(type(section))
        for key, value in svalues.items():
            if f"{sname}.{key}" in RETIRED:
                raise ConfigError(f"{where}: {sname}.{key} is retired: {RETIRED[f'{sname}.{key}']}")
            if key not in hints:
                raise ConfigError(f"{where}: unknown key {sname}.{key}{_did_you_mean(f'{sname}.{key}')} "
                                  f"({sname}'s keys: {', '.join(hints)})")
            setattr(section, key, _type_check(value, hints[key], f"{sname}.{key}"))


def _check_ranges(cfg: Config) -> None:
    def need(cond: bool, key: str, msg: str) -> None:
        if not cond:
            raise ConfigError(f"{key}: {msg}")

    levels = ("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
    for k in ("log_level", "console_log_level"):
        need(str(getattr(cfg.spark, k)).upper() in levels, f"spark.{k}", f"must be one of {', '.join(levels)}")
    need(cfg.ingest.max_page_bytes > 0, "ingest.max_page_bytes", "must be > 0")
    need(cfg.ingest.extract_timeout_s > 0, "ingest.extract_timeout_s", "must be > 0")
    need(cfg.ingest.files_per_task >= 1, "ingest.files_per_task", "must be >= 1")
    need(cfg.ingest.files_per_commit is None or cfg.ingest.files_per_commit >= 1, "ingest.files_per_commit",
         "must be >= 1 or unset")
    need(cfg.ingest.s3_max_attempts >= 1, "ingest.s3_max_attempts", "must be >= 1")
    need(cfg.ingest.file_attempts >= 1, "ingest.file_attempts", "must be >= 1")
    need(cfg.ingest.file_retry_backoff_s >= 0, "ingest.file_retry_backoff_s", "must be >= 0")
    need(cfg.ingest.min_text_chars >= 0, "ingest.min_text_chars", "must be >= 0")
    need(cfg.ingest.http_max_attempts >= 1, "ingest.http_max_attempts", "must be >= 1")
    need(cfg.ingest.http_backoff_s >= 0, "ingest.http_backoff_s", "must be >= 0")
    need(cfg.ingest.http_read_timeout_s > 0 and cfg.ingest.http_connect_timeout_s > 0,
         "ingest.http_read_timeout_s", "HTTP timeouts must be > 0")
    need(cfg.ingest.extractor in _extractors(), "ingest.extractor", f"must be one of {', '.join(_extractors())}")
    need(cfg.ingest.fallback_extractor in _extractors() + ("auto", "none"), "ingest.fallback_extractor",
         f"must be one of {', '.join(_extractors() + ('auto', 'none'))}")
    need(cfg.final.extractor in _extractors() + ("ingest",), "final.extractor",
         f"must be one of {', '.join(_extractors() + ('ingest',))}")
    need(cfg.dedup.shingle_size >= 1, "dedup.shingle_size", "must be >= 1")
    need(cfg.dedup.bands >= 1 and cfg.dedup.rows >= 1, "dedup.bands", "bands and rows must be >= 1")
    need(cfg.dedup.verify_jaccard is None or 0 < cfg.dedup.verify_jaccard <= 1,
         "dedup.verify_jaccard", "must be in (0, 1] or unset")
    need(cfg.dedup.verify_with in ("shingles", "signatures"), "dedup.verify_with",
         "must be shingles or signatures")
    need(cfg.dedup.max_iterations_cc >= 1, "dedup.max_iterations_cc", "must be >= 1")
    need(cfg.dedup.sample_pairs >= 0, "dedup.sample_pairs", "must be >= 0")
    need(cfg.dedup.sub_buckets >= 1, "dedup.sub_buckets", "must be >= 1")
    need(cfg.dedup.rescue_rounds >= 0, "dedup.rescue_rounds", "must be >= 0")
    for k in ("dim", "epoch", "min_count", "word_ngrams", "bucket", "threads", "max_words", "score_batch_size"):
        need(getattr(cfg.classifier, k) >= 1, f"classifier.{k}", "must be >= 1")
    need(cfg.classifier.lr > 0, "classifier.lr", "must be > 0")
    need(cfg.classifier.train_chunk_words >= 0, "classifier.train_chunk_words", "must be >= 0 (0: whole documents)")
    need(0 <= cfg.classifier.holdout_fraction < 1, "classifier.holdout_fraction", "must be in [0, 1)")
    need(cfg.classifier.negatives_per_positive > 0, "classifier.negatives_per_positive", "must be > 0")
    need(cfg.classifier.max_positives >= 1, "classifier.max_positives", "must be >= 1")
    need(cfg.classifier.max_negatives >= 1, "classifier.max_negatives", "must be >= 1")

    need(cfg.profile.name in _profiles(), "profile.name", f"unknown profile (known: {', '.join(_profiles())})")

    need(cfg.classifier.kind in _classifier_kinds(), "classifier.kind",
         f"unknown classifier (known: {', '.join(_classifier_kinds())})")
    need(0 <= cfg.select.threshold <= 1, "select.threshold", "must be in [0, 1]")
    if cfg.select.mode == "tokens":
        need(cfg.select.token_budget is not None and cfg.select.token_budget > 0,
             "select.token_budget", "mode 'tokens' needs a positive token_budget")
    if cfg.select.mode == "fraction":
        need(cfg.select.token_fraction is not None and 0 < cfg.select.token_fraction <= 1,
             "select.token_fraction", "mode 'fraction' needs token_fraction in (0, 1]")
    need(0 <= cfg.domains.flag_fraction < 1, "domains.flag_fraction", "must be in [0, 1)")
    need(cfg.domains.path_depth >= 1, "domains.path_depth", "must be >= 1")
    need(cfg.domains.min_pages >= 1, "domains.min_pages", "must be >= 1")
    need(cfg.domains.examples >= 0, "domains.examples", "must be >= 0")
    need(cfg.domains.prefix_min_pages >= 1, "domains.prefix_min_pages", "must be >= 1")
    need(cfg.domains.max_prefixes_per_domain >= 1, "domains.max_prefixes_per_domain", "must be >= 1")
    need(cfg.annotate.propose_min_pages >= 1, "annotate.propose_min_pages", "must be >= 1")
    need(cfg.annotate.propose_min_collected >= 1, "annotate.propose_min_collected", "must be >= 1")
    need(cfg.annotate.worksheet_max_prefixes >= 1, "annotate.worksheet_max_prefixes", "must be >= 1")
    need(0 <= cfg.annotate.propose_min_fraction <= 1, "annotate.propose_min_fraction", "must be in [0, 1]")
    need(-1 <= cfg.annotate.propose_min_lift <= 1, "annotate.propose_min_lift", "must be in [-1, 1]")
    need(cfg.annotate.propose_min_rest_pages >= 0, "annotate.propose_min_rest_pages", "must be >= 0")
    for k in ("propose_min_host_share", "propose_min_folder_fraction", "propose_markup_ratio", "propose_near_score",
              "propose_near_share"):
        need(0 <= getattr(cfg.annotate, k) <= 1, f"annotate.{k}", "must be in [0, 1]")
    need(0 <= cfg.annotate.propose_whole_host_fraction <= 1, "annotate.propose_whole_host_fraction",
         "must be in [0, 1]")
    need(cfg.annotate.worksheet_max_domains >= 1, "annotate.worksheet_max_domains", "must be >= 1")
    need(0 <= cfg.annotate.seed_min_score <= 1, "annotate.seed_min_score", "must be in [0, 1]")
    need(cfg.annotate.max_seed_additions >= 0, "annotate.max_seed_additions", "must be >= 0")
    need(0 < cfg.loop.saturation <= 1, "loop.saturation", "must be in (0, 1]")
    need(cfg.loop.max_iterations >= 1, "loop.max_iterations", "must be >= 1")
    need(cfg.decontam.ngram >= 2, "decontam.ngram", "must be >= 2")
    need(1 <= cfg.decontam.short_min_grams < cfg.decontam.ngram, "decontam.short_min_grams",
         "must be >= 1 and below decontam.ngram")
    need(cfg.decontam.min_chars_after >= 0, "decontam.min_chars_after", "must be >= 0")
    need(cfg.decontam.min_specific >= 0, "decontam.min_specific", "must be >= 0 (0: every span is evidence)")
    need(cfg.decontam.long_span >= 0, "decontam.long_span", "must be >= 0 (0: off)")
    need(cfg.decontam.generic_items >= 0, "decontam.generic_items", "must be >= 0 (0: no 4-gram is generic)")
    need(0 <= cfg.decontam.short_specific <= 1, "decontam.short_specific", "must be between 0 and 1")
    need(cfg.decontam.canaries >= 0, "decontam.canaries", "must be >= 0 (0: no canaries)")
    need(cfg.decontam.max_items >= 0, "decontam.max_items", "must be >= 0 (0: no commonness rule)")
    need(0 <= cfg.decontam.copy_share <= 1, "decontam.copy_share", "must be between 0 and 1 (0: off)")
    need(0 <= cfg.decontam.min_coverage <= 1, "decontam.min_coverage", "must be between 0 and 1 (0: no question rule: every span is evidence)")
    need(cfg.decontam.long_words >= 0, "decontam.long_words", "must be >= 0 (0: no length rule; coverage and stock phrasing still apply)")
    need(0 <= cfg.decontam.max_stock <= 1, "decontam.max_stock", "must be between 0 and 1 (0: off)")
    need(cfg.decontam.max_pages == 0, "decontam.max_pages",
         "only 0 (off) is accepted: the decontamination stage applies no corpus commonness rule (a value "
         "above 0 was accepted and silently ignored before)")


def parse_override(text: str) -> tuple[str, str, Any]:
    """``section.key=value`` -> (section, key, value); value parsed as TOML, else a string."""
    if "=" not in text:
        raise ConfigError(f"--set {text!r}: expected section.key=value")
    dotted, raw = text.split("=", 1)
    parts = dotted.strip().split(".")
    if len(parts) != 2 or not all(parts):
        raise ConfigError(f"--set {text!r}: key must be section.key (for example classifier.dim)")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    if raw.lower() in ("none", "null"):
        value = None
    return parts[0], parts[1], value


def load_config(path: Optional[str | Path] = None, overrides: Optional[list[str]] = None) -> Config:
    cfg = Config()
    if path is not None:
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{p}: config file not found") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{p}: not valid TOML: {e}") from None
        except UnicodeDecodeError as e:
            raise ConfigError(f"{p}: not UTF-8 text: {e}") from None
        _apply(cfg, data, str(p))
    for item in overrides or []:
        section, key, value = parse_override(item)
        _apply(cfg, {section: {key: value}}, f"--set {item}")
    _load_plugins(cfg)
    _check_ranges(cfg)
    return cfg


def _load_plugins(cfg: Config) -> None:
    """Import the ``plugins.modules`` (before the registries' names are checked)."""

    try:
        load(cfg.plugins.modules)
    except ImportError as e:
        raise ConfigError(f"plugins.modules: {e}") from None


def config_from_dict(data: dict) -> Config:
    cfg = Config()
    _apply(cfg, data, "config")
    _load_plugins(cfg)
    _check_ranges(cfg)
    return cfg


# ---------------------------------------------------------------- TOML output
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def dump_toml(data: dict) -> str:
    out = []
    for sname, section in data.items():
        out.append(f"[{sname}]")
        for k, v in section.items():
            if v is None:
                out.append(f"# {k} = (unset)")
            else:
                out.append(f"{k} = {_toml_value(v)}")
        out.append("")
    return "\n".join(out)
