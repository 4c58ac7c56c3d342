"""The shipped watch list asks for administration where that is the clinical meaning (issue #13)."""

from __future__ import annotations

import json

import pytest
from medeventgraph.api import verify
from medeventgraph.cds_hooks.watchlist import WatchList, load_watchlist
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.settings import Settings
from pydantic import ValidationError

RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
PIPTAZO = {"coding": [{"system": RXNORM, "code": "1659149", "display": "piperacillin / tazobactam"}],
           "text": "piperacillin-tazobactam 4.5 g IV"}


def _stay(*drug_records: dict) -> dict:
    """One ED stay: sepsis recognised at 10:00, then the given medication records."""
    patient = {"resourceType": "Patient", "id": "wl-1"}
    encounter = {"resourceType": "Encounter", "id": "wl-enc", "status": "finished", "class": {"code": "EMER"},
                 "subject": {"reference": "Patient/wl-1"},
                 "period": {"start": "2024-03-01T09:30:00Z", "end": "2024-03-01T18:00:00Z"}}
    sepsis = {"resourceType": "Condition", "id": "wl-sepsis", "subject": {"reference": "Patient/wl-1"},
              "encounter": {"reference": "Encounter/wl-enc"},
              "code": {"coding": [{"system": "http://snomed.info/sct", "code": "91302008", "display": "Sepsis"}]},
              "onsetDateTime": "2024-03-01T10:00:00Z"}
    entries = [patient, encounter, sepsis, *drug_records]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in entries]}


def _order(minute: int) -> dict:
    return {"resourceType": "MedicationRequest", "id": "wl-order", "status": "active", "intent": "order",
            "subject": {"reference": "Patient/wl-1"}, "encounter": {"reference": "Encounter/wl-enc"},
            "medicationCodeableConcept": PIPTAZO, "authoredOn": f"2024-03-01T10:{minute:02d}:00Z"}


def _given(minute: int) -> dict:
    return {"resourceType": "MedicationAdministration", "id": "wl-given", "status": "completed",
            "subject": {"reference": "Patient/wl-1"}, "context": {"reference": "Encounter/wl-enc"},
            "medicationCodeableConcept": PIPTAZO, "effectiveDateTime": f"2024-03-01T10:{minute:02d}:00Z"}


@pytest.fixture(scope="module")
def sepsis_query():
    watch = load_watchlist().watch("sepsis-antibiotic-1h")
    return watch.query(watch.outcomes[0])


def test_shipped_watches_ask_for_administration():
    watches = {w.id: w for w in load_watchlist().watches}
    assert watches["sepsis-antibiotic-1h"].outcomes[0].action == "administered"
    for wid in ("nephrotoxic-aki", "anticoagulant-bleeding", "opioid-respiratory-depression"):
        assert watches[wid].exposure.action == "administered", wid
    assert watches["acei-hyperkalemia"].exposure.action is None  # taken at home: prescriptions count


def test_an_order_alone_does_not_meet_the_sepsis_antibiotic_watch(sepsis_query):
    settings = Settings(notes=False)
    ordered_only = verify(_stay(_order(9)), sepsis_query, settings=settings)
    assert ordered_only.verdict is not Label.SUPPORTED
    given = verify(_stay(_order(9), _given(40)), sepsis_query, settings=settings)
    assert given.verdict is Label.SUPPORTED
    assert "MedicationAdministration/wl-given" in given.citations
    assert "MedicationRequest/wl-order" not in given.citations


def test_an_action_that_does_not_fit_the_kind_fails_when_the_list_loads():
    raw = json.loads(json.dumps(load_watchlist().model_dump(mode="json")))
    raw["watches"][0]["exposure"]["action"] = "resulted"  # a lab action on a medication
    with pytest.raises(ValidationError, match="resulted"):
        WatchList.model_validate(raw)
