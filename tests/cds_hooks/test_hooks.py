"""Each hook over HTTP: prefetch from Synthea, fetch from the real FHIR server, cards, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from medeventgraph.cds_hooks.services import ORDER_SELECT, ORDER_SIGN, PATIENT_VIEW, VERIFY

from .conftest import DATA, SMART_URL, assert_card_ok, assert_outcome
from .synthea import load_patient, prefetch_for

AKI_QUERY = {"id": "q-aki", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                                       {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
             "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


def _synthea_files(synthea_dir: Path) -> list[Path]:
    return sorted(p for p in synthea_dir.glob("*.json") if "Information" not in p.name)


@pytest.fixture(scope="module")
def aki() -> tuple[str, dict]:
    bundle = json.loads((DATA / "meg-aki-patient.json").read_text())
    by_type: dict[str, list] = {}
    for e in bundle["entry"]:
        by_type.setdefault(e["resource"]["resourceType"], []).append(e["resource"])
    return "meg-aki-1", by_type


def _request(hook: str, patient: str, prefetch: dict | None, **extra) -> dict:
    body = {"hook": hook, "hookInstance": f"test-{hook}", "context": {"patientId": patient, "userId": "Practitioner/1"}}
    if prefetch is not None:
        body["prefetch"] = prefetch
    for key in ("fhirServer", "fhirAuthorization"):
        if key in extra:
            body[key] = extra.pop(key)
    body["context"].update(extra)
    return body


def _draft(drug_text: str, patient: str, *, rid: str = "draft-1", rxnorm: str | None = None) -> dict:
    med = {"text": drug_text}
    if rxnorm:
        med["coding"] = [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": rxnorm}]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": {
        "resourceType": "MedicationRequest", "id": rid, "status": "draft", "intent": "order",
        "medicationCodeableConcept": med, "subject": {"reference": f"Patient/{patient}"}}}]}


def _cards(resp) -> list[dict]:
    assert resp.status_code == 200, resp.text
    cards = resp.json()["cards"]
    for card in cards:
        assert_card_ok(card)
    return cards


# Scores, ISO durations, failure codes and engine words belong in the audit line only.
INTERNAL = re.compile(r"S\+|S−|\bP\d+[DWH]\b|\bPT\d|sha256|missing_endpoint|unresolved_|opposite_order|"
                      r"scope unit|granularity|\(second\)")


def test_patient_view_every_synthea_patient_from_prefetch(service, synthea_dir):
    for path in _synthea_files(synthea_dir):
        pid, by_type = load_patient(path)
        for card in _cards(service.post(PATIENT_VIEW, _request("patient-view", pid, prefetch_for(by_type)))):
            above, audit = card["detail"].rsplit("\n---\n", 1)
            assert not INTERNAL.search(card["summary"] + above), card
            assert audit.startswith("`Audit: ") and "bundle sha256:" in audit


def test_patient_view_warns_on_documented_aki_after_vancomycin(service, aki):
    pid, by_type = aki
    cards = _cards(service.post(PATIENT_VIEW, _request("patient-view", pid, prefetch_for(by_type))))
    [card] = [c for c in cards if c["summary"].startswith("AKI")]
    assert card["indicator"] == "warning"
    assert "`MedicationAdministration/meg-aki-vanc-1`" in card["detail"]
    assert "`Condition/meg-aki-cond-1`" in card["detail"]
    assert "**2 Mar 2023 10:00** · Medication given: **Vancomycin 1 g IV**" in card["detail"]
    assert card["summary"] == "AKI documented 2 days 23 hours after vancomycin (2 → 5 Mar 2023)"
    assert card["detail"].startswith("_Kidney injury after a nephrotoxic drug_")
    assert card["source"]["topic"]["code"] == "drug-safety"
    assert card["overrideReasons"]
    assert card["links"][0]["type"] == "smart" and card["links"][0]["url"] == SMART_URL


def test_patient_view_fetches_missing_prefetch_from_fhir_server(service, fhir_server, aki):
    pid, _ = aki
    body = _request("patient-view", pid, None, fhirServer=fhir_server,
                    fhirAuthorization={"access_token": "opaque", "token_type": "Bearer", "expires_in": 300,
                                       "scope": "patient/*.read", "subject": "medeventgraph"})
    cards = _cards(service.post(PATIENT_VIEW, body))
    assert any("`Condition/meg-aki-cond-1`" in c["detail"] for c in cards)


def test_fetch_follows_paging(service, fhir_server, synthea_dir):
    # Lance203 has 342 Observations: seven pages of 50 on the test server.
    path = next(p for p in _synthea_files(synthea_dir) if p.name.startswith("Lance203"))
    pid, by_type = load_patient(path)
    prefetch = prefetch_for(by_type, omit=("observations",))
    prefetch["conditions"] = None  # a failed prefetch key arrives as null
    body = _request("patient-view", pid, prefetch, fhirServer=fhir_server,
                    fhirAuthorization={"access_token": "opaque", "token_type": "Bearer"})
    _cards(service.post(PATIENT_VIEW, body))
    cache = service.app.state.meg.engine.cache
    indexes = [v for (p, _), v in cache._items.items() if p == pid]
    assert indexes
    got = {ref for ref in indexes[-1].record.resources if ref.startswith("Observation/")}
    assert len(got) == len(by_type["Observation"]) == 342
    assert len({r for r in indexes[-1].record.resources if r.startswith("Condition/")}) == len(by_type["Condition"])


def test_same_content_reuses_the_cached_index(service, aki):
    pid, by_type = aki
    cache = service.app.state.meg.engine.cache
    service.post(PATIENT_VIEW, _request("patient-view", pid, prefetch_for(by_type)))
    hits = cache.hits
    service.post(PATIENT_VIEW, _request("patient-view", pid, prefetch_for(by_type)))
    assert cache.hits == hits + 1
    assert len(cache) <= service.settings.graph_cache_size


def test_412_without_authorization_when_fetching_without_token_is_off(service, fhir_server, aki):
    pid, _ = aki
    out = assert_outcome(service.post(PATIENT_VIEW, _request("patient-view", pid, None, fhirServer=fhir_server)), 412)
    assert "fhirAuthorization" in out["issue"][0]["diagnostics"]


def test_fetch_without_token_when_allowed(start_service, fhir_server, aki):
    svc = start_service(fhir_fetch_without_token=True)
    pid, _ = aki
    cards = _cards(svc.post(PATIENT_VIEW, _request("patient-view", pid, None, fhirServer=fhir_server)))
    assert any(c["indicator"] == "warning" for c in cards)


def test_412_without_fhir_server(service, aki):
    pid, by_type = aki
    assert_outcome(service.post(PATIENT_VIEW, _request("patient-view", pid, prefetch_for(by_type, omit=("conditions",)))), 412)


def test_412_when_fhir_server_is_unreachable(service, aki):
    pid, by_type = aki
    body = _request("patient-view", pid, prefetch_for(by_type, omit=("conditions",)), fhirServer="http://127.0.0.1:9/fhir",
                    fhirAuthorization={"access_token": "opaque", "token_type": "Bearer"})
    assert_outcome(service.post(PATIENT_VIEW, body), 412)


@pytest.mark.parametrize("hook,service_id", [("order-sign", ORDER_SIGN), ("order-select", ORDER_SELECT)])
def test_order_hooks_warn_on_earlier_aki_after_same_drug(service, aki, hook, service_id):
    pid, by_type = aki
    extra = {"draftOrders": _draft("Vancomycin 1 g IV q12h", pid)}
    if hook == "order-select":
        extra["selections"] = ["MedicationRequest/draft-1"]
    cards = _cards(service.post(service_id, _request(hook, pid, prefetch_for(by_type), **extra)))
    assert cards and all(c["indicator"] == "warning" for c in cards)
    assert any("`MedicationAdministration/meg-aki-vanc-1`" in c["detail"] for c in cards)


def test_order_select_checks_only_selected_orders(service, aki):
    pid, by_type = aki
    extra = {"draftOrders": _draft("Vancomycin 1 g IV", pid), "selections": ["MedicationRequest/other"]}
    assert _cards(service.post(ORDER_SELECT, _request("order-select", pid, prefetch_for(by_type), **extra))) == []


def test_order_sign_on_synthea_drugs(service, synthea_dir):
    for path in _synthea_files(synthea_dir)[:4]:
        pid, by_type = load_patient(path)
        extra = {"draftOrders": _draft("Ibuprofen 200 MG Oral Tablet", pid, rxnorm="5640")}
        _cards(service.post(ORDER_SIGN, _request("order-sign", pid, prefetch_for(by_type), **extra)))


def test_verify_hook_returns_the_verdict_card(service, aki):
    pid, by_type = aki
    cards = _cards(service.post(VERIFY, _request("medeventgraph-verify", pid, prefetch_for(by_type), query=AKI_QUERY)))
    [card] = cards
    assert card["summary"].startswith("AKI documented") and "(2 → 5 Mar 2023)" in card["summary"]
    assert "`Audit: supported · S+ 1.00" in card["detail"]
    app_context = json.loads(card["links"][0]["appContext"])
    assert app_context["patient"] == pid and app_context["query"]["id"] == "q-aki"
    assert "`Condition/meg-aki-cond-1`" in card["detail"]


def test_verify_hook_card_for_insufficient(service, aki):
    pid, by_type = aki
    query = {**AKI_QUERY, "events": [AKI_QUERY["events"][0], {"id": "e1", "text": "bleeding", "kind": "condition"}]}
    [card] = _cards(service.post(VERIFY, _request("medeventgraph-verify", pid, prefetch_for(by_type), query=query)))
    assert card["indicator"] == "info" and "`Audit: insufficient" in card["detail"]
    assert card["summary"] == "No bleeding documented after vancomycin (last dose 2 Mar 2023)"


@pytest.mark.parametrize("body", [
    b"{not json",
    b"[]",
    b'{"hook": "patient-view"}',
    b'{"hook": "patient-view", "hookInstance": "x", "context": "nope"}',
    b'{"hook": "order-sign", "hookInstance": "x", "context": {"patientId": "p1"}}',
    b'{"hook": "patient-view", "hookInstance": "x", "context": {}}',
    b'{"hook": "patient-view", "hookInstance": "x", "context": {"patientId": "../etc"}}',
    b'{"hook": "patient-view", "hookInstance": "x", "fhirServer": "file:///etc", "context": {"patientId": "p"}}',
    b'{"hook": "patient-view", "hookInstance": "x", "context": {"patientId": "p"}, "prefetch": []}',
])
def test_malformed_requests_are_400_outcomes(service, body):
    assert_outcome(service.post(PATIENT_VIEW, body), 400)


@pytest.mark.parametrize("query", [{"events": []}, {"id": "q", "events": [{"id": "e0"}], "relations": []}, "", 7])
def test_bad_verify_queries_are_400(service, aki, query):
    pid, by_type = aki
    assert_outcome(service.post(VERIFY, _request("medeventgraph-verify", pid, prefetch_for(by_type), query=query)), 400)


def test_free_text_question_is_answered_or_refused_cleanly(service, aki):
    pid, by_type = aki
    resp = service.post(VERIFY, _request("medeventgraph-verify", pid, prefetch_for(by_type),
                                         query="Was acute kidney injury documented after vancomycin within 7 days?"))
    assert resp.status_code in (200, 400), resp.text
    if resp.status_code == 200:
        _cards(resp)
    else:
        assert resp.json()["resourceType"] == "OperationOutcome"


def test_hook_must_match_the_service(service, aki):
    pid, by_type = aki
    assert_outcome(service.post(ORDER_SIGN, _request("patient-view", pid, prefetch_for(by_type))), 400)


def test_note_evidence_cites_the_span_and_quotes_the_sentence(service):
    bundle = json.loads((DATA / "meg-note-patient.json").read_text())
    by_type: dict[str, list] = {}
    for e in bundle["entry"]:
        by_type.setdefault(e["resource"]["resourceType"], []).append(e["resource"])
    body = _request("medeventgraph-verify", "meg-note-1", prefetch_for(by_type), query=AKI_QUERY)
    [card] = _cards(service.post(VERIFY, body))
    assert "`DocumentReference/meg-note-doc-1` characters " in card["detail"]
    assert "> Creatinine up from 0.9 to 2.1 mg/dL. Assessment: **acute kidney injury**" in card["detail"]
    assert "**by 4 May 2023 16:00 (note date)**" in card["detail"]
