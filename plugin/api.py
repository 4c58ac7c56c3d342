"""Python API: `verify(resources, query) -> Verdict`, plus the pieces the CLI and service share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from medeventgraph.core import PatientIndex, Verdict, VerificationQuery, answer, build_index, read_on_record
from medeventgraph.fhir_adapters.ingest import ingest_json, load_paths
from medeventgraph.fhir_adapters.limits import InputLimits
from medeventgraph.fhir_adapters.record import IngestResult, PatientRecord
from medeventgraph.model.outcome import InputError, Issue
from medeventgraph.model.settings import Settings

__all__ = [
    "index_for",
    "load",
    "make_note_pipeline",
    "parse_query",
    "question_text",
    "read_on_record",
    "select_patient",
    "verify",
    "verify_index",
]


def load(source: Any, *, settings: Settings | None = None) -> IngestResult:
    """Paths (files, folders) or in-memory FHIR JSON (a Bundle, a resource, a list of them)."""
    settings = settings or Settings()
    if isinstance(source, (str, Path)) and not (isinstance(source, str) and source.lstrip().startswith(("{", "["))):
        return load_paths([source], limits=InputLimits.from_settings(settings))
    if isinstance(source, (list, tuple)) and source and all(isinstance(s, (str, Path)) for s in source):
        return load_paths(source, limits=InputLimits.from_settings(settings))
    return ingest_json(source, limits=InputLimits.from_settings(settings))


def select_patient(result: IngestResult, patient: str | None) -> PatientRecord:
    """The queried patient: the one named, or the only one present."""
    present = result.patient_ids()
    if patient is None:
        if len(present) != 1:
            diag = (
                "no patient found in the input"
                if not present
                else f"input holds {len(present)} patients; choose one with --patient"
            )
            raise InputError(Issue("error", "required" if not present else "multiple-matches", diag))
        patient = present[0]
    patient = patient.removeprefix("Patient/")
    if patient not in present:
        raise InputError(Issue("error", "not-found", "the requested patient is not in the input"))
    return result.for_patient(patient)


def parse_query(query: str | dict | VerificationQuery, record: PatientRecord | None = None) -> VerificationQuery:
    return _parse_query_noted(query, record)[0]


def question_text(query: str | dict | VerificationQuery) -> str | None:
    """The free-text question `query` holds, or None for a query (an object or JSON text)."""
    if not isinstance(query, str):
        return None
    text = query.strip()
    return None if text.startswith("{") else text


def _parse_query_noted(
    query: str | dict | VerificationQuery, record: PatientRecord | None = None
) -> tuple[VerificationQuery, dict[str, str]]:
    """A query, and for a question how the record decided an action word ("started on");
    without the record, "started on" stays `any` (read_on_record decides it later)."""
    if isinstance(query, VerificationQuery):
        return query, {}
    if isinstance(query, dict):
        return VerificationQuery.model_validate(query), {}
    text = question_text(query)
    if text is None:
        return VerificationQuery.model_validate(orjson.loads(query)), {}
    from medeventgraph.core import parse_question_noted

    parsed, notes = parse_question_noted(text)
    return (parsed, notes) if record is None else read_on_record(parsed, text, record)


def verify_index(index: PatientIndex, query: str | dict | VerificationQuery, settings: Settings) -> Verdict:
    """Verify a query or question against one patient's index (questions read with the record)."""
    return answer(index, parse_query(query), settings, question=question_text(query)).verdict


def make_note_pipeline(settings: Settings):
    """The note NLP pipeline, built once per process by the caller (expensive)."""
    if not settings.notes:
        return None
    from medeventgraph.nlp import NotePipeline

    return NotePipeline(max_note_chars=settings.max_note_chars, cache_size=settings.note_cache_size,
                        cache_chars=settings.note_cache_chars)


def index_for(record: PatientRecord, settings: Settings, notes=None) -> PatientIndex:
    return build_index(record, settings, notes=notes)


def verify(
    resources: Any,
    query: str | dict | VerificationQuery,
    *,
    patient: str | None = None,
    settings: Settings | None = None,
) -> Verdict:
    """Verify one query against FHIR input (paths, a Bundle dict, a list of resources, JSON text)."""
    settings = settings or Settings()
    result = load(resources, settings=settings)
    record = select_patient(result, patient)
    index = build_index(record, settings, notes=make_note_pipeline(settings))
    return verify_index(index, query, settings)
