"""The SMART page reads a question's "started on" against the launched patient's record (issue
#13), as `medeventgraph verify` does: the record is the one read from the EHR's FHIR server."""

from __future__ import annotations

QUESTION = "Was the patient started on vancomycin within 1 hour of the lactate?"


def _ask(smart_service, patient: str, body: dict) -> dict:
    browser = smart_service.browser().login(patient=patient, encounter=None)
    resp = browser.verify(body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_started_on_is_a_dose_where_the_record_keeps_doses(smart_service):
    # lactate 10:00, vancomycin ordered 10:10, first given 12:05: no dose within the hour
    v = _ask(smart_service, "meg-given-1", {"question": QUESTION})
    assert v["verdict"] == "refuted"
    assert v["search"]["grounding"]["actions"] == \
        {"e0": "'started on' read as administered: the record holds medication administrations"}
    assert [e["source"]["reference"] for e in v["evidence"] if "e0" in e["events"]] \
        == ["MedicationAdministration/meg-given-1-vanc-dose"]
    assert "2 hours 5 minutes" in v["page"]["finding"]["summary"]


def test_started_on_is_any_medication_record_where_it_keeps_only_orders(smart_service):
    v = _ask(smart_service, "meg-ordered-1", {"question": QUESTION, "scope": "encounter"})
    assert v["verdict"] == "supported"
    assert v["search"]["grounding"]["actions"] == \
        {"e0": "'started on' read as any medication record: the record holds no medication administrations"}
    assert "MedicationRequest/meg-ordered-1-vanc-order" in v["citations"]
