"""`context.encounterId` on the verify hook: an encounter-scoped question asked in an encounter is
about that encounter; another encounter's evidence does not answer it."""

from __future__ import annotations

import json

import pytest
from medeventgraph.cds_hooks.services import VERIFY

from .conftest import DATA, assert_card_ok
from .synthea import prefetch_for

PATIENT = "meg-aki-1"
QUERY = {"id": "q-enc", "scope": "encounter",
         "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                    {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


@pytest.fixture(scope="module")
def two_stays() -> dict:
    """meg-aki-1 (vancomycin, then AKI, in meg-aki-enc-1) and a later outpatient visit with neither."""
    bundle = json.loads((DATA / "meg-aki-patient.json").read_text())
    by_type: dict[str, list] = {}
    for entry in bundle["entry"]:
        by_type.setdefault(entry["resource"]["resourceType"], []).append(entry["resource"])
    by_type["Encounter"].append({
        "resourceType": "Encounter", "id": "meg-aki-enc-2", "status": "finished",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "AMB"},
        "subject": {"reference": f"Patient/{PATIENT}"},
        "period": {"start": "2023-04-20T09:00:00Z", "end": "2023-04-20T10:00:00Z"}})
    return prefetch_for(by_type)


def _audit(service, prefetch: dict, **context: str) -> str:
    body = {"hook": "medeventgraph-verify", "hookInstance": "enc-ctx", "prefetch": prefetch,
            "context": {"patientId": PATIENT, "query": QUERY, **context}}
    resp = service.post(VERIFY, body)
    assert resp.status_code == 200, resp.text
    [card] = resp.json()["cards"]
    assert_card_ok(card)
    return card["detail"].rsplit("`Audit: ", 1)[1].split(" ", 1)[0]


def test_encounter_id_keeps_another_encounters_evidence_out(service, two_stays):
    assert _audit(service, two_stays) == "supported"  # some single encounter: the inpatient stay
    assert _audit(service, two_stays, encounterId="meg-aki-enc-1") == "supported"
    # asked during the later visit: the stay's vancomycin and AKI do not answer it
    assert _audit(service, two_stays, encounterId="meg-aki-enc-2") != "supported"
