"""The run folder of the contract, with one commit per stage output and no renames.

Layout::

    RUN/pages/  RUN/pages_skips/  RUN/pages_duplicates/
    RUN/ingest/{extract/batch=NNNNN,url_dedup,exact_dedup,near_dedup}/   (ingest's own steps)
    RUN/iter=001/{seed,model,scores,collected,eval,domains,prefixes,annotations}/
    RUN/final/{corpus,contamination}/
    RUN/report/

A stage's folder is found by its name in the recipe the run was built with (the runner's ``ctx``, or
a run view: ``pipeline/runview.py``), not here; the run folder knows the iteration folders' names.

Commit protocol (the same on local disks, HDFS and object stores; nothing is
ever renamed, because on S3, GCS or ABFS a rename is a copy of every object
and not atomic):

1. an attempt writes everything into ``<output>/attempt=<token>/``, where it
   stays (``token`` sorts by start time and is unique);
2. ``<output>/_COMMIT.json`` is written last, with one plain write (a single
   object PUT on object stores): the stage's resolved config, the settings
   that shaped it, its counts (computed from the written data or from counts
   rows that are data, so Spark task retries cannot double-count them), a
   timestamp and the ``attempt`` token.  The marker is the only thing that says
   which attempt is valid; a marker that is missing or not valid JSON (a write
   cut short) means "not committed";
3. after the commit, every other ``attempt=*`` folder of that output is
   removed; a new attempt of an uncommitted stage first removes the leftovers
   of failed ones.

Readers never read ``<output>`` itself (Spark's partition discovery would see
every ``attempt=`` folder as a partition): :meth:`RunFolder.data` returns the
committed attempt folder.  A marker without ``attempt`` (the annotations
folder, which a person edits in place and :meth:`RunFolder.commit_in_place`
commits, or a run folder written before attempts existed) means the data lives
at ``<output>`` itself.

Spark writes each attempt's Parquet files through the Hadoop output committer
configured for the filesystem; on S3 use the S3A *magic* committer or EMRFS's
S3-optimized committer (see the README), so that the files of an attempt are
not renamed either.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import fs as fsmod
from .errors import UsageError

MARKER = "_COMMIT.json"
ATTEMPT = "attempt="      # attempt folders: <output>/attempt=<token>/


def read_marker(fs, path: str) -> Optional[dict]:
    """The commit marker of the stage folder ``path``; None when it is missing or unreadable
    (a marker write cut short is not a commit)."""
    try:
        data = json.loads(fs.read_text(fsmod.join(path, MARKER)))
    except (OSError, ValueError):      # missing (or under a file), or cut short
        return None
    return data if isinstance(data, dict) else None


def committed_data(path: str, spark=None) -> str:
    """Where the committed data of the stage folder ``path`` lives (see :meth:`RunFolder.data`).

    Raises ``FileNotFoundError`` for a folder holding attempt folders but no valid
    marker: reading it would mix failed attempts.
    """
    fs = fsmod.get_fs(path, spark)
    marker = read_marker(fs, path)
    if marker and marker.get("attempt"):
        return fsmod.join(path, ATTEMPT + str(marker["attempt"]))
    if not marker and any(e.startswith(ATTEMPT) for e in fs.listdir(path)):
        raise FileNotFoundError(f"{path}: stage not committed (only unfinished attempts)")
    return path


@dataclass
class StageResult:
    path: str
    counts: dict
    config: dict
    skipped: bool   # True when it was already committed and not recomputed


class RunFolder:
    def __init__(self, uri: str, spark=None):
        self.uri = fsmod.abspath(str(uri)).rstrip("/")
        self._spark = spark

    # ------------------------------------------------------------ paths
    @property
    def fs(self):
        return fsmod.get_fs(self.uri, self._spark)

    def path(self, *parts: str) -> str:
        return fsmod.join(self.uri, *parts)

    @staticmethod
    def iter_name(i: int) -> str:
        return f"iter={i:03d}"

    def iter_dir(self, i: int) -> str:
        return self.path(self.iter_name(i))

    @property
    def report_dir(self) -> str:
        return self.path("report")

    def iterations(self) -> list[int]:
        """Iteration numbers that have a folder, ascending."""
        out = []
        for name in self.fs.listdir(self.uri):
            if name.startswith("iter=") and name[5:].isdigit():
                out.append(int(name[5:]))
        return sorted(out)

    # ------------------------------------------------------------ commits
    def is_committed(self, path: str) -> bool:
        return self.marker(path) is not None

    def marker(self, path: str) -> Optional[dict]:
        return read_marker(self.fs, path)

    def data(self, path: str) -> str:
        """The folder that holds the committed data of the stage at ``path``.

        Every reader of a stage's output (tables, the model file) goes through
        this: the committed ``attempt=`` folder named by the marker, or ``path``
        itself when the marker names none (folders committed in place) or the
        stage is not committed (a build reading its own attempt folder).
        """
        m = self.marker(path)
        if m and m.get("attempt"):
            return fsmod.join(path, ATTEMPT + str(m["attempt"]))
        return path

    def attempts(self, path: str) -> list[str]:
        """Tokens of the attempt folders under ``path``, oldest first."""
        return [e[len(ATTEMPT):] for e in self.fs.listdir(path) if e.startswith(ATTEMPT)]

    def committed_result(self, path: str) -> Optional[StageResult]:
        """The recorded result of the committed stage at ``path`` (None: not committed)."""
        m = self.marker(path)
        if m is None:
            return None
        return StageResult(path, dict(m.get("counts", {})), dict(m.get("config", {})), True)

    def counts(self, path: str) -> dict:
        m = self.marker(path)
        return dict(m["counts"]) if m else {}

    def clean_partial(self, path: str) -> None:
        """Remove leftovers of failed attempts at ``path``: every attempt folder the
        marker does not name (all of them, and anything else, when uncommitted)."""
        parent, name = path.rsplit("/", 1)
        for entry in self.fs.listdir(parent):     # staging folders a run of an earlier release left
            if entry.startswith(name + ".inprogress-"):
                self.fs.delete(fsmod.join(parent, entry))
        m = self.marker(path)
        if m is None:
            if self.fs.exists(path):
                self.fs.delete(path)
            return
        keep = m.get("attempt")
        for token in self.attempts(path):
            if token != keep:
                self.fs.delete(fsmod.join(path, ATTEMPT + token))

    def invalidate(self, path: str) -> None:
        """Forget the stage at ``path``: its marker first (so a crash in between leaves
        an uncommitted stage, never a half-deleted committed one), then its data."""
        self.fs.delete(fsmod.join(path, MARKER))
        self.fs.delete(path)

    def new_attempt(self, path: str) -> str:
        token = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:8]
        attempt = fsmod.join(path, ATTEMPT + token)
        return attempt

    def stage(
        self,
        path: str,
        build: Callable[[str], Optional[dict]],
        config: Optional[dict | Callable[[], Optional[dict]]] = None,
        force: bool = False,
        log: Callable[[str], Any] = print,
        settings: Optional[dict] = None,
    ) -> StageResult:
        """Run ``build(attempt_dir) -> counts`` once and commit its output at ``path``.

        Already committed: nothing runs and the recorded counts are returned.
        ``force`` builds a new attempt; the committed one stays valid until the
        new marker replaces it.  ``settings`` (dotted config keys -> values that
        shaped the result) is recorded for :mod:`corpus_pipeline.pipeline.settings`; ``config``
        may be a function, called after ``build`` (what the build found goes in the marker).
        """
        done = None if force else self.committed_result(path)
        if done is not None:
            log(f"[skip] {self._rel(path)} already committed")
            return done
        self.clean_partial(path)
        attempt = self.new_attempt(path)
        t0 = time.time()
        counts = build(attempt) or {}
        if not self.fs.exists(attempt):
            self.fs.mkdirs(attempt)
        if callable(config):
            config = config()
        self._write_marker(path, config, counts, settings, attempt=attempt.rsplit("/", 1)[1][len(ATTEMPT):],
                           seconds=round(time.time() - t0, 3))
        self.clean_partial(path)
        return StageResult(path, counts, config or {}, False)

    def commit_in_place(self, path: str, counts: dict, config: Optional[dict] = None,
                        settings: Optional[dict] = None) -> None:
        """Commit a folder whose files were written in place (the annotation worksheet,
        which a person edits between two runs): only the marker makes it final."""
        self._write_marker(path, config, counts, settings)

    def _write_marker(self, path: str, config, counts, settings, **extra) -> None:
        marker = {"stage": self._rel(path), "config": config or {}, "counts": counts,
                  "settings": settings or {}, **extra,
                  "committed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.fs.write_text(fsmod.join(path, MARKER), json.dumps(marker, indent=2, sort_keys=True, default=str))

    def _rel(self, path: str) -> str:
        return path[len(self.uri) + 1:] if path.startswith(self.uri + "/") else path

    # ------------------------------------------------------------ small JSON state
    def read_json(self, path: str, default: Any = None) -> Any:
        if not self.fs.exists(path):
            return default
        return json.loads(self.fs.read_text(path))

    def write_json(self, path: str, data: Any) -> None:
        self.fs.write_text(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str))


def open_existing(uri: str, spark=None) -> RunFolder:
    """The run folder at ``uri`` for a command that reads one (report, annotate, inspect, judge):
    a UsageError (exit 2) naming it when there is none (``pipeline.runview.open_view`` also checks
    its pages). Commands call it on a local folder before starting a JVM, so a mistyped path costs no
    Spark start."""
    run = RunFolder(uri, spark)
    if not run.fs.exists(run.uri):
        raise UsageError(f"{uri}: no such run folder")
    return run
