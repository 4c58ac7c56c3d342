"""Nothing lost: SIGKILL a real `medeventgraph screen` mid-run, rerun the same command, and
get exactly the uninterrupted run's lines — none twice, none missing."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
from medeventgraph.screen.journal import Journal
from medeventgraph.screen.patient import PatientResult

from .conftest import WATCHLIST, cli_env, sorted_lines


def _command(export_dir: Path, out: Path, patients: Path) -> list[str]:
    return [sys.executable, "-m", "medeventgraph.cli", "screen", "--input", str(export_dir), "--watchlist",
            str(WATCHLIST), "--out", str(out), "--patients", str(patients), "--no-progress"]


def _journaled(out: Path) -> int:
    try:
        return sum(1 for ln in (out / "journal.ndjson").read_bytes().splitlines() if ln.endswith(b"}"))
    except FileNotFoundError:
        return 0


def test_killed_run_resumes_without_loss_or_duplicates(export_dir: Path, local_run: Path, patients_file: Path,
                                                        selected: frozenset[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = _command(export_dir, out, patients_file)
    proc = subprocess.Popen(command, env=cli_env(), stdout=subprocess.DEVNULL,
                            stderr=(tmp_path / "stderr").open("w"))
    try:
        deadline = time.monotonic() + 600  # a bound on a hang, not a timing assertion
        while _journaled(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, (tmp_path / "stderr").read_text()[-3000:]
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    first = _journaled(out)
    assert 2 <= first < len(selected)
    rerun = subprocess.run(command, check=False, env=cli_env(), capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"screened {len(selected) - first} patients in this run" in rerun.stderr
    assert sorted_lines(out / "verdicts.ndjson") == sorted_lines(local_run / "verdicts.ndjson")


def _result(patient: str) -> PatientResult:
    return PatientResult(patient, ({"patient": patient, "item": "a", "verdict": "insufficient"},), ())


def test_journal_drops_a_block_written_but_not_journaled(tmp_path: Path) -> None:
    with Journal(tmp_path) as journal:
        journal.write(_result("p1"))
        journal.write(_result("p1"))  # a retried duplicate is not written twice
    with (tmp_path / "verdicts.ndjson").open("ab") as f:
        f.write(b'{"patient":"p2","item":"a","verd')  # killed mid-block, before its journal entry
    with (tmp_path / "journal.ndjson").open("ab") as f:
        f.write(b'{"patient":"p2","en')  # and mid journal line
    with Journal(tmp_path) as journal:
        assert journal.done == {"p1"}
        journal.write(_result("p2"))
    lines = [orjson.loads(ln) for ln in (tmp_path / "verdicts.ndjson").read_bytes().splitlines()]
    assert [ln["patient"] for ln in lines] == ["p1", "p2"]
