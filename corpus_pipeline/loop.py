"""The iteration driver: which stage runs next, saturation, resume.

Every stage output is committed in the run folder (an attempt folder made
valid by its marker, :mod:`corpus_pipeline.runfolder`), so running the same
command again after a crash or a kill skips what is committed and redoes only
what is not: the final corpus is the same as an uninterrupted run's, and no
stage is counted twice (counts live in each stage's commit marker).  The
stages are described once in :mod:`corpus_pipeline.stages`; each marker
records the settings that shaped it, and :meth:`Loop.check_settings` refuses a
rerun whose settings differ (or, with ``--recompute``, redoes from the first
stage they shape).

Per iteration ``i`` (folder ``iter=NNN``)::

    seed (positives)      committed before the iteration starts
    model                 fastText trained on seed + sampled negatives
    scores                every page scored
    collected             selection (threshold or token budget)
    eval                  true precision/recall (only with --labels)
    domains               host stats and flags
    prefixes, annotations path-prefix stats of flagged domains, worksheet, marks
    seed of i+1           seed(i) + uncollected pages under marked prefixes

The loop stops when ``overlap_with_previous >= loop.saturation``
("saturated"), at ``max_iterations`` ("max_iterations"), or, in manual
annotation mode, when a worksheet waits for a person ("awaiting_annotation").
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import fs as fsmod
from . import schemas
from . import stages as st
from .config import Config
from .errors import UsageError
from .runfolder import RunFolder

SATURATED = "saturated"
MAX_ITERATIONS = "max_iterations"
AWAITING = "awaiting_annotation"
AWAITING_FILE = "_AWAITING.json"


@dataclass
class LoopInputs:
    inputs: list
    run: str
    seed_corpus: Optional[str] = None
    labels: Optional[str] = None
    benchmarks: Optional[str] = None
    annotate: Optional[str] = None        # None: config's annotate.mode
    max_iterations: Optional[int] = None  # None: config's loop.max_iterations
    recompute: bool = False               # accept changed settings: redo the first stage they shape and after


@dataclass
class LoopOutcome:
    stopped_because: str
    iterations: int
    marked_file: Optional[str] = None
    log: list = field(default_factory=list)


def stop_reason(iteration: int, overlap: Optional[float], saturation: float, max_iterations: int) -> Optional[str]:
    """The rule of the paper: stop once >= ``saturation`` of this iteration's
    collection had been collected in the previous one, or at the maximum."""
    if overlap is not None and overlap >= saturation:
        return SATURATED
    if iteration >= max_iterations:
        return MAX_ITERATIONS
    return None


def _file_digest(path: Optional[str]) -> Optional[str]:
    """Streamed (never loaded whole); a remote folder by its listing: seeds.source_digest."""
    from .seeds import source_digest

    if path and not fsmod.is_local(path):
        from .spark.seeds import remote_listing

        return source_digest(path, remote_listing)
    return source_digest(path)


class Loop:
    def __init__(self, spark, inputs: LoopInputs, cfg: Config, log: Callable[[str], None] = print):
        self.spark = spark
        self.inp = inputs
        self.cfg = cfg
        self.run = RunFolder(inputs.run, spark)
        self.log = log
        self.mode = inputs.annotate or cfg.annotate.mode
        if self.mode not in ("auto", "manual"):
            raise UsageError(f"--annotate: expected auto or manual, got {self.mode!r}")
        self.max_iterations = inputs.max_iterations or cfg.loop.max_iterations
        if self.max_iterations < 1:
            raise UsageError("--max-iterations must be >= 1")
        self._labels = None
        self._t0 = time.time()

    # ------------------------------------------------------------------ helpers
    def say(self, msg: str, level: int = 20) -> None:
        from .runlog import logger

        self.log(f"[{time.time() - self._t0:7.1f}s] {msg}")
        logger("loop").log(level, msg)              # RUN/logs/run.log, with time and level

    def _read(self, path: str, ddl: str):
        from .spark.io import read_table

        return read_table(self.spark, self.run.data(path), ddl)

    def _write_stage(self, path: str, make_df: Callable[[], object], ddl: str, counts: Callable[[object], dict],
                     config: Optional[dict] = None, stage: Optional[st.Stage] = None):
        """Commit a table: ``make_df()`` written as Parquet, counts computed from the written data;
        the marker records the settings that shape ``stage``."""
        from .spark.io import write_table

        def build(staging: str) -> dict:
            write_table(make_df(), staging, ddl)
            return counts(self._read(staging, ddl))

        return self.run.stage(path, build, config=config, log=self.say, settings=self._settings(stage))

    def _settings(self, stage: Optional[st.Stage]) -> Optional[dict]:
        if stage is None:
            return None
        if stage in st.FINAL and not self.inp.benchmarks:
            return {"benchmarks": None}                  # no decontamination: its settings shape nothing
        return stage.settings(self.cfg, self._extra_settings(stage))

    def _current_settings(self, stage: st.Stage) -> dict:
        return self._settings(stage) or {}

    def _extra_settings(self, stage: st.Stage) -> Optional[dict]:
        """Settings of a stage that are not config keys (None: not applicable to this command)."""
        if stage is st.SEED:
            # the seed the run trains on, the shipped starter seed included: a changed default seed
            # (a new release) is a changed setting of iteration 1's seed, refused or --recompute'd
            return {"seed_digest": self._seed_digest()}
        if stage is st.EVAL:
            return {"labels_digest": _file_digest(self.inp.labels)} if self.inp.labels else None
        if stage in st.FINAL:
            return {"benchmarks": self.inp.benchmarks}
        return None

    def _seed_digest(self) -> Optional[str]:
        if not hasattr(self, "_seed_digest_value"):
            from .seeds import default_seed_path

            self._seed_digest_value = _file_digest(self.inp.seed_corpus or default_seed_path())
        return self._seed_digest_value

    def check_settings(self) -> None:
        """Refuse (exit 2) or, with ``recompute``, redo stages whose recorded settings changed."""
        first = st.check_settings(self.run, self.cfg, self.inp.recompute, self._current_settings, log=self.say)
        if first:
            self.say(f"recomputing from {first}")

    def _check_run_identity(self) -> None:
        """A run folder belongs to one set of inputs: resuming with others would mix results."""
        ident = {
            "inputs": sorted(self.inp.inputs),
            "seed_corpus": self.inp.seed_corpus,
            "seed_digest": self._seed_digest(),       # recorded; a change is checked as a setting (SEED)
        }
        path = self.run.path("run.json")
        old = self.run.read_json(path)
        if old is None:
            self.run.fs.mkdirs(self.run.uri)
            self.run.write_json(path, {**ident, "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                       "config": self.cfg.to_dict()})
            return
        for k in ("inputs", "seed_corpus"):
            if old.get(k) != ident[k]:
                raise UsageError(f"{self.run.uri} was started with {k}={old.get(k)!r}; this command has "
                                 f"{ident[k]!r}. Use a new --run folder or the original inputs.")

    def labels(self):
        if self.inp.labels is None:
            return None
        if self._labels is None:
            from .labels import load_labels
            from .spark.iteration import labels_df

            self._labels = labels_df(self.spark, load_labels(self.inp.labels)).cache()
        return self._labels

    # ------------------------------------------------------------------ stages
    def ingest(self):
        from .spark.ingest import run_ingest

        self.say(f"ingest: {len(self.inp.inputs)} input argument(s) -> {self.run.pages}")
        res = run_ingest(self.spark, list(self.inp.inputs), self.run, self.cfg, log=self.say)
        c = res.counts
        self.say(f"ingest: {c.get('pages', '?')} pages kept" + (" (already committed)" if res.skipped else ""))
        return self._read(self.run.pages, schemas.PAGES)

    def first_seed(self) -> None:
        from .seeds import default_seed_path
        from .spark.iteration import seed_corpus_df

        path = self.run.iteration(1, "seed")
        if self.run.is_committed(path):
            return
        src = self.inp.seed_corpus or default_seed_path()
        # a user's seed is read by Spark (any size); None: the shipped starter seed
        res = self._write_stage(path, lambda: seed_corpus_df(self.spark, self.inp.seed_corpus, 1), schemas.SEED,
                                lambda df: {"seed_positives": df.count(), "seed_added": 0},
                                config={"seed_corpus": str(src)}, stage=st.SEED)
        self.say(f"seed: {res.counts.get('seed_positives')} documents from {src}")

    def iteration(self, i: int, pages, collected_before: list) -> tuple[Optional[str], object]:
        """Run iteration i; returns (stop reason or None, collected_df)."""
        from .spark.classify import score_pages, select_pages, train_iteration
        from .spark.domains import domain_stats
        from .spark.iteration import domain_counts, label_metrics, overlap_counts, score_histogram

        cfg, run = self.cfg, self.run
        seed = self._read(run.iteration(i, "seed"), schemas.SEED)
        n_seed = run.counts(run.iteration(i, "seed")).get("seed_positives")
        self.say(f"iteration {i}: training on {n_seed} seed positives")

        model_dir = run.iteration(i, "model")

        # Negatives as the paper draws them: random crawl pages (never seeds), the same random draw
        # every iteration, so a classifier changes only where its seed changed (no exclusion of
        # pages collected earlier: that moved the boundary outward with no new evidence).
        def train(staging: str) -> dict:
            return train_iteration(self.spark, pages, seed, staging, cfg.classifier,
                                   cfg.loop.random_seed)

        m = run.stage(model_dir, train, config={"classifier": cfg.section("classifier")}, log=self.say,
                      settings=self._settings(st.MODEL)).counts
        self.say(f"iteration {i}: classifier held-out precision={_f(m.get('precision'))} "
                 f"recall={_f(m.get('recall'))} f1={_f(m.get('f1'))}")

        self.say(f"iteration {i}: scoring pages")
        self._write_stage(run.iteration(i, "scores"),
                          lambda: score_pages(self.spark, pages, run.data(model_dir), cfg.classifier), schemas.SCORES,
                          lambda df: {"pages_scored": df.count(), "histogram": score_histogram(df)},
                          stage=st.SCORES)
        scores = self._read(run.iteration(i, "scores"), schemas.SCORES)

        previous = collected_before[-1][1] if collected_before else None
        res = self._write_stage(
            run.iteration(i, "collected"),
            lambda: select_pages(self.spark, scores, pages, cfg.select), schemas.COLLECTED,
            lambda df: overlap_counts(df, previous, [d for _, d in collected_before]),
            config={"select": cfg.section("select")}, stage=st.COLLECTED)
        collected = self._read(run.iteration(i, "collected"), schemas.COLLECTED)
        c = res.counts
        self.say(f"iteration {i}: collected {c['collected_pages']} pages, {c['collected_tokens']} tokens, "
                 f"overlap with previous {_f(c.get('overlap_with_previous'))}, new {c.get('new_pages')}")

        labels = self.labels()
        if labels is not None:
            ev = run.iteration(i, "eval")
            digest = _file_digest(self.inp.labels)   # other labels than last time: check_settings redid it
            r = run.stage(ev, lambda staging: label_metrics(pages, collected, labels),
                          config={"labels": self.inp.labels, "labels_digest": digest}, log=self.say,
                          settings=self._settings(st.EVAL))
            self.say(f"iteration {i}: true precision={_f(r.counts.get('true_precision'))} "
                     f"true recall={_f(r.counts.get('true_recall'))}")

        dres = self._write_stage(run.iteration(i, "domains"),
                                 lambda: domain_stats(self.spark, pages, collected, cfg.domains), schemas.DOMAINS,
                                 domain_counts, config={"domains": cfg.section("domains")}, stage=st.DOMAINS)
        self.say(f"iteration {i}: {dres.counts.get('flagged_domains')} of {dres.counts.get('domains')} "
                 f"domains flagged")

        reason = stop_reason(i, c.get("overlap_with_previous"), cfg.loop.saturation, self.max_iterations)
        if reason:
            return reason, collected
        marks = self.annotate(i, pages, collected)
        if marks is None:
            return AWAITING, collected
        self.grow_seed(i, pages, collected, seed, marks)
        return None, collected

    def annotate(self, i: int, pages, collected):
        """Marks for iteration i, or None when a person has to mark the worksheet first."""
        from . import annotate as ann
        from .spark.domains import prefix_stats, top_prefix_rows

        run, cfg = self.run, self.cfg
        adir = run.iteration(i, "annotations")
        if run.is_committed(adir):
            return ann.read_marks(fsmod.join(adir, ann.MARKED_FILE), None)

        domains = self._read(run.iteration(i, "domains"), schemas.DOMAINS)
        scores = self._read(run.iteration(i, "scores"), schemas.SCORES)
        pres = self._write_stage(run.iteration(i, "prefixes"),
                                 lambda: prefix_stats(self.spark, pages, collected, domains, cfg.domains, scores),
                                 schemas.PREFIXES, lambda df: {"prefixes": df.count()}, stage=st.PREFIXES)
        # the worksheet's domains: the top annotate.worksheet_max_domains by impact (ranked in Spark)
        rows, _n_hosts = top_prefix_rows(self._read(run.iteration(i, "prefixes"), schemas.PREFIXES),
                                         cfg.annotate.worksheet_max_domains)
        rows = ann.without_rejected(rows, self.previous_rejections(i))   # a rejected prefix is not asked again
        previous = self.previous_marks(i)
        known = {(r["host"], r["prefix"]) for r in rows} | {(m.host, m.prefix) for m in previous}
        awaiting_path = fsmod.join(adir, AWAITING_FILE)
        marked_path = fsmod.join(adir, ann.MARKED_FILE)

        if self.mode == "manual":
            if run.fs.exists(awaiting_path):
                marks = ann.read_marks(marked_path, known)      # raises before any side effect
                run.fs.delete(awaiting_path)
            else:
                run.fs.mkdirs(adir)
                ann.write_worksheet(adir, rows, previous, i, cfg=cfg.annotate)
                run.write_json(awaiting_path, {"iteration": i, "marked_file": marked_path})
                self.awaiting_file = marked_path
                return None
        else:
            proposed = ann.propose(rows, cfg.annotate)
            carried = {(m.host, m.prefix) for m in previous}
            marks = list(previous) + [m for m in proposed if (m.host, m.prefix) not in carried]
            run.fs.mkdirs(adir)
            ann.write_worksheet(adir, rows, marks, i, cfg=cfg.annotate)
            marks = ann.read_marks(marked_path, known)
        by = {}
        for m in marks:
            by[m.decided_by] = by.get(m.decided_by, 0) + 1
        run.commit_in_place(adir, {"candidates": pres.counts.get("prefixes", 0), "marks": len(marks),
                                   "flagged_hosts": _n_hosts, "worksheet_hosts": len({r["host"] for r in rows}),
                                   "decided_by": by, "marked": [m.host + m.prefix for m in marks]},
                            config={"mode": self.mode, "annotate": cfg.section("annotate")},
                            settings=self._settings(st.ANNOTATIONS) if self.mode == "auto" else None)
        self.say(f"iteration {i}: {len(marks)} path prefixes marked ({self.mode})")
        return marks

    def previous_marks(self, i: int) -> list:
        from . import annotate as ann

        for j in range(i - 1, 0, -1):
            adir = self.run.iteration(j, "annotations")
            if self.run.is_committed(adir):
                return [ann.carried(m) for m in ann.read_marks(fsmod.join(adir, ann.MARKED_FILE), None)]
        return []

    def previous_rejections(self, i: int) -> set:
        """(host, prefix) pairs a person rejected in iterations before i (``rejected_paths.txt``)."""
        from . import annotate as ann

        out = set()
        for j in range(1, i):
            adir = self.run.iteration(j, "annotations")
            if self.run.is_committed(adir):
                out.update((m.host, m.prefix) for m in ann.read_rejections(adir))
        return out

    def grow_seed(self, i: int, pages, collected, seed, marks) -> None:
        from .spark.domains import addition_label_counts, checked_additions, pages_under_marks
        from .spark.iteration import JUDGED_SOURCE, grow_seed

        path = self.run.iteration(i + 1, "seed")
        if self.run.is_committed(path):
            return
        acfg = self.cfg.annotate
        _, under = grow_seed(seed, pages_under_marks(self.spark, pages, collected, marks, i))  # not seeds yet
        n_under = under.count()
        scores = self._read(self.run.iteration(i, "scores"), schemas.SCORES)
        added = checked_additions(under, scores, acfg.seed_min_score, acfg.max_seed_additions,
                                  pages if acfg.seed_markup_admits else None)
        merged, _fresh = grow_seed(seed, added)
        config = {"annotate": {k: getattr(acfg, k) for k in
                               ("seed_min_score", "max_seed_additions", "seed_markup_admits")}}
        add_judged = self.cfg.judge.add_to_seed
        if add_judged:
            merged, config["judge"] = self._with_judged(i, pages, merged)

        def counts(df) -> dict:
            new = df.where(f"added_in = {i + 1}")
            out = {"seed_positives": df.count(), "seed_added": new.count(), "seed_under_marks": int(n_under)}
            if add_judged:                         # pages judged maths that joined now (not under marks)
                out["seed_added_judged"] = new.where(f"source = '{JUDGED_SOURCE}'").count()
            if self.labels() is not None:          # evaluation only: labels never feed a decision
                out.update(addition_label_counts(new, pages, self.labels()))
            return out

        res = self._write_stage(path, lambda: merged, schemas.SEED, counts, config=config, stage=st.SEED)
        judged = (f", {res.counts.get('seed_added_judged')} of them judged maths" if add_judged else "")
        self.say(f"iteration {i}: path step adds {res.counts.get('seed_added')} pages to the seed of "
                 f"iteration {i + 1}{judged}")

    def _with_judged(self, i: int, pages, seed) -> tuple:
        """``seed`` plus the pages judged maths (majority verdict) not in it yet (judge.add_to_seed),
        and what the marker records of the judgements read (read through the run folder's fs)."""
        import hashlib

        from . import judging as jg
        from .spark.iteration import grow_seed, judged_seed_rows

        verdicts = jg.page_verdicts(jg.read_judgements(self.run))
        maths = sorted(p for p, v in verdicts.items() if v == "math")
        merged, _ = grow_seed(seed, judged_seed_rows(self.spark, pages, maths, i))
        digest = hashlib.sha1("\n".join(maths).encode("utf-8")).hexdigest()   # which pages were offered
        return merged, {"add_to_seed": True, "judged_maths_pages": len(maths), "judged_maths_digest": digest}

    def final(self, last: int):
        from .spark.io import write_table
        from .spark.iteration import corpus_counts, final_corpus_df, read_final_corpus, write_final_corpus

        run = self.run
        pages = self._read(run.pages, schemas.PAGES)
        collected = [(j, self._read(run.iteration(j, "collected"), schemas.COLLECTED)) for j in range(1, last + 1)]
        corpus = final_corpus_df(pages, collected[-1][1], collected)
        from .spark.reextract import needs_reextraction, outcome_counts, reextract_df  # final.extractor

        noted = None
        if needs_reextraction(self.cfg):
            noted = reextract_df(self.spark, corpus, pages, self.cfg, keep_outcome=True)
            corpus = noted.select(*schemas.columns(schemas.FINAL_CORPUS))

        def reextraction() -> dict:
            # pages re-extracted with final.extractor, and why the others kept their bulk text
            return {"reextraction": outcome_counts(noted)} if noted is not None else {}
        target = run.final("corpus")
        cfg_record = {"last_iteration": last, "benchmarks": self.inp.benchmarks,
                      "decontam": self.cfg.section("decontam") if self.inp.benchmarks else None}
        fmt = self.cfg.final.format
        if fmt != "parquet":
            cfg_record["format"] = fmt
        if needs_reextraction(self.cfg):
            cfg_record["final"] = self.cfg.section("final")
        if run.is_committed(target):
            marker = run.marker(target) or {}
            if marker.get("config") != json.loads(json.dumps(cfg_record)):
                run.invalidate(target)           # the loop went further, or benchmarks changed
                run.invalidate(run.final("contamination"))
        if not self.inp.benchmarks:
            def build(staging):
                write_final_corpus(corpus, staging, fmt)
                return {**corpus_counts(read_final_corpus(self.spark, staging, fmt)),
                        "pages_removed_by_decontamination": None, "segments_removed": None, **reextraction()}

            res = run.stage(target, build, config=cfg_record, log=self.say, settings=self._settings(st.CORPUS))
        else:
            from .spark.decontam import decontaminate_df

            state = {}

            def build_contam(staging):
                result = state.get("r") or decontaminate_df(self.spark, corpus, self.inp.benchmarks,
                                                             self.cfg.decontam)
                state["r"] = result
                write_table(result.contamination, staging, schemas.CONTAMINATION)
                return {"rows": self._read(staging, schemas.CONTAMINATION).count()}

            def build(staging):
                result = state.get("r") or decontaminate_df(self.spark, corpus, self.inp.benchmarks,
                                                             self.cfg.decontam)
                state["r"] = result
                write_final_corpus(result.corpus, staging, fmt)
                contam = self._read(run.final("contamination"), schemas.CONTAMINATION)
                removed = contam.where("action = 'page_removed'").select("page_id").distinct().count()
                segs = contam.where("action = 'segment_removed'").count()
                return {**corpus_counts(read_final_corpus(self.spark, staging, fmt)),
                        "pages_removed_by_decontamination": int(removed), "segments_removed": int(segs),
                        "decontam": result.counts, **reextraction()}

            run.stage(run.final("contamination"), build_contam, config=cfg_record, log=self.say,
                      settings=self._settings(st.CONTAMINATION))
            res = run.stage(target, build, config=cfg_record, log=self.say, settings=self._settings(st.CORPUS))
        self.say(f"final corpus: {res.counts.get('pages')} pages, {res.counts.get('tokens')} tokens -> {target}")
        return res

    # ------------------------------------------------------------------ driver
    def execute(self) -> LoopOutcome:
        from .runlog import run_log

        with run_log(self.run):
            return self._execute()

    def _execute(self) -> LoopOutcome:
        self.awaiting_file = None
        self._check_run_identity()
        self.check_settings()
        pages = self.ingest().cache()
        self.first_seed()
        collected_before: list = []
        reason, i = None, 0
        for i in range(1, self.max_iterations + 1):
            reason, collected = self.iteration(i, pages, collected_before)
            collected_before.append((i, collected))
            if reason:
                break
        assert reason is not None
        state = {"stopped_because": reason, "last_iteration": i, "mode": self.mode,
                 "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if reason == AWAITING:
            state["marked_file"] = self.awaiting_file
            self.run.write_json(self.run.path("loop.json"), state)
            return LoopOutcome(AWAITING, i, self.awaiting_file)
        self.final(i)
        self.run.write_json(self.run.path("loop.json"), state)
        return LoopOutcome(reason, i)


def _f(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"
