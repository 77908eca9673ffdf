"""Progress lines for long stages (Spark's console progress bar is off).

The runner names the product stage it runs (:func:`product_stage`: ``near dedup``, ``iteration 2:
model``...); it is also the Spark jobs' description, which the Spark UI shows.  While a product
stage runs, a daemon thread prints one line once it has run ``after`` seconds and then every
``interval`` seconds, with the Spark stage it is in (or that it is working on the driver)::
    [spark] near dedup, 41 s: Spark stage 12, 37/120 tasks, 2 running, 3.1 tasks/s, ~27 s left
    [spark] iteration 2: model, 25 s: no Spark stage running (work on the driver)

Outside any product stage (a command that runs no recipe), one line per active Spark stage, named as
Spark names it, once the stage has run ``after`` seconds and then every ``interval`` seconds.  Classic sessions: the SparkContext's status tracker.  Spark Connect 4.x: the
progress the server streams with each query's results (``registerProgressHandler``), which names no
stage, so the line names the query's operation; its "running" is the query's tasks in flight.
Spark Connect 3.5 streams no progress: no lines there::
    [spark] stage 12 (mapPartitions at ingest.py:88): 37/120 tasks, 2 running, 3.1 tasks/s, 12 s, ~27 s left
    [spark] stage 12 (operation 4f1c2a9e): 37/120 tasks, 2 running, 3.1 tasks/s, 12 s, ~27 s left
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, Optional

from ..runlog import logger

_current: dict = {"label": None, "since": 0.0}       # the product stage running now (product_stage)


def current_stage() -> tuple[Optional[str], float]:
    """The product stage running now and since when (``time.time()``); (None, 0) between stages."""
    return _current["label"], _current["since"]


def stage_label(name: str, i: Optional[int] = None) -> str:
    """``near_dedup`` -> ``near dedup``; an iteration's stage: ``iteration 2: model``."""
    label = name.replace("_", " ")
    return f"iteration {i}: {label}" if i is not None else label


@contextmanager
def product_stage(spark, label: str, clock: Callable[[], float] = time.time):
    """Name the product stage that runs in the block: for the progress lines, and as the description
    of the Spark jobs it starts (classic sessions: the Spark UI's job list shows it)."""
    before = dict(_current)
    _current.update(label=label, since=clock())
    described = _describe(spark, label)
    try:
        yield
    finally:
        _current.update(before)
        if described:
            _describe(spark, before["label"])


def _describe(spark, text) -> bool:
    """Set the Spark jobs' description; False when there is no classic session to describe."""
    if spark is None:
        return False
    try:
        from .classic import set_job_description

        set_job_description(spark, text)
        return True
    except Exception:  # noqa: BLE001 - a description must never break a run (a stand-in session in tests)
        return False


def _pace(done: int, total: int, elapsed: float, show_elapsed: bool = False) -> str:
    """``, 3.1 tasks/s[, 41 s], ~27 s left`` of a stage ``elapsed`` seconds in (no estimate before a task
    ends, none once all have)."""
    rate = done / elapsed
    out = f", {rate:.1f} tasks/s" + (f", {elapsed:.0f} s" if show_elapsed else "")
    if 0 < done < total:
        out += f", ~{(total - done) / rate:.0f} s left"
    return out


def stage_progress_line(label: str, elapsed: float, sid: Optional[int] = None, done: int = 0, total: int = 0,
                        running: int = 0, stage_elapsed: float = 0.0) -> str:
    """``[spark] near dedup, 41 s: Spark stage 12, 37/120 tasks, 2 running, 3.1 tasks/s, ~27 s left``;
    without a Spark stage: ``[spark] iteration 2: model, 25 s: no Spark stage running (work on the driver)``."""
    line = f"[spark] {label}, {elapsed:.0f} s: "
    if sid is None:
        line += "no Spark stage running (work on the driver)"
    else:
        line += f"Spark stage {sid}, {done}/{total} tasks, {running} running"
        if stage_elapsed > 0:
            line += _pace(done, total, stage_elapsed)
    logger("spark").info(line)
    return line


