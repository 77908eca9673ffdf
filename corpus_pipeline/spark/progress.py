"""Progress lines for long Spark stages (the console progress bar is off).

A daemon thread polls the status tracker and prints one line per active
stage every ``interval`` seconds once a stage has been running for more than
``after`` seconds.  Classic sessions: the SparkContext's status tracker.  Spark Connect 4.x: the
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
from typing import Callable

from ..runlog import logger


def progress_line(sid: int, name: str, done: int, total: int, running: int, elapsed: float) -> str:
    """``[spark] stage 12 (...): 37/120 tasks, 2 running, 3.1 tasks/s, 41 s, ~27 s left`` (also logged)."""
    line = f"[spark] stage {sid} ({name}): {done}/{total} tasks, {running} running"
    if elapsed > 0:
        rate = done / elapsed
        line += f", {rate:.1f} tasks/s, {elapsed:.0f} s"
        if 0 < done < total:
            line += f", ~{(total - done) / rate:.0f} s left"

    logger("spark").info(line)
    return line


class SparkProgress:
    def __init__(self, tracker, interval: float = 10.0, after: float = 5.0, echo: Callable[[str], None] = print):
        self.tracker = tracker      # SparkContext.statusTracker(); None: no progress lines
        self.interval = interval
        self.after = after
        self.echo = echo
        self._stop = threading.Event()
        self._seen: dict[int, float] = {}
        self._thread = threading.Thread(target=self._loop, name="spark-progress", daemon=True)

    def _loop(self) -> None:
        tracker = self.tracker
        if tracker is None:
            return
        while not self._stop.wait(self.interval):
            try:
                now = time.time()
                for sid in tracker.getActiveStageIds():
                    first = self._seen.setdefault(sid, now)
                    if now - first < self.after:
                        continue
                    info = tracker.getStageInfo(sid)
                    if info is None:
                        continue
                    self.echo(progress_line(sid, info.name, info.numCompletedTasks, info.numTasks,
                                            info.numActiveTasks, now - first))
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
