"""The final step, after the loop: the last iteration's collection, re-extracted where
``final.extractor`` asks, decontaminated against the benchmarks (with --benchmarks).

Both stages record what they were built from (the last iteration, the
benchmarks, the decontamination and final settings) in their marker's
``config``; when the loop went further or the benchmarks changed they are
stale and rebuilt.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Optional

from .. import canaries
from .. import schemas
from ..errors import UsageError
from ..profiles import for_config as profile_of
from ..spark import decontam as sparkdecontam
from ..spark import iteration as sparkiteration
from ..spark import reextract as sparkreextract
from .stage import FINAL, Stage

DECONTAM = "decontam"       # memo key: the decontamination result both stages write from
# the decontamination rules' release, recorded in the final stages' markers: a run folder whose
# contamination was found by earlier rules (the word count, decontam.min_words) is refused, not mixed
RULES = "2026-12 specificity (decontam.min_specific, generic_items, short_specific; TeX normalised)"
CANARY_SEED = 20261203


def benchmarks_dir(ctx) -> Optional[str]:
    """The benchmarks folder decontamination reads (``--benchmarks``), or None: none given, or the
    profile knows no benchmark (``code``) and ``decontam.benchmarks`` names none."""
    if not ctx.inputs.benchmarks:
        return None
    if profile_of(ctx.cfg).benchmarks == () and not ctx.cfg.decontam.benchmarks:
        return None
    return ctx.inputs.benchmarks


def decontam_config(ctx):
    """``decontam`` settings, its benchmark list defaulting to the profile's."""
    cfg, prof = ctx.cfg.decontam, profile_of(ctx.cfg)
    if not cfg.benchmarks and prof.benchmarks:
        return dataclasses.replace(cfg, benchmarks=list(prof.benchmarks))
    return cfg


def _record(ctx, with_canaries: bool = False) -> dict:
    """What a final stage's marker records of the settings; ``decontam.canaries`` only for the canaries
    stage (the number of planted copies changes neither the contamination rows nor the corpus)."""
    cfg = ctx.cfg
    decon = None
    if benchmarks_dir(ctx):
        decon = {k: v for k, v in cfg.section("decontam").items() if with_canaries or k != "canaries"}
    out = {"last_iteration": ctx.last_iteration, "benchmarks": benchmarks_dir(ctx), "decontam": decon}
    if benchmarks_dir(ctx):
        out["rules"] = RULES
    if cfg.final.format != "parquet":
        out["format"] = cfg.final.format
    if sparkreextract.needs_reextraction(cfg):
        out["final"] = cfg.section("final")
    return out


def corpus(ctx):
    """(the corpus to decontaminate, the re-extraction outcomes or None), computed once per process."""
    if "corpus" not in ctx.memo:
        collected = [(j, ctx.read("collected", j)) for j in range(1, ctx.last_iteration + 1)]
        pages = ctx.read("pages")
        df = sparkiteration.final_corpus_df(pages, collected[-1][1], collected)
        noted = None
        if sparkreextract.needs_reextraction(ctx.cfg):                    # final.extractor
            noted = sparkreextract.reextract_df(ctx.spark, df, pages, ctx.cfg, keep_outcome=True)
            df = noted.select(*schemas.columns(schemas.FINAL_CORPUS))
        ctx.memo["corpus"] = (df, noted)
    return ctx.memo["corpus"]


def decontaminated(ctx):
    if DECONTAM not in ctx.memo:
        from ..spark.decontam import decontaminate_df

        ctx.memo[DECONTAM] = decontaminate_df(ctx.spark, corpus(ctx)[0], benchmarks_dir(ctx), decontam_config(ctx))
    return ctx.memo[DECONTAM]


class FinalStage(Stage):
    scope = FINAL
    leaf = True

    def current_settings(self, ctx) -> dict:
        if not benchmarks_dir(ctx):
            return {"benchmarks": None}                  # no decontamination: its settings shape nothing
        return self.settings(ctx.cfg, {"benchmarks": benchmarks_dir(ctx)})

    with_canaries = False          # the canaries stage records decontam.canaries too

    def record(self, ctx) -> Optional[dict]:
        return _record(ctx, self.with_canaries)

    def stale(self, ctx, marker: dict) -> bool:
        return marker.get("config") != json.loads(json.dumps(_record(ctx, self.with_canaries)))


class Contamination(FinalStage):
    name, path = "contamination", "final/contamination"
    schema = schemas.CONTAMINATION
    keys = ("decontam.*",)
    exclude = ("decontam.canaries",)
    reads = ("pages", "collected")
    about = ("the last collection (re-extracted from its WARC records with `final.extractor`) checked against "
             "the benchmarks: segments with a specific 10-gram match, pages with a whole short question "
             "(with `--benchmarks`)")

    def applies(self, ctx) -> bool:
        return bool(benchmarks_dir(ctx))

    def stale(self, ctx, marker: dict) -> bool:
        """An earlier release's rules found this contamination: refused (naming the settings) unless
        ``--recompute``, which redoes the final stages only."""
        was = marker.get("config") or {}
        if benchmarks_dir(ctx) and was.get("decontam") is not None and was.get("rules") != RULES:
            if not getattr(ctx.inputs, "recompute", False):
                old = sorted(set(was["decontam"]) - set(ctx.cfg.section("decontam")))
                raise UsageError(
                    f"{ctx.run.uri}: stage final/contamination was committed by an earlier release's "
                    f"decontamination rules (settings {', '.join('decontam.' + k for k in old) or 'decontam.*'}"
                    f"); this release's are {RULES}. Rerun with --recompute to redo the final stages "
                    f"(contamination, corpus, canaries) with them; nothing before them is redone.")
            return True
        return super().stale(ctx, marker)

    def build(self, ctx, staging: str) -> dict:
        ctx.write_table(decontaminated(ctx).contamination, staging, self.schema)
        return {"rows": ctx.read_table(staging, self.schema).count()}