def progress_line(sid: int, name: str, done: int, total: int, running: int, elapsed: float) -> str:
    """``[spark] stage 12 (...): 37/120 tasks, 2 running, 3.1 tasks/s, 41 s, ~27 s left`` (also logged)."""
    line = f"[spark] stage {sid} ({name}): {done}/{total} tasks, {running} running"
    if elapsed > 0:
        line += _pace(done, total, elapsed, show_elapsed=True)
    logger("spark").info(line)
    return line


class SparkProgress:
    def __init__(self, tracker, interval: float = 10.0, after: float = 5.0, echo: Callable[[str], None] = print,
                 clock: Callable[[], float] = time.time, poll: float = 1.0):
        self.tracker = tracker      # SparkContext.statusTracker(); None: no progress lines
        self.interval = interval
        self.after = after
        self.echo = echo
        self.clock = clock
        self.poll = min(poll, interval)
        self._stop = threading.Event()
        self._seen: dict[int, float] = {}
        self._shown: dict = {}      # stage id, or (label, since), -> when its last line was printed
        self._thread = threading.Thread(target=self._loop, name="spark-progress", daemon=True)

    def _due(self, key, first: float, now: float) -> bool:
        shown = self._shown.get(key)
        if now - first < self.after or (shown is not None and now - shown < self.interval):
            return False
        self._shown[key] = now
        return True

    def tick(self) -> None:
        """One look at the tracker: print what is due."""
        tracker, now = self.tracker, self.clock()
        active = []
        for sid in tracker.getActiveStageIds():
            first = self._seen.setdefault(sid, now)
            info = tracker.getStageInfo(sid)
            if info is not None:
                active.append((sid, info, first))
        label, since = current_stage()
        if label is None:
            for sid, info, first in active:
                if self._due(sid, first, now):
                    self.echo(progress_line(sid, info.name, info.numCompletedTasks, info.numTasks,
                                            info.numActiveTasks, now - first))
            return
        if not self._due((label, since), since, now):
            return
        if not active:
            self.echo(stage_progress_line(label, now - since))
            return
        sid, info, first = max(active, key=lambda a: a[0])      # the latest Spark stage of the product stage
        self.echo(stage_progress_line(label, now - since, sid, info.numCompletedTasks, info.numTasks,
                                      info.numActiveTasks, now - first))

    def _loop(self) -> None:
        if self.tracker is None:
            return
        while not self._stop.wait(self.poll):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - progress must never break a run
                return

    def start(self) -> "SparkProgress":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()


class ConnectProgress:
    """A Spark Connect progress handler (``SparkSession.registerProgressHandler``, pyspark 4.x): called
    by the client as the server streams a query's progress; one line per running stage every
    ``interval`` seconds once it has run for ``after`` seconds."""

    def __init__(self, interval: float = 10.0, after: float = 5.0, echo: Callable[[str], None] = print,
                 clock: Callable[[], float] = time.time):
        self.interval = interval
        self.after = after
        self.echo = echo
        self.clock = clock
        self._seen: dict[int, float] = {}
        self._shown: dict[int, float] = {}

    def __call__(self, stages, inflight_tasks: int, operation_id, done: bool) -> None:
        try:
            now = self.clock()
            for st in stages or ():
                if st.done:
                    continue
                first = self._seen.setdefault(st.stage_id, now)
                shown = self._shown.get(st.stage_id)
                if now - first < self.after or (shown is not None and now - shown < self.interval):
                    continue
                self._shown[st.stage_id] = now
                label, since = current_stage()
                if label is not None:
                    self.echo(stage_progress_line(label, now - since, st.stage_id, st.num_completed_tasks,
                                                  st.num_tasks, inflight_tasks, now - first))
                    continue
                self.echo(progress_line(st.stage_id, f"operation {str(operation_id or '?')[:8]}",
                                        st.num_completed_tasks, st.num_tasks, inflight_tasks, now - first))
        except Exception:  # noqa: BLE001 - progress must never break a run
            return


@contextmanager
def progress(spark, **kw):
    from .classic import is_classic, status_tracker

    if not is_classic(spark) and hasattr(spark, "registerProgressHandler"):
        handler = ConnectProgress(**kw)
        spark.registerProgressHandler(handler)
        try:
            yield handler
        finally:
            spark.removeProgressHandler(handler)
        return
    p = SparkProgress(status_tracker(spark), **kw).start()
    try:
        yield p
    finally:
        p.stop()
