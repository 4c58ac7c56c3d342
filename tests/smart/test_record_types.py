"""The SMART page reads the same record types as the hooks: a `dispensed` question is answered
from a MedicationDispense read through the EHR's FHIR endpoint with the session's token."""

from __future__ import annotations

from ..cds_hooks.test_prefetch_types import DISPENSED_QUERY, PATIENT


def test_a_dispensed_question_is_answered_from_the_ehrs_medication_dispense(smart_service):
    browser = smart_service.browser().login(patient=PATIENT, encounter=None)
    resp = browser.verify({"query": DISPENSED_QUERY})
    assert resp.status_code == 200, resp.text
    v = resp.json()
    assert v["verdict"] == "supported", v
    assert [e["source"]["reference"] for e in v["evidence"] if "v" in e["events"]] \
        == [f"MedicationDispense/{PATIENT}-vanc-dispense"]
