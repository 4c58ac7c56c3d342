"""The CLI's verify and timeline commands (argument parsing lives in cli.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, Any

import orjson
from medeventgraph.api import load, make_note_pipeline, parse_query, question_text, select_patient
from medeventgraph.batch import answer_line
from medeventgraph.core import PatientIndex, Verdict, VerificationQuery, answer, build_index
from medeventgraph.fhir_adapters.record import IngestResult
from medeventgraph.model.settings import Settings
from medeventgraph.wording.table import timeline_rows, timeline_table, verdict_table

__all__ = ["timeline", "verify_batch", "verify_one"]


def _load(args: argparse.Namespace, settings: Settings) -> IngestResult:
    result = load([Path(b) for b in args.bundle], settings=settings)
    for issue in result.issues:
        if issue.severity in ("fatal", "error"):
            sys.stderr.write(f"input issue: {issue.diagnostics}\n")
    return result


def _query_text(raw: str) -> str:
    if raw.startswith("@"):
        return Path(raw[1:]).read_text(encoding="utf-8")
    return raw


def verify_one(args: argparse.Namespace, settings: Settings) -> int:
    result = _load(args, settings)
    record = select_patient(result, args.patient)
    raw = args.question or _query_text(args.query)
    query = parse_query(raw)  # a bad query fails before the index is built
    index = build_index(record, settings, notes=make_note_pipeline(settings))
    answered = answer(index, query, settings, question=question_text(raw))
    _print_verdict(_with_input_issues(answered.verdict, result), args.format, sys.stdout, answered.query)
    return 0


def _print_verdict(verdict: Verdict, fmt: str, out: IO[str], query: VerificationQuery | None = None) -> None:
    if fmt == "table":
        out.write(verdict_table(verdict, query) + "\n")
    else:
        out.write(verdict.model_dump_json(indent=2) + "\n")


class _Indexes:
    """Per-patient indexes for a batch, built on first use."""

    def __init__(self, result: IngestResult, settings: Settings):
        self.result, self.settings = result, settings
        self.notes = make_note_pipeline(settings)
        self._built: dict[str, PatientIndex] = {}

    def get(self, patient: str | None) -> PatientIndex:
        record = select_patient(self.result, patient)
        if record.patient not in self._built:
            self._built[record.patient] = build_index(record, self.settings, notes=self.notes)
        return self._built[record.patient]


def verify_batch(args: argparse.Namespace, settings: Settings) -> int:
    from tqdm import tqdm

    result = _load(args, settings)
    indexes = _Indexes(result, settings)
    lines = args.queries.read_bytes().splitlines()

    def verify(query: Any, patient: str | None, question: str | None) -> dict[str, Any]:
        index = indexes.get(patient or args.patient)
        verdict = answer(index, query, settings, question=question).verdict
        return _with_input_issues(verdict, result).model_dump(mode="json")

    out = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    failures = 0
    try:
        for n, line in enumerate(tqdm(lines, desc="queries", unit="q", file=sys.stderr), start=1):
            row = answer_line(line, n, verify, parse_query)
            failures += "error" in row
            out.write(orjson.dumps(row).decode() + "\n")
    finally:
        if args.out:
            out.close()
    sys.stderr.write(f"{len(lines)} lines, {failures} errors\n")
    return 0


def _with_input_issues(verdict: Verdict, result: IngestResult) -> Verdict:
    """The input's own problems (a malformed file, a skipped resource) first in `issues`."""
    if not result.issues:
        return verdict
    found = [issue.to_fhir() for issue in result.issues]
    return verdict.model_copy(update={"issues": found + list(verdict.issues)})


def timeline(args: argparse.Namespace, settings: Settings) -> int:
    result = _load(args, settings)
    record = select_patient(result, args.patient)
    kinds = set(args.kind) if args.kind else None
    if args.format == "json":
        rows = timeline_rows(record.occurrences, kinds=kinds)
        sys.stdout.write(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(timeline_table(record.occurrences, kinds=kinds))
    return 0
