"""The stages of one iteration (folder ``iter=NNN``), in the order the recipe lists them.

``seed`` (the positives: the seed corpus in iteration 1, then the previous
seed plus the uncollected pages under the previous iteration's marked path
prefixes), ``model`` (the classifier trained on the seed against random crawl
pages), ``scores`` (every page), ``collected`` (selection), ``eval`` (true
precision and recall, with --labels only), ``domains`` (host statistics and
flags), the stop rule, ``prefixes`` (path-prefix statistics of flagged
domains) and ``annotations`` (the worksheet and its marks).
"""
from __future__ import annotations

import hashlib
from typing import Optional

from .. import annotate
from .. import fs as fsmod
from .. import judging
from .. import schemas
from ..classifiers import label_of
from ..profiles import for_config as profile_of
from ..seeds import default_seed_path, load_seed_texts, source_digest
from ..spark import classify as sparkclassify
from ..spark import domains as sparkdomains
from ..spark import iteration as sparkiteration
from .stage import IN_PLACE, INGEST, ITERATION, Stage, StopLoop, TableStage

SATURATED = "saturated"
MAX_ITERATIONS = "max_iterations"
AWAITING = "awaiting_annotation"
AWAITING_FILE = "_AWAITING.json"
# why a run saturated (loop.json's and summary.json's ``stop_detail``)
OVERLAP = "overlap"                  # overlap_with_previous reached loop.saturation
SEED_UNCHANGED = "seed_unchanged"    # the path step added nothing: the next iteration would repeat this one


