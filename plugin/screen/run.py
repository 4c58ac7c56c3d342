"""A screening run: spool the export, plan what is left, screen with one engine, then write
summary, report and (optionally) findings back to the FHIR server."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import orjson
from medeventgraph.model.settings import Settings
from medeventgraph.preflight import require

from .journal import Journal
from .patient import PatientResult
from .plan import Selection, connect, shared_resources, todo_patients
from .report import count_verdicts, write_report, write_summary
from .spool import build_spool, input_files, spool_is_current
from .watch import load_items
from .writeback import WriteBackStats, write_back

__all__ = ["RunSummary", "ScreenJob", "run_screen"]


@dataclass(frozen=True, slots=True)
class ScreenJob:
    input: Path
    watchlist: Path
    out: Path
    engine: Literal["local", "ray"] = "local"
    workers: int = 1
    selection: Selection = field(default_factory=Selection)
    write_back: str | None = None
    progress: bool = True


@dataclass(frozen=True, slots=True)
class RunSummary:
    patients: int  # screened in this run
    total: int  # in the output
    issues: int
    write_back: WriteBackStats | None


def _spool(job: ScreenJob, settings: Settings) -> Path:
    spool = job.out / "spool"
    files = input_files(job.input)
    if not spool_is_current(spool, files):
        build_spool(job.input, spool, settings.max_json_depth)
    return spool


def _issues(spool: Path, out: Path) -> int:
    """issues.ndjson: the spool pass's issues, then each patient's (from the journal)."""
    lines = [ln for ln in (spool / "issues.ndjson").read_bytes().splitlines() if ln]
    for entry in (out / "journal.ndjson").read_bytes().splitlines():
        for diag in orjson.loads(entry).get("issues", []):
            lines.append(orjson.dumps({"severity": "error", "code": "processing", "diagnostics": diag}))
    (out / "issues.ndjson").write_bytes(b"".join(ln + b"\n" for ln in lines))
    return len(lines)


def run_screen(job: ScreenJob, settings: Settings) -> RunSummary:
    from tqdm import tqdm

    if job.engine == "ray":
        require("ray")  # before anything is written to job.out
    items = load_items(job.watchlist)
    job.out.mkdir(parents=True, exist_ok=True)
    spool = _spool(job, settings)
    screened = 0
    with Journal(job.out) as journal:
        con = connect(job.out)
        try:
            todo = todo_patients(con, spool, job.selection, journal.done)
            shared = shared_resources(con, spool) if job.engine == "ray" else {}
        finally:
            con.close()
        bar = tqdm(total=len(todo), unit="patient", desc="screening", file=sys.stderr, disable=not job.progress,
                   smoothing=0.1)

        def emit(result: PatientResult) -> None:
            nonlocal screened
            journal.write(result)
            screened += 1
            bar.update(1)

        try:
            if job.engine == "ray":
                from .engine_ray import run_ray

                rows = orjson.loads((spool / "manifest.json").read_bytes())["rows"]
                run_ray(spool, rows, todo, items, settings, shared, job.workers, emit)
            else:
                from .engine_local import run_local

                run_local(spool, job.out, todo, items, settings, job.workers, emit)
        finally:
            bar.close()
    verdicts = job.out / "verdicts.ndjson"
    issues = _issues(spool, job.out)
    titles, counts, total = count_verdicts(verdicts)
    write_summary(job.out / "summary.csv", titles, counts)
    write_report(job.out / "report.html", verdicts, titles, counts, total, issues)
    stats = write_back(verdicts, job.write_back) if job.write_back else None
    return RunSummary(screened, total, issues, stats)
