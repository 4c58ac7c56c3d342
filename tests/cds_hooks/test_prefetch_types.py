"""The record the hooks read holds every type the adapters map: a `dispensed` question is answered
from a MedicationDispense fetched from the EHR's FHIR server (the Medplum test server)."""

from __future__ import annotations

import re

import pytest
from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH
from medeventgraph.cds_hooks.services import SERVICES, VERIFY
from medeventgraph.fhir_adapters.mappers.registry import MAPPERS

PATIENT = "meg-dispensed-1"  # tests/cds_hooks/data/meg-dispensed-patient.json, on the FHIR test server
DISPENSED_QUERY = {"id": "q-dispensed",
                   "events": [{"id": "lac", "text": "lactate", "kind": "lab"},
                              {"id": "v", "text": "vancomycin", "kind": "medication", "action": "dispensed"}],
                   "relations": [{"from": "lac", "to": "v", "type": "before", "within": "PT1H"}]}
AUTH = {"access_token": "opaque", "token_type": "Bearer", "expires_in": 300, "scope": "patient/*.read",
        "subject": "medeventgraph"}


# The types that ground the record actions and carry notes besides DocumentReference.
ACTION_AND_NOTE_TYPES = {"MedicationDispense", "MedicationStatement", "ServiceRequest", "DiagnosticReport",
                         "Composition"}


def test_every_service_reads_every_mapped_type():
    searched = {re.split(r"[/?]", t, maxsplit=1)[0] for t in PATIENT_PREFETCH.values()}
    assert ACTION_AND_NOTE_TYPES <= searched
    assert set(MAPPERS) | {"Patient"} == searched
    for service in SERVICES.values():
        assert service.prefetch == PATIENT_PREFETCH


def _supported_card_detail(service, fhir_server, query: dict) -> str:
    body = {"hook": "medeventgraph-verify", "hookInstance": query["id"], "fhirServer": fhir_server,
            "fhirAuthorization": AUTH, "context": {"patientId": PATIENT, "query": query}}
    resp = service.post(VERIFY, body)
    assert resp.status_code == 200, resp.text
    [card] = resp.json()["cards"]
    assert "`Audit: supported" in card["detail"], card["detail"]
    return card["detail"]


def test_a_dispensed_question_is_answered_from_a_fetched_medication_dispense(service, fhir_server):
    detail = _supported_card_detail(service, fhir_server, DISPENSED_QUERY)
    assert f"`MedicationDispense/{PATIENT}-vanc-dispense`" in detail
    assert f"MedicationRequest/{PATIENT}-vanc-order" not in detail  # an order is not a dispense


@pytest.mark.parametrize(("event", "cited"), [
    ({"id": "x", "text": "influenza vaccine", "kind": "immunization"}, "Immunization/{p}-flu"),
    ({"id": "x", "text": "penicillin allergy", "kind": "allergy"}, "AllergyIntolerance/{p}-penicillin"),
])
def test_an_immunization_or_allergy_question_is_answered_from_the_fetched_resource(service, fhir_server, event,
                                                                                    cited):
    order = "after" if event["kind"] == "immunization" else "before"
    query = {"id": "q-types", "events": [event, {"id": "lac", "text": "lactate", "kind": "lab"}],
             "relations": [{"from": "x", "to": "lac", "type": order}]}
    assert f"`{cited.format(p=PATIENT)}`" in _supported_card_detail(service, fhir_server, query)