class Corpus(FinalStage):
    name, path = "corpus", "final/corpus"
    schema = schemas.FINAL_CORPUS
    keys = ("decontam.*", "final.*")
    exclude = ("decontam.canaries",)
    reads = ("pages", "collected", "contamination")
    about = "the decontaminated corpus with provenance; then the report (`report/`)"

    def load(self, ctx, location: str):
        return sparkiteration.read_final_corpus(ctx.spark, ctx.run.data(location), ctx.cfg.final.format)

    def build(self, ctx, staging: str) -> dict:
        fmt = ctx.cfg.final.format
        df, noted = corpus(ctx)
        # pages re-extracted with final.extractor, and why the others kept their bulk text
        reext = {"reextraction": sparkreextract.outcome_counts(noted)} if noted is not None else {}
        if not benchmarks_dir(ctx):
            if ctx.inputs.benchmarks:
                ctx.say(f"profile {profile_of(ctx.cfg).name} names no benchmark and decontam.benchmarks is "
                        f"empty: {ctx.inputs.benchmarks} is not used")
            sparkiteration.write_final_corpus(df, staging, fmt)
            return {**sparkiteration.corpus_counts(sparkiteration.read_final_corpus(ctx.spark, staging, fmt)),
                    "pages_removed_by_decontamination": None, "segments_removed": None, **reext}
        result = decontaminated(ctx)
        sparkiteration.write_final_corpus(result.corpus, staging, fmt)
        contam = ctx.read("contamination")
        removed = contam.where("action = 'page_removed'").select("page_id").distinct().count()
        segs = contam.where("action = 'segment_removed'").count()
        return {**sparkiteration.corpus_counts(sparkiteration.read_final_corpus(ctx.spark, staging, fmt)),
                "pages_removed_by_decontamination": int(removed), "segments_removed": int(segs),
                "decontam": result.counts, **reext}

    def done(self, ctx, result) -> None:
        ctx.say(f"final corpus: {result.counts.get('pages')} pages, {result.counts.get('tokens')} tokens -> "
                f"{result.path}")


def loaded_benchmarks(ctx):
    """(Benchmarks, GramIndex) of this run's decontamination (built once per process)."""
    if DECONTAM in ctx.memo and getattr(ctx.memo[DECONTAM], "loaded", None) is not None:
        return ctx.memo[DECONTAM].loaded
    if "decontam_index" not in ctx.memo:
        from ..spark.decontam import build_broadcast_index

        ctx.memo["decontam_index"] = build_broadcast_index(ctx.spark, benchmarks_dir(ctx), decontam_config(ctx))
    return ctx.memo["decontam_index"]


class Canaries(FinalStage):
    """How much the rules catch on this corpus: copies of a seeded sample of its pages, each with one
    benchmark item planted (:mod:`corpus_pipeline.canaries`).  A side computation: the corpus and its
    contamination rows are not touched."""
    name, path = "canaries", "final/canaries"
    with_canaries = True
    schema = schemas.CANARIES
    keys = ("decontam.*",)
    reads = ("corpus",)
    about = ("planted-item canaries: copies of sampled corpus pages with one benchmark item each, run "
             "through the same rules; caught share per item kind with its 95% interval (`decontam.canaries`)")

    def applies(self, ctx) -> bool:
        return bool(benchmarks_dir(ctx)) and int(ctx.cfg.decontam.canaries) > 0

    def build(self, ctx, staging: str) -> dict:
        cfg = decontam_config(ctx)
        n = int(cfg.canaries)
        bm, index = loaded_benchmarks(ctx)
        corpus_df = ctx.read("corpus")
        want = n * len(canaries.KINDS)
        pool = sparkdecontam.seeded_sample(corpus_df, want, CANARY_SEED)
        generic: dict = {}
        rows = canaries.run(pool, bm, index, cfg, n, seed=CANARY_SEED, generic=generic)
        df = ctx.spark.createDataFrame([tuple(vars(r).values()) for r in rows] or [], schemas.CANARIES)
        ctx.write_table(df, staging, self.schema)
        return {"rows": len(rows), "pages_sampled": len(pool), "per_kind": n, "kinds": canaries.summary(rows),
                "measures": canaries.MEASURES, "items_generic": generic}

    def done(self, ctx, result) -> None:
        kinds = (result.counts or {}).get("kinds") or {}
        if kinds:
            ctx.say("canaries (planted benchmark items caught, 95% interval): " + ", ".join(
                f"{k} {v['share']:.2f} [{v['low95']:.2f}, {v['high95']:.2f}] n={v['n']}" for k, v in kinds.items()))
