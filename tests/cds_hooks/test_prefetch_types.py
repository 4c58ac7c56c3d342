"""The record the hooks read holds every type the adapters map: a `dispensed` question is answered
from a MedicationDispense fetched from the EHR's FHIR server (the Medplum test server)."""

from __future__ import annotations

import re

from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH
from medeventgraph.cds_hooks.services import SERVICES, VERIFY

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


def test_every_service_reads_the_action_and_note_types():
    searched = {re.split(r"[/?]", t, maxsplit=1)[0] for t in PATIENT_PREFETCH.values()}
    assert ACTION_AND_NOTE_TYPES <= searched
    for service in SERVICES.values():
        assert service.prefetch == PATIENT_PREFETCH


def test_a_dispensed_question_is_answered_from_a_fetched_medication_dispense(service, fhir_server):
    body = {"hook": "medeventgraph-verify", "hookInstance": "dispensed", "fhirServer": fhir_server,
            "fhirAuthorization": AUTH, "context": {"patientId": PATIENT, "query": DISPENSED_QUERY}}
    resp = service.post(VERIFY, body)
    assert resp.status_code == 200, resp.text
    [card] = resp.json()["cards"]
    assert "`Audit: supported" in card["detail"], card["detail"]
    assert f"`MedicationDispense/{PATIENT}-vanc-dispense`" in card["detail"]
    assert f"MedicationRequest/{PATIENT}-vanc-order" not in card["detail"]  # an order is not a dispense
