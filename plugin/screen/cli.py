"""`medeventgraph screen`: argument wiring for population screening (the job is run.py)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from medeventgraph.model.outcome import InputError, Issue
from medeventgraph.model.settings import Settings

__all__ = ["add_parser", "screen_command"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    sc = sub.add_parser("screen", help="run a watch list over a whole Bulk FHIR export")
    sc.add_argument("--input", type=Path, required=True,
                    help="Bulk Data export folder (NDJSON per type, plain or .gz), or a folder of Bundles")
    sc.add_argument("--watchlist", type=Path, required=True,
                    help="CDS Hooks watch-list JSON, or a JSONL of queries / {'id','question'}")
    sc.add_argument("--out", type=Path, required=True, help="output folder (rerun the same command to resume)")
    sc.add_argument("--engine", choices=["local", "ray"], default="local")
    sc.add_argument("--workers", type=int, default=1, help="worker processes (local) or actors (ray)")
    sc.add_argument("--since", type=date.fromisoformat, metavar="YYYY-MM-DD",
                    help="only patients with a resource dated or updated on/after this day")
    sc.add_argument("--patients", type=Path, metavar="FILE", help="only these patient ids (one per line)")
    sc.add_argument("--write-back", metavar="URL", help="FHIR base URL: post findings as DetectedIssue + Provenance")
    sc.add_argument("--config", type=Path, help="settings file (JSON or TOML); MEG_* env vars also apply")
    sc.add_argument("--no-notes", action="store_true", help="skip the note NLP pipeline")
    sc.add_argument("--no-progress", action="store_true")


def _patients(path: Path | None) -> frozenset[str] | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(Issue("fatal", "not-found", f"{path}: cannot be read ({type(exc).__name__})")) from None
    return frozenset(ln.strip().removeprefix("Patient/") for ln in text.splitlines() if ln.strip())


def screen_command(args: argparse.Namespace, settings: Settings) -> int:
    from .plan import Selection
    from .run import ScreenJob, run_screen

    if args.workers < 1:
        raise InputError(Issue("error", "value", "--workers must be at least 1"))
    job = ScreenJob(
        input=args.input, watchlist=args.watchlist, out=args.out, engine=args.engine, workers=args.workers,
        selection=Selection(args.since.isoformat() if args.since else None, _patients(args.patients)),
        write_back=args.write_back, progress=not args.no_progress)
    try:
        summary = run_screen(job, settings)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted: finished patients are kept; rerun the same command to continue\n")
        return 130
    sys.stderr.write(f"screened {summary.patients} patients in this run, {summary.total} in {args.out}; "
                     f"{summary.issues} input issues (issues.ndjson)\n")
    if summary.write_back is not None:
        wb = summary.write_back
        sys.stderr.write(f"write-back: {wb.findings} findings for {wb.patients} patients; {wb.created} created, "
                         f"{wb.existing} already there, {len(wb.failed)} failed\n")
        for problem in wb.failed[:20]:
            sys.stderr.write(f"write-back problem: {problem}\n")
        return 1 if wb.failed else 0
    return 0
