"""Nothing lost when a Ray worker dies: SIGKILL a screening actor's process mid-run (Ray local
cluster, 2 CPUs); Ray restarts the actor and retries its block, and the run completes with
exactly the uninterrupted local run's lines, no patient missing or twice (a block retried after
its result came back is dropped by the journal)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import orjson
from medeventgraph.model.settings import Settings
from medeventgraph.screen import ScreenJob, Selection, run_screen

from .conftest import WATCHLIST, sorted_lines


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _descends_from(pid: int, root: int) -> bool:
    try:
        while pid > 1:
            if pid == root:
                return True
            pid = _parent(pid)
    except (OSError, ValueError):
        return False
    return False


def _screening_actors() -> list[int]:
    """This test process's Ray workers that hold a screening actor (the raylet is our child)."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if b"_ScreenGroup" in cmd and _descends_from(int(name), os.getpid()):
            found.append(int(name))
    return found


def _journaled(out: Path) -> int:
    try:
        return sum(1 for ln in (out / "journal.ndjson").read_bytes().splitlines() if ln.endswith(b"}"))
    except FileNotFoundError:
        return 0


def test_killed_ray_worker_loses_and_doubles_nothing(export_dir: Path, local_run: Path, selected: frozenset[str],
                                                     ray_cluster: str, tmp_path: Path) -> None:
    out = tmp_path / "ray"
    job = ScreenJob(export_dir, WATCHLIST, out, engine="ray", workers=2, selection=Selection(patients=selected),
                    progress=False)
    failure: list[BaseException] = []

    def screen() -> None:
        try:
            run_screen(job, Settings())
        except BaseException as exc:  # noqa: BLE001 -- reported by the assertion below, in the test's thread
            failure.append(exc)

    run = threading.Thread(target=screen, daemon=True)
    run.start()
    deadline = time.monotonic() + 600  # a bound on a hang, not a timing assertion
    while run.is_alive() and time.monotonic() < deadline and not (_journaled(out) >= 1 and _screening_actors()):
        time.sleep(0.02)  # wait for the state: an actor at work and a first patient journaled
    actors = _screening_actors()
    done_at_kill = _journaled(out)
    assert actors and 1 <= done_at_kill < len(selected), (done_at_kill, failure)
    os.kill(actors[0], signal.SIGKILL)
    run.join(timeout=900)
    assert not run.is_alive()
    assert not failure, failure  # Ray restarted the actor and retried its block
    assert sorted_lines(out / "verdicts.ndjson") == sorted_lines(local_run / "verdicts.ndjson")
    journal = [orjson.loads(ln)["patient"] for ln in (out / "journal.ndjson").read_bytes().splitlines() if ln]
    assert Counter(journal) == Counter(selected)
