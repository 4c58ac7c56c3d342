"""Ray engine: Ray Data reads the Parquet spool, groups rows by patient (its shuffle), and runs
the same per-patient function in `workers` actors, each building the note pipeline once.

The driver receives each patient's result as a row and journals it; Ray retries the tasks
of a worker that dies. `ray.init(address=...)` joins the cluster named by RAY_ADDRESS, else
starts a local one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from medeventgraph.model.settings import Settings

from .patient import PatientResult, PatientRow
from .watch import WatchItem

__all__ = ["run_ray"]

# Blocks of a few patients each: an actor's task is one block, so smaller blocks keep both
# actors busy to the end (the last block is not left to one), yet each block's work (seconds of
# NLP per patient) stays large next to Ray's per-task overhead.
_ROWS_PER_PARTITION = 20_000


def _ensure_ray(workers: int) -> None:
    import ray

    if ray.is_initialized():
        return
    address = os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(num_cpus=max(workers, os.cpu_count() or 1), include_dashboard=False, log_to_driver=False)


def _keep(batch: pa.Table, todo: pa.Array) -> pa.Table:
    return batch.filter(pc.is_in(batch["patient"], value_set=todo))


class _ScreenGroup:
    """A Ray Data callable class: constructed once per actor, called once per patient group."""

    def __init__(self, items: list[WatchItem], settings: Settings, shared: dict[str, bytes]):
        from .patient import worker_screener

        self.screener = worker_screener(items, settings, shared)

    def __call__(self, group: pa.Table) -> dict[str, list[Any]]:
        cols = group.to_pydict()
        patient = cols["patient"][0]
        rows = [PatientRow(k, u, loc, j) for k, u, loc, j in
                zip(cols["key"], cols["full_url"], cols["loc"], cols["json"], strict=True)]
        result = self.screener.screen(patient, rows)
        payload = orjson.dumps({"lines": result.lines, "issues": result.issues, "worker": result.worker})
        return {"patient": [patient], "payload": [payload]}


def run_ray(spool: Path, rows: int, todo: list[str], items: list[WatchItem], settings: Settings,
            shared: dict[str, bytes], workers: int, emit: Callable[[PatientResult], None]) -> None:
    import ray.data

    _ensure_ray(workers)
    ray.data.DataContext.get_current().enable_progress_bars = False  # the CLI shows its own
    if not todo:
        return
    files = sorted(str(p) for p in spool.glob("part-*.parquet"))
    ds = ray.data.read_parquet(files).select_columns(["patient", "key", "full_url", "loc", "json"])
    ds = ds.map_batches(partial(_keep, todo=pa.array(todo, pa.string())), batch_format="pyarrow")
    # One block in flight per actor: a block is seconds of NLP, so queueing a second one behind it
    # only leaves the other actor idle at the end (the dispatch gap is milliseconds).
    # Half a logical CPU per actor: the read and shuffle tasks still find a CPU beside the
    # actors on a small cluster (with whole CPUs, 2 actors on 2 CPUs starve them and hang).
    partitions = max(8 * workers, rows // _ROWS_PER_PARTITION)
    pool = ray.data.ActorPoolStrategy(size=workers, max_tasks_in_flight_per_actor=1)
    out = ds.groupby("patient", num_partitions=partitions).map_groups(
        _ScreenGroup, batch_format="pyarrow", compute=pool, num_cpus=0.5,
        fn_constructor_kwargs={"items": items, "settings": settings, "shared": shared})
    for row in out.iter_rows():
        data = orjson.loads(row["payload"])
        emit(PatientResult(row["patient"], tuple(data["lines"]), tuple(data["issues"]), data["worker"]))
