"""`medeventgraph notes --in FILE.jsonl`: run the note pipeline on a user's own annotated texts.

Each input line is `{"text": ..., "targets": [...]}` with optional `"id"` and `"date"` (the note's
date, ISO 8601: relative times such as "2 days ago" resolve against it). A target is a phrase
(`"acute kidney injury"`) or `{"literal": ..., "concept": ..., "kind": ...}`; `--lexicon` adds the
lexicon's names (brands, abbreviations). Each output line lists every mention: its span
(`start`/`end` slice the input text back to `text`), the target it stands for, its sentence and
section, its ConText attributes and its resolved time (or null). A bad line gives an error line
holding a FHIR OperationOutcome, and the batch goes on.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import orjson
from medeventgraph.batch import json_line
from medeventgraph.model.occurrence import Kind, NoteDocument, Occurrence
from medeventgraph.model.outcome import InputError, Issue, operation_outcome
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    from medeventgraph.model.settings import Settings
    from medeventgraph.nlp import NotePipeline, TargetTerm

__all__ = ["add_notes_parser", "run_notes"]

MAX_TARGETS = 1000


class _TargetSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    literal: str = Field(min_length=1, max_length=300)
    concept: str | None = Field(default=None, max_length=300)
    kind: Kind | None = None


class _NotesLine(BaseModel):
    """One input line."""

    model_config = ConfigDict(extra="forbid")

    id: str | int | None = None
    text: str = Field(max_length=5_000_000)
    targets: list[str | _TargetSpec] = Field(default_factory=list, max_length=MAX_TARGETS)
    date: datetime | date | None = None

    @field_validator("targets", mode="before")
    @classmethod
    def _targets_list(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, list):
            raise ValueError("targets must be a list of phrases or {literal, concept, kind} objects")
        return value

    def target_terms(self) -> list[TargetTerm]:
        from medeventgraph.nlp import TargetTerm

        out = []
        for t in self.targets:
            spec = _TargetSpec(literal=t) if isinstance(t, str) else t
            out.append(TargetTerm(spec.literal, spec.concept or spec.literal, spec.kind, "query"))
        return out

    def document(self, n: int) -> NoteDocument:
        return NoteDocument.from_text(f"line-{n}", "Patient/notes-cli", self.text, self.date)


def add_notes_parser(sub: Any) -> None:
    n = sub.add_parser("notes", help="find target mentions and their assertions in your own texts (JSONL)")
    n.add_argument("--in", dest="input", type=argparse.FileType("rb"), required=True, metavar="FILE.jsonl",
                   help='lines {"text": ..., "targets": [...], "date"?: ...}; "-" reads stdin')
    n.add_argument("--out", type=argparse.FileType("w", encoding="utf-8"), default=sys.stdout,
                   metavar="OUT.jsonl", help="output JSONL (default stdout)")
    n.add_argument("--lexicon", action="store_true", help="also look for the lexicon's names and abbreviations")


def _time(occ: Occurrence) -> dict[str, Any] | None:
    t = occ.time
    if t.start is None:
        return None
    return {"start": t.start.isoformat(), "end": t.end.isoformat() if t.end else None,
            "granularity": t.granularity.value, "text": occ.extra_value("time_text")}


def _mentions_row(line: _NotesLine, n: int, mentions: list[Occurrence]) -> dict[str, Any]:
    out = []
    for m in mentions:
        a = m.assertion
        out.append({
            "start": m.source.start, "end": m.source.end, "text": line.text[m.source.start:m.source.end],
            "concept": m.concept.text, "kind": m.extra_value("kind") or m.kind.value,
            "sentence": [int(m.extra_value("sentence_start") or 0), int(m.extra_value("sentence_end") or 0)],
            "section": m.source.section,
            "assertion": {"negated": a.negated, "uncertain": a.uncertain, "hypothetical": a.hypothetical,
                          "historical": a.historical, "family": a.family},
            "time": _time(m),
        })
    return {"line": n, "id": line.id if line.id is not None else f"line-{n}", "mentions": out}


def _error_row(n: int, diagnostics: str, code: str = "invalid") -> dict[str, Any]:
    return {"line": n, "error": operation_outcome([Issue("error", code, f"line {n}: {diagnostics}")])}


def _parse(raw_line: bytes, n: int) -> _NotesLine | dict[str, Any]:
    try:
        raw = json_line(raw_line, f"line {n}")
    except InputError as exc:
        return {"line": n, "error": operation_outcome([exc.issue])}
    try:
        return _NotesLine.model_validate(raw)
    except ValidationError as exc:
        e = exc.errors()[0]
        return _error_row(n, f"{'.'.join(str(x) for x in e['loc']) or 'line'}: {e['msg']}")


def run_notes(args: argparse.Namespace, settings: Settings) -> int:
    from medeventgraph.nlp import NotePipeline

    pipeline = NotePipeline(max_note_chars=settings.max_note_chars, cache_size=16)
    extra = _lexicon_terms() if args.lexicon else []
    failures = lines = 0
    for n, raw_line in enumerate(args.input, start=1):
        lines += 1
        row = _answer(raw_line, n, pipeline, extra)
        failures += "error" in row
        args.out.write(orjson.dumps(row).decode() + "\n")
    args.out.flush()
    sys.stderr.write(f"{lines} lines, {failures} errors\n")
    return 0


def _answer(raw_line: bytes, n: int, pipeline: NotePipeline, extra: list[TargetTerm]) -> dict[str, Any]:
    line = _parse(raw_line, n)
    if isinstance(line, dict):
        return line
    if len(line.text) > pipeline.max_note_chars:
        return _error_row(n, f"text longer than max_note_chars ({pipeline.max_note_chars})", "too-long")
    terms = line.target_terms() + extra
    if not terms:
        return _error_row(n, "no targets: give \"targets\" or run with --lexicon", "required")
    return _mentions_row(line, n, pipeline.mentions([line.document(n)], terms))


def _lexicon_terms() -> list[TargetTerm]:
    from medeventgraph.core import load_lexicon
    from medeventgraph.nlp import TargetTerm

    return [TargetTerm(s, cid, Kind(kind), "lexicon") for s, cid, kind in load_lexicon().all_terms()]