def _f(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def file_digest(path: Optional[str]) -> Optional[str]:
    """Streamed (never loaded whole); a remote folder by its listing: seeds.source_digest."""
    if path and not fsmod.is_local(path):
        from ..spark.seeds import remote_listing

        return source_digest(path, remote_listing)
    return source_digest(path)


def stop_reason(iteration: int, overlap: Optional[float], saturation: float, max_iterations: int) -> Optional[str]:
    """The rule of the paper: stop once >= ``saturation`` of this iteration's
    collection had been collected in the previous one, or at the maximum."""
    if overlap is not None and overlap >= saturation:
        return SATURATED
    if iteration >= max_iterations:
        return MAX_ITERATIONS
    return None


class Seed(TableStage):
    name, path, scope = "seed", "{iter}/seed", ITERATION
    schema = schemas.SEED
    keys = ("annotate.seed_min_score", "annotate.max_seed_additions", "annotate.seed_markup_admits",
            "judge.add_to_seed")
    reads = ("seed", "pages", "collected", "scores", "annotations")
    about = ("the positives: the seed corpus (the starter seed, or `--seed-corpus`), plus the uncollected "
             "pages under the previous iteration's marked path prefixes (and pages judged maths, with "
             "`judge.add_to_seed`)")

    def extra_settings(self, ctx) -> Optional[dict]:
        # the seed the run trains on, the shipped starter seed included: a changed default seed
        # (a new release) is a changed setting of iteration 1's seed, refused or --recompute'd
        return {"seed_digest": seed_digest(ctx)}

    def build(self, ctx, staging: str) -> dict:
        if ctx.i == 1:
            return self._first(ctx, staging)
        return self._grown(ctx, staging)

    def record(self, ctx) -> Optional[dict]:
        return ctx.memo.pop(("seed_record", ctx.i), None)

    # iteration 1: the seed corpus (a user's is read by Spark, any size; None: the shipped starter seed)
    def _first(self, ctx, staging: str) -> dict:
        src = seed_source(ctx)
        ctx.memo[("seed_record", 1)] = {"seed_corpus": str(src)}
        texts = ctx.inputs.seed_corpus or load_seed_texts(src)   # a starter seed is read here, any other by Spark
        ctx.write_table(sparkiteration.seed_corpus_df(ctx.spark, texts, 1), staging, self.schema)
        df = ctx.read_table(staging, self.schema)
        return {"seed_positives": df.count(), "seed_added": 0}

    # iteration i > 1: seed(i-1) + the checked pages under the marks of iteration i-1
    def _grown(self, ctx, staging: str) -> dict:
        prev, spark, acfg = ctx.i - 1, ctx.spark, ctx.cfg.annotate
        pages, seed = ctx.read("pages"), ctx.read("seed", prev)
        marks = read_marks(ctx, prev)
        under_all = sparkdomains.pages_under_marks(spark, pages, ctx.read("collected", prev), marks, prev)
        _, under = sparkiteration.grow_seed(seed, under_all)              # not seeds yet
        n_under = under.count()
        added = sparkdomains.checked_additions(under, ctx.read("scores", prev), acfg.seed_min_score,
                                               acfg.max_seed_additions,
                                               pages if acfg.seed_markup_admits else None,
                                               profile_of(ctx.cfg).markup_column)
        merged, _fresh = sparkiteration.grow_seed(seed, added)
        config = {"annotate": {k: getattr(acfg, k) for k in
                               ("seed_min_score", "max_seed_additions", "seed_markup_admits")}}
        add_judged = ctx.cfg.judge.add_to_seed
        if add_judged:
            merged, config["judge"] = with_judged(ctx, prev, pages, merged)
        ctx.memo[("seed_record", ctx.i)] = config
        ctx.write_table(merged, staging, self.schema)
        df = ctx.read_table(staging, self.schema)
        new = df.where(f"added_in = {ctx.i}")
        out = {"seed_positives": df.count(), "seed_added": new.count(), "seed_under_marks": int(n_under)}
        if add_judged:                         # pages judged maths that joined now (not under marks)
            out["seed_added_judged"] = new.where(f"source = '{judging.JUDGED_SOURCE}'").count()
        if ctx.labels() is not None:           # evaluation only: labels never feed a decision
            prof = profile_of(ctx.cfg)
            out.update(sparkdomains.addition_label_counts(new, pages, ctx.labels(), prof.positive, prof.negative))
        return out

    def done(self, ctx, result) -> None:
        c = result.counts
        if ctx.i == 1:
            if not result.skipped:
                src = seed_source(ctx)
                ctx.say(f"seed: {c.get('seed_positives')} documents from {src}")
        elif not result.skipped:
            judged = (f", {c.get('seed_added_judged')} of them judged maths" if ctx.cfg.judge.add_to_seed else "")
            ctx.say(f"iteration {ctx.i - 1}: path step adds {c.get('seed_added')} pages to the seed of "
                    f"iteration {ctx.i}{judged}")
        if ctx.i > 1 and seed_unchanged(c):
            # training is deterministic (the same seed, pages and negatives' draw): iteration i would
            # collect what iteration i-1 did, so the run is saturated at i-1 without running i
            ctx.say(f"iteration {ctx.i - 1}: saturated: the seed did not change (the path step added no "
                    f"page), so iteration {ctx.i} would repeat it")
            raise StopLoop(SATURATED, last_iteration=ctx.i - 1, detail=SEED_UNCHANGED)
        ctx.say(f"iteration {ctx.i}: training on {c.get('seed_positives')} seed positives")


def seed_unchanged(counts: dict) -> bool:
    """A grown seed's counts say it equals the previous one (the path step and judging added nothing:
    the seed only ever grows)."""
    return int(counts.get("seed_added") or 0) == 0


def digest(ctx, path: Optional[str]) -> Optional[str]:
    """:func:`file_digest` of an input (the seed, the labels), once per run: it reads the whole file."""
    key = ("digest", path)
    if key not in ctx.memo:
        ctx.memo[key] = file_digest(path)
    return ctx.memo[key]


def seed_source(ctx) -> str:
    """The seed corpus of the run: ``--seed-corpus``, else the profile's starter seed."""
    return ctx.inputs.seed_corpus or default_seed_path(profile_of(ctx.cfg).starter_seed)


def seed_digest(ctx) -> Optional[str]:
    return digest(ctx, seed_source(ctx))


def with_judged(ctx, i: int, pages, seed) -> tuple:
    """``seed`` plus the pages judged positive (the profile's label, by majority verdict) not in it yet
    (judge.add_to_seed), and what the marker records of the judgements read (through the run folder's fs)."""
    verdicts = judging.page_verdicts(judging.read_judgements(ctx.view))
    positive = profile_of(ctx.cfg).positive
    maths = sorted(p for p, v in verdicts.items() if v == positive)
    merged, _ = sparkiteration.grow_seed(seed, sparkiteration.judged_seed_rows(ctx.spark, pages, maths, i))
    digest = hashlib.sha1("\n".join(maths).encode("utf-8")).hexdigest()   # which pages were offered
    return merged, {"add_to_seed": True, "judged_maths_pages": len(maths), "judged_maths_digest": digest}


def read_marks(ctx, i: int) -> list:
    """The committed marks of iteration ``i``."""
    return annotate.read_marks(fsmod.join(ctx.location("annotations", i), annotate.MARKED), None)


class Model(Stage):
    # Negatives as the paper draws them: random crawl pages (never seeds), the same random draw
    # every iteration, so a classifier changes only where its seed changed (no exclusion of
    # pages collected earlier: that moved the boundary outward with no new evidence).
    name, path, scope = "model", "{iter}/model", ITERATION
    keys = ("classifier.*", "loop.random_seed")
    exclude = ("classifier.score_batch_size",)
    section = "classifier"
    reads = ("pages", "seed")
    about = ("a fastText classifier (the paper's settings) trained on the seed against random crawl pages, "
             "measured on a held-out split")

    def build(self, ctx, staging: str) -> dict:
        prof = profile_of(ctx.cfg)
        return sparkclassify.train_iteration(ctx.spark, ctx.read("pages"), ctx.read("seed"), staging,
                                             ctx.cfg.classifier, ctx.cfg.loop.random_seed,
                                             markup_column=prof.markup_column, label=label_of(prof.positive))

    def done(self, ctx, result) -> None:
        m = result.counts
        ctx.say(f"iteration {ctx.i}: classifier held-out precision={_f(m.get('precision'))} "
                f"recall={_f(m.get('recall'))} f1={_f(m.get('f1'))}")


class Prepared(TableStage):
    """The pages never change, so their preparation is done once: each iteration's scoring then
    only predicts (``bench/bench_score.py`` measures both against bare fastText prediction)."""

    name, path, scope = "prepared", "prepared", INGEST
    schema = schemas.PREPARED
    keys = ("classifier.kind", "classifier.max_words")
    reads = ("pages",)
    about = ("every page's text as the classifier reads it (its plugin's preparation), once per run: each "
             "iteration's scoring only predicts")

    def table(self, ctx):
        return sparkclassify.prepare_pages(ctx.spark, ctx.read("pages"), ctx.cfg.classifier)

    def count(self, ctx, df) -> dict:
        return {"pages": df.count(), "empty_lines": df.where("line = ''").count()}

    def observed(self, ctx):
        return {"pages": "count(1)", "empty_lines": "count_if(line = '')"}


class Scores(TableStage):
    name, path, scope = "scores", "{iter}/scores", ITERATION
    schema = schemas.SCORES
    reads = ("prepared", "model")
    about = "P(positive) for every page (P(maths) with the maths profile)"

    def table(self, ctx):
        ctx.say(f"iteration {ctx.i}: scoring pages")
        return sparkclassify.score_pages(ctx.spark, ctx.read("prepared"), ctx.run.data(ctx.location("model")),
                                         ctx.cfg.classifier, prepared=True)

    def count(self, ctx, df) -> dict:
        return {"pages_scored": df.count(), "histogram": sparkiteration.score_histogram(df)}

    def observed(self, ctx):
        return {"pages_scored": "count(1)", **sparkiteration.histogram_aggregates()}

    def from_observed(self, values: dict) -> dict:
        return {"pages_scored": values["pages_scored"], "histogram": sparkiteration.histogram_of(values)}


class Collected(TableStage):
    name, path, scope = "collected", "{iter}/collected", ITERATION
    schema = schemas.COLLECTED
    keys = ("select.*",)
    section = "select"
    reads = ("scores", "pages", "collected")
    about = "the pages scoring >= 0.5 (or the best pages within a token budget)"

    def table(self, ctx):
        return sparkclassify.select_pages(ctx.spark, ctx.read("scores"), ctx.read("pages"), ctx.cfg.select)

    def count(self, ctx, df) -> dict:
        earlier = [ctx.read("collected", j) for j in range(1, ctx.i)]
        return sparkiteration.overlap_counts(df, earlier[-1] if earlier else None, earlier)

    def done(self, ctx, result) -> None:
        c = result.counts
        ctx.say(f"iteration {ctx.i}: collected {c['collected_pages']} pages, {c['collected_tokens']} tokens, "
                f"overlap with previous {_f(c.get('overlap_with_previous'))}, new {c.get('new_pages')}")


class Eval(Stage):
    name, path, scope = "eval", "{iter}/eval", ITERATION
    leaf = True
    reads = ("pages", "collected")
    about = "true precision and recall (only with `--labels`), never used for decisions"

    def applies(self, ctx) -> bool:
        return ctx.inputs.labels is not None

    def extra_settings(self, ctx) -> Optional[dict]:
        # other labels than last time: the settings check redid it
        return {"labels_digest": digest(ctx, ctx.inputs.labels)} if ctx.inputs.labels else None

    def record(self, ctx) -> Optional[dict]:
        return {"labels": ctx.inputs.labels, "labels_digest": digest(ctx, ctx.inputs.labels)}

    def build(self, ctx, staging: str) -> dict:
        prof = profile_of(ctx.cfg)
        return sparkiteration.label_metrics(ctx.read("pages"), ctx.read("collected"), ctx.labels(),
                                            prof.positive, prof.negative)

    def done(self, ctx, result) -> None:
        ctx.say(f"iteration {ctx.i}: true precision={_f(result.counts.get('true_precision'))} "
                f"true recall={_f(result.counts.get('true_recall'))}")


class Domains(TableStage):
    name, path, scope = "domains", "{iter}/domains", ITERATION
    schema = schemas.DOMAINS
    keys = ("domains.key", "domains.flag_fraction", "domains.min_pages")
    section = "domains"
    reads = ("pages", "collected")
    about = "a domain is flagged when more than 10% of its pages were collected"

    def table(self, ctx):
        return sparkdomains.domain_stats(ctx.spark, ctx.read("pages"), ctx.read("collected"), ctx.cfg.domains)

    def count(self, ctx, df) -> dict:
        return sparkiteration.domain_counts(df)

    def done(self, ctx, result) -> None:
        ctx.say(f"iteration {ctx.i}: {result.counts.get('flagged_domains')} of {result.counts.get('domains')} "
                f"domains flagged")

    def describe(self, cfg) -> str:
        return f"a domain is flagged when more than {cfg.domains.flag_fraction:.0%} of its pages were collected"


class StopRule(Stage):
    """Not a committed stage: ends the loop when the collection saturated or at the last iteration."""

    name, scope, commits = "stop_rule", ITERATION, False
    reads = ("collected",)
    about = ("the loop stops when 98% of a collection was already collected by the previous iteration "
             "(`saturated`), or at the last iteration (6 by default); it is saturated too when the path step "
             "added nothing to the next seed (checked once that seed is built: the next iteration would "
             "repeat this one)")

    def check(self, ctx):
        overlap = ctx.counts("collected").get("overlap_with_previous")
        reason = stop_reason(ctx.i, overlap, ctx.cfg.loop.saturation, ctx.inputs.max_iterations)
        if reason:
            raise StopLoop(reason, detail=OVERLAP if reason == SATURATED else None)

    def describe(self, cfg) -> str:
        return (f"the loop stops when {cfg.loop.saturation:.0%} of a collection was already collected by the "
                f"previous iteration (`saturated`), or after {cfg.loop.max_iterations} iterations; saturated "
                f"too when the path step added nothing to the next seed (the next iteration would repeat this one)")


class Prefixes(TableStage):
    name, path, scope = "prefixes", "{iter}/prefixes", ITERATION
    schema = schemas.PREFIXES
    keys = ("domains.key", "domains.path_depth", "domains.examples", "domains.prefix_min_pages",
            "domains.max_prefixes_per_domain")
    reads = ("pages", "collected", "domains", "scores")
    about = "path-prefix statistics of every flagged domain, with example pages"

    def applies(self, ctx) -> bool:
        return not ctx.committed("annotations")      # the marks are made: nothing reads them again

    def table(self, ctx):
        return sparkdomains.prefix_stats(ctx.spark, ctx.read("pages"), ctx.read("collected"),
                                         ctx.read("domains"), ctx.cfg.domains, ctx.read("scores"),
                                         profile_of(ctx.cfg).markup_column)

    def count(self, ctx, df) -> dict:
        return {"prefixes": df.count()}

    def observed(self, ctx):
        return {"prefixes": "count(1)"}


class Annotations(Stage):
    """The worksheet of path prefixes and its marks: proposed (auto) or a person's (manual).
    Written in place (a person edits it between two runs); only the marker makes it final."""

    name, path, scope = "annotations", "{iter}/annotations", ITERATION
    commit_mode = IN_PLACE          # a person edits the files between two runs; the runner's marker makes it final
    keys = ("annotate.propose_*", "annotate.worksheet_max_domains")       # auto mode only
    reads = ("prefixes", "annotations")
    about = ("the worksheet and the marked paths (the proposer with `--annotate auto`, a person with `manual`); "
             "uncollected pages under marked paths join the next seed")

    def compares(self, marker: dict) -> bool:
        return (marker.get("config") or {}).get("mode") == "auto"     # a person's marks depend on no setting

    def records_settings(self, ctx) -> bool:
        return ctx.inputs.annotate == "auto"                            # a person's marks depend on no setting

    def write(self, ctx, adir: str):
        run, cfg = ctx.run, ctx.cfg
        # the worksheet's domains: the top annotate.worksheet_max_domains by impact (ranked in Spark)
        rows, n_hosts = sparkdomains.top_prefix_rows(ctx.read("prefixes"), cfg.annotate.worksheet_max_domains)
        rows = annotate.without_rejected(rows, previous_rejections(ctx))   # a rejected prefix is not asked again
        previous = previous_marks(ctx)
        known = {(r["host"], r["prefix"]) for r in rows} | {(m.host, m.prefix) for m in previous}
        awaiting_path = fsmod.join(adir, AWAITING_FILE)
        marked_path = fsmod.join(adir, annotate.MARKED)
        mode = ctx.inputs.annotate
        if mode == "manual":
            if run.fs.exists(awaiting_path):
                marks = annotate.read_marks(marked_path, known)      # raises before any side effect
                run.fs.delete(awaiting_path)
            else:
                run.fs.mkdirs(adir)
                annotate.write_worksheet(adir, rows, previous, ctx.i, cfg=cfg.annotate)
                run.write_json(awaiting_path, {"iteration": ctx.i, "marked_file": marked_path})
                raise StopLoop(AWAITING, marked_path)
        else:
            proposed = annotate.propose(rows, cfg.annotate)
            carried = {(m.host, m.prefix) for m in previous}
            marks = list(previous) + [m for m in proposed if (m.host, m.prefix) not in carried]
            run.fs.mkdirs(adir)
            annotate.write_worksheet(adir, rows, marks, ctx.i, cfg=cfg.annotate)
            marks = annotate.read_marks(marked_path, known)
        by: dict = {}
        for m in marks:
            by[m.decided_by] = by.get(m.decided_by, 0) + 1
        counts = {"candidates": ctx.counts("prefixes").get("prefixes", 0), "marks": len(marks),
                  "flagged_hosts": n_hosts, "worksheet_hosts": len({r["host"] for r in rows}),
                  "decided_by": by, "marked": [m.host + m.prefix for m in marks]}
        return counts, {"mode": mode, "annotate": cfg.section("annotate")}

    def done(self, ctx, result) -> None:
        if not result.skipped:
            ctx.say(f"iteration {ctx.i}: {result.counts['marks']} path prefixes marked ({result.config['mode']})")


def previous_marks(ctx) -> list:
    """The marks of the last committed annotations before this iteration, carried forward."""
    for j in range(ctx.i - 1, 0, -1):
        if ctx.committed("annotations", j):
            return [annotate.carried(m) for m in read_marks(ctx, j)]
    return []


def previous_rejections(ctx) -> set:
    """(host, prefix) pairs a person rejected in earlier iterations (``rejected_paths.txt``)."""
    out = set()
    for j in range(1, ctx.i):
        if ctx.committed("annotations", j):
            out.update((m.host, m.prefix) for m in annotate.read_rejections(ctx.location("annotations", j)))
    return out
