"""Work per request, bounded: verification runs on a fixed pool of worker threads under a deadline.

The event loop only awaits; it never computes, so discovery and other calls are answered while a
verification runs. When a call's deadline (MEG_REQUEST_DEADLINE_SECONDS) passes, the caller gets
a 503 OperationOutcome at once. A thread cannot be killed, so the computation is stopped
cooperatively: its Deadline is cancelled and the worker checks it between stages (before and
after ingest, before each query), so it runs on for at most the stage in progress. A call still
waiting for a worker when its deadline passes never starts. With MEG_VERIFY_WORKERS workers, at
most that many computations run at once, however many calls time out.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from medeventgraph.cds_hooks.errors import HookError

__all__ = ["Deadline", "Workers"]

T = TypeVar("T")


class _DeadlineExceeded(Exception):
    """Raised inside a worker at a checkpoint once its call has been answered with a 503."""


class Deadline:
    """A point in monotonic time, and a flag the event loop sets when it gives up waiting."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._at = time.monotonic() + seconds
        self._cancelled = threading.Event()

    def remaining(self) -> float:
        return max(0.0, self._at - time.monotonic())

    def cancel(self) -> None:
        self._cancelled.set()

    def check(self) -> None:
        """A checkpoint: stop here if the call's answer has already gone out."""
        if self._cancelled.is_set() or time.monotonic() >= self._at:
            raise _DeadlineExceeded


def _timed_out(deadline: Deadline) -> HookError:
    return HookError(503, f"verification exceeded the request deadline of {deadline.seconds:g} s "
                          "(MEG_REQUEST_DEADLINE_SECONDS); retry later", code="timeout",
                     headers={"Retry-After": "5"})


class Workers:
    """The verification threads of one service, and how many computations are running now."""

    def __init__(self, count: int):
        self._pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="meg-verify")
        self._lock = threading.Lock()
        self._running = 0
        self._started = 0

    def running(self) -> int:
        """Computations in progress (including ones whose callers already got a 503)."""
        with self._lock:
            return self._running

    def started(self) -> int:
        """Computations ever started by this service."""
        with self._lock:
            return self._started

    def _call(self, fn: Callable[..., T], deadline: Deadline, args: tuple[Any, ...]) -> T:
        with self._lock:
            self._running += 1
            self._started += 1
        try:
            deadline.check()
            return fn(*args, deadline)
        finally:
            with self._lock:
                self._running -= 1

    async def run(self, fn: Callable[..., T], deadline: Deadline, *args: Any) -> T:
        """`fn(*args, deadline)` on a worker; a 503 HookError when the deadline passes first."""
        if deadline.remaining() <= 0:
            raise _timed_out(deadline)
        future: Future[T] = self._pool.submit(self._call, fn, deadline, args)
        # Nobody reads the result of an abandoned computation: retrieve it so it is not logged.
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), deadline.remaining())
        except TimeoutError:
            deadline.cancel()
            future.cancel()  # succeeds only while it waits for a worker: then it never starts
            raise _timed_out(deadline) from None
        except _DeadlineExceeded:
            raise _timed_out(deadline) from None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
