"""The run folder of the contract, with one atomic commit per stage output.

Layout::

    RUN/pages/  RUN/pages_skips/  RUN/pages_duplicates/
    RUN/iter=001/{seed,model,scores,collected,domains,annotations}/
    RUN/final/{corpus,contamination}/
    RUN/report/

Commit protocol (works on local disks, HDFS and object stores):

1. the stage writes everything into ``<output>.inprogress-<token>``;
2. that folder is renamed to ``<output>`` (any stale, uncommitted ``<output>``
   is deleted first);
3. ``<output>/_COMMIT.json`` is written last: the stage's resolved config,
   its counts (computed from the written data, so Spark task retries cannot
   double-count them) and a timestamp.

A stage is finished only when its ``_COMMIT.json`` exists.  Anything else
(an ``.inprogress`` folder or an output without the marker) is leftover of an
interrupted attempt: :meth:`RunFolder.stage` deletes it and runs the stage
again, so a rerun never mistakes half-written output for finished work.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import fs as fsmod

MARKER = "_COMMIT.json"


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

    @property
    def pages(self) -> str:
        return self.path("pages")

    @property
    def pages_skips(self) -> str:
        return self.path("pages_skips")

    @property
    def pages_duplicates(self) -> str:
        return self.path("pages_duplicates")

    @staticmethod
    def iter_name(i: int) -> str:
        return f"iter={i:03d}"

    def iter_dir(self, i: int) -> str:
        return self.path(self.iter_name(i))

    def iteration(self, i: int, name: str) -> str:
        return self.path(self.iter_name(i), name)

    def final(self, name: str) -> str:
        return self.path("final", name)

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
        return self.fs.exists(fsmod.join(path, MARKER))

    def marker(self, path: str) -> Optional[dict]:
        m = fsmod.join(path, MARKER)
        if not self.fs.exists(m):
            return None
        return json.loads(self.fs.read_text(m))

    def data(self, path: str) -> str:
        """The folder that holds the committed data of the stage at ``path``.

        Every reader of a stage's output (tables, the model file) goes through
        this, so the commit protocol can change where data lives without
        touching readers.  Today the data lives at ``path`` itself.
        """
        return path

    def counts(self, path: str) -> dict:
        m = self.marker(path)
        return dict(m["counts"]) if m else {}

    def clean_partial(self, path: str) -> None:
        """Remove leftovers of an interrupted attempt at ``path``."""
        parent, name = path.rsplit("/", 1)
        for entry in self.fs.listdir(parent):
            if entry.startswith(name + ".inprogress-"):
                self.fs.delete(fsmod.join(parent, entry))
        if self.fs.exists(path) and not self.is_committed(path):
            self.fs.delete(path)

    def stage(
        self,
        path: str,
        build: Callable[[str], Optional[dict]],
        config: Optional[dict] = None,
        force: bool = False,
        log: Callable[[str], Any] = print,
    ) -> StageResult:
        """Run ``build(staging_dir) -> counts`` once and commit its output at ``path``.

        Already committed: nothing runs and the recorded counts are returned.
        """
        if self.is_committed(path) and not force:
            m = self.marker(path) or {}
            log(f"[skip] {self._rel(path)} already committed")
            return StageResult(path, dict(m.get("counts", {})), dict(m.get("config", {})), True)
        self.clean_partial(path)
        if force and self.fs.exists(path):
            self.fs.delete(path)
        parent = path.rsplit("/", 1)[0]
        self.fs.mkdirs(parent)
        staging = f"{path}.inprogress-{uuid.uuid4().hex[:8]}"
        t0 = time.time()
        counts = build(staging) or {}
        if not self.fs.exists(staging):
            self.fs.mkdirs(staging)
        self.fs.rename(staging, path)
        marker = {
            "stage": self._rel(path),
            "config": config or {},
            "counts": counts,
            "seconds": round(time.time() - t0, 3),
            "committed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self.fs.write_text(fsmod.join(path, MARKER), json.dumps(marker, indent=2, sort_keys=True, default=str))
        return StageResult(path, counts, config or {}, False)

    def commit_in_place(self, path: str, counts: dict, config: Optional[dict] = None) -> None:
        """Commit a folder whose files were written in place (the annotation worksheet,
        which a person edits between two runs): only the marker makes it final."""
        marker = {"stage": self._rel(path), "config": config or {}, "counts": counts,
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
