"""A note that pastes in a recorded result ("Notable labs today: glucose 102.0 mg/dL") repeats
that result: it is not a new measurement on the note's day (core/index/value_copies.py)."""

from __future__ import annotations

import base64
import doctest

import pytest
from medeventgraph.api import load, select_patient, verify_index
from medeventgraph.core.index import value_copies
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.settings import Settings

P, ENC = {"reference": "Patient/p"}, {"reference": "Encounter/e"}
QUERY = {"id": "q", "scope": "encounter",
         "events": [{"id": "e0", "text": "diltiazem", "kind": "medication"},
                    {"id": "e1", "text": "glucose mass/volume in serum or plasma", "kind": "lab"}],
         "relations": [{"from": "e1", "to": "e0", "type": "after"}]}


def _record(note_text: str) -> dict:
    """Glucose resulted on day 1, diltiazem given on day 2, a note written on day 3."""
    resources = [
        {"resourceType": "Patient", "id": "p"},
        {"resourceType": "Encounter", "id": "e", "status": "finished", "subject": P,
         "period": {"start": "2024-01-01T06:00:00Z", "end": "2024-01-08T12:00:00Z"}},
        {"resourceType": "Observation", "id": "glu", "status": "final", "subject": P, "encounter": ENC,
         "code": {"coding": [{"system": "http://loinc.org", "code": "2345-7",
                              "display": "Glucose [Mass/volume] in Serum or Plasma"}]},
         "valueQuantity": {"value": 102, "unit": "mg/dL"}, "effectiveDateTime": "2024-01-01T15:27:00Z"},
        {"resourceType": "MedicationAdministration", "id": "dil", "status": "completed", "subject": P,
         "context": ENC, "medicationCodeableConcept": {"text": "diltiazem 30 mg PO"},
         "effectiveDateTime": "2024-01-02T08:00:00Z"},
        {"resourceType": "DocumentReference", "id": "note", "status": "current", "subject": P,
         "date": "2024-01-03T11:23:00Z", "context": {"encounter": [ENC]},
         "content": [{"attachment": {"contentType": "text/plain",
                                     "data": base64.b64encode(note_text.encode()).decode()}}]},
    ]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]}


def _verify(note_pipeline, note_text: str):
    settings = Settings()
    index = build_index(select_patient(load(_record(note_text), settings=settings), "p"), settings,
                        notes=note_pipeline)
    return verify_index(index, VerificationQuery.model_validate(QUERY), settings)


def test_the_documented_scale() -> None:
    assert doctest.testmod(value_copies).failed == 0


def test_a_pasted_result_keeps_the_recorded_time(note_pipeline) -> None:
    verdict = _verify(note_pipeline, "Progress note.\nA: Notable labs today: glucose 102.0 mg/dL [H].\n")
    assert verdict.verdict.value == "refuted"
    assert [e.occurrence for e in verdict.evidence if "e1" in e.events] == ["Observation/glu"]


@pytest.mark.parametrize("text", ["glucose 140 mg/dL", "glucose 102.4 mg/dL"])
def test_another_value_on_the_note_day_is_a_new_measurement(note_pipeline, text: str) -> None:
    verdict = _verify(note_pipeline, f"Progress note.\nA: Notable labs today: {text} [H].\n")
    assert verdict.verdict.value == "supported"
    assert any(e.origin == "note" and "e1" in e.events for e in verdict.evidence)
