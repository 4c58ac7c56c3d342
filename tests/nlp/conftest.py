"""nlp fixtures: one spaCy pipeline per session, real notes from the shared data."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from medeventgraph.fhir_adapters import load_paths
from medeventgraph.model.occurrence import EventTime, Granularity, Kind, NoteDocument, NoteText, TimeType
from medeventgraph.nlp import NotePipeline, TargetTerm

from ..conftest import missing

NOTE_DATE = datetime(2020, 5, 15, 9, 30, tzinfo=UTC)


@pytest.fixture(scope="session")
def pipeline() -> NotePipeline:
    return NotePipeline()


@pytest.fixture(scope="session")
def synthea_notes(synthea_dir: Path) -> list[NoteDocument]:
    bundles = sorted(p for p in synthea_dir.glob("*.json") if not p.name.startswith(("hospital", "practitioner")))
    docs = load_paths(bundles).documents
    if not docs:
        missing("no Synthea notes")
    return docs


@pytest.fixture(scope="session")
def clinosim_notes(clinosim_dir: Path) -> list[NoteDocument]:
    result = load_paths([clinosim_dir / "Patient.ndjson.gz", clinosim_dir / "DocumentReference.ndjson.gz"])
    return result.documents


def make_note(text: str, resource_id: str = "n1", *, date: datetime = NOTE_DATE,
              patient: str = "Patient/p1", resource_type: str = "DocumentReference") -> NoteDocument:
    return NoteDocument(
        resource_type=resource_type,
        resource_id=resource_id,
        patient=patient,
        encounter="Encounter/e1",
        date=EventTime(start=date, type=TimeType.DOCUMENTATION, granularity=Granularity.SECOND),
        texts=(NoteText(0, "text/plain", text),),
    )


AKI_TERMS = (
    TargetTerm("acute kidney injury", "acute kidney injury", Kind.CONDITION, "query"),
    TargetTerm("AKI", "acute kidney injury", Kind.CONDITION, "lexicon"),
    TargetTerm("creatinine", "creatinine", Kind.LAB, "lexicon"),
    TargetTerm("pneumonia", "pneumonia", Kind.CONDITION, "record"),
    TargetTerm("vancomycin", "vancomycin", Kind.MEDICATION, "query"),
)
