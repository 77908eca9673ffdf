"""Progress lines for long Spark stages (the console progress bar is off).

A daemon thread polls the status tracker and prints one line per active
stage every ``interval`` seconds once a stage has been running for more than
``after`` seconds (classic sessions: the status tracker is the SparkContext's; on Spark Connect
there are no progress lines)::
    [spark] stage 12 (mapPartitions at ingest.py:88): 37/120 tasks, 2 running, 3.1 tasks/s, 12 s, ~27 s left
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


@contextmanager
def progress(spark, **kw):
    from .classic import status_tracker

    p = SparkProgress(status_tracker(spark), **kw).start()
    try:
        yield p
    finally:
        p.stop()
