"""Indexes for the core tests, built once per session (notes off: the NLP stage has its own tests)."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest
from medeventgraph.core.index.patient_index import PatientIndex, build_index
from medeventgraph.fhir_adapters.ingest import ingest_json, load_paths
from medeventgraph.model.settings import Settings

LANCE = "Lance203_Padberg411_716c6d0a-2a5d-0aaa-9ced-312ed6a943da.json"
BOYCE = "Boyce638_Nolan344_9c5b16dc-8a47-896c-4d74-f96f8c98891b.json"
AKI_PATIENT = "pt-51e7620acf86"  # clinosim SH7-0005: vancomycin, creatinine 1.33 -> 4.4, AKI


def note_record_resources(note_text: str, *, drug: str, drug_id: str, given: str,
                          note_date: str = "2024-01-03T10:00:00Z") -> list[dict]:
    """Patient p in encounter e (2024-01-01 06:00 to 01-08 12:00): one completed dose of `drug`
    at `given` and one plain-text note of that encounter dated `note_date`."""
    p, enc = {"reference": "Patient/p"}, {"reference": "Encounter/e"}
    return [
        {"resourceType": "Patient", "id": "p"},
        {"resourceType": "Encounter", "id": "e", "status": "finished", "subject": p,
         "period": {"start": "2024-01-01T06:00:00Z", "end": "2024-01-08T12:00:00Z"}},
        {"resourceType": "MedicationAdministration", "id": drug_id, "status": "completed", "subject": p,
         "context": enc, "medicationCodeableConcept": {"text": drug}, "effectiveDateTime": given},
        {"resourceType": "DocumentReference", "id": "note", "status": "current", "subject": p,
         "date": note_date, "context": {"encounter": [enc]},
         "content": [{"attachment": {"contentType": "text/plain",
                                     "data": base64.b64encode(note_text.encode()).decode()}}]},
    ]


def note_index(note_text: str, note_pipeline, *, drug: str = "vancomycin 1 g IV", drug_id: str = "vanc") -> PatientIndex:
    """The index, notes read, of `note_record_resources` with `drug` given on admission."""
    resources = note_record_resources(note_text, drug=drug, drug_id=drug_id, given="2024-01-01T08:00:00Z")
    result = ingest_json({"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]})
    return build_index(result.for_patient("p"), Settings(), notes=note_pipeline)


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings(notes=False)


def index_of(raw: dict | list, settings: Settings, patient: str | None = None) -> PatientIndex:
    result = ingest_json(raw)
    pid = patient or result.patient_ids()[0]
    return build_index(result.for_patient(pid), settings)


@pytest.fixture(scope="session")
def lance_raw(synthea_dir: Path) -> dict:
    return orjson.loads((synthea_dir / LANCE).read_bytes())


@pytest.fixture(scope="session")
def lance(lance_raw: dict, settings: Settings) -> PatientIndex:
    return index_of(lance_raw, settings)


@pytest.fixture(scope="session")
def boyce(synthea_dir: Path, settings: Settings) -> PatientIndex:
    return index_of(orjson.loads((synthea_dir / BOYCE).read_bytes()), settings)


@pytest.fixture(scope="session")
def clinosim(clinosim_dir: Path):
    return load_paths([clinosim_dir])


@pytest.fixture(scope="session")
def aki(clinosim, settings: Settings) -> PatientIndex:
    return build_index(clinosim.for_patient(AKI_PATIENT), settings)
