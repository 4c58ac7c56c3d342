"""Local engine: patient groups streamed bucket by bucket from the spool (regroup.py); 1 worker
in process, or N worker processes each building the note pipeline once (concurrent.futures),
with at most 2N patients in flight so memory stays bounded by the largest patients, not the population."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from medeventgraph.model.settings import Settings

from .patient import PatientResult, PatientRow, Screener, worker_screener
from .plan import connect, shared_resources
from .regroup import patient_groups
from .watch import WatchItem

__all__ = ["run_local"]

_worker: dict[str, Screener] = {}  # one Screener per worker process, set by its initializer


def _init(items: list[WatchItem], settings: Settings, shared: dict[str, bytes]) -> None:
    _worker["screener"] = worker_screener(items, settings, shared)


def _screen(patient: str, rows: list[tuple[str, str | None, str, bytes]]) -> PatientResult:
    return _worker["screener"].screen(patient, [PatientRow(*r) for r in rows])


def run_local(spool: Path, work: Path, todo: list[str], items: list[WatchItem], settings: Settings,
              workers: int, emit: Callable[[PatientResult], None]) -> None:
    con = connect(work)
    try:
        shared = shared_resources(con, spool)
    finally:
        con.close()
    groups = patient_groups(spool, todo)
    if workers <= 1:
        screener = worker_screener(items, settings, shared)
        for patient, rows in groups:
            emit(screener.screen(patient, [PatientRow(*r) for r in rows]))
        return
    ctx = multiprocessing.get_context("spawn")  # no forked copy of the driver's Arrow/DuckDB threads
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init, initargs=(items, settings, shared)) as pool:
        for result in _bounded(pool, groups, 2 * workers):
            emit(result)


def _bounded(pool: ProcessPoolExecutor, groups: Iterator[tuple[str, Any]], window: int) -> Iterator[PatientResult]:
    """Results in submission order, with at most `window` patients submitted and unfinished."""
    pending: deque[Future[PatientResult]] = deque()
    for patient, rows in groups:
        pending.append(pool.submit(_screen, patient, rows))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
