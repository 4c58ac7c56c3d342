"""Discovery, CORS preflights and the published OpenAPI schema, over HTTP."""

from __future__ import annotations

import pytest
from medeventgraph.cds_hooks.services import ORDER_SELECT, ORDER_SIGN, PATIENT_VIEW, VERIFY

SANDBOX = "https://sandbox.cds-hooks.org"


def test_discovery_lists_the_four_services(service):
    resp = service.http.get(service.url())
    assert resp.status_code == 200
    services = {s["id"]: s for s in resp.json()["services"]}
    assert set(services) == {PATIENT_VIEW, ORDER_SELECT, ORDER_SIGN, VERIFY}
    assert services[PATIENT_VIEW]["hook"] == "patient-view"
    assert services[ORDER_SELECT]["hook"] == "order-select"
    assert services[ORDER_SIGN]["hook"] == "order-sign"
    assert services[VERIFY]["hook"] == "medeventgraph-verify"
    for s in services.values():
        assert s["title"] and s["description"]
        assert s["prefetch"]["patient"] == "Patient/{{context.patientId}}"
        assert s["prefetch"]["encounters"] == "Encounter?patient={{context.patientId}}"
        for rtype in ("Observation", "MedicationAdministration", "MedicationRequest", "Condition", "Procedure",
                      "DocumentReference"):
            assert f"{rtype}?patient={{{{context.patientId}}}}" in s["prefetch"].values()


def test_discovery_verifies_a_token_when_one_is_sent(service):
    ok = service.http.get(service.url(), headers={"Authorization": f"Bearer {service.keys.token(service.url())}"})
    assert ok.status_code == 200
    bad = service.http.get(service.url(), headers={"Authorization": "Bearer not-a-jwt"})
    assert bad.status_code == 401 and bad.json()["resourceType"] == "OperationOutcome"


@pytest.mark.parametrize("path", ["", f"/{PATIENT_VIEW}", f"/{ORDER_SIGN}/feedback"])
def test_cors_preflight(service, path):
    resp = service.http.options(
        service.url() + path,
        headers={"Origin": SANDBOX, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"},
    )
    assert resp.status_code == 200
    assert resp.headers["access-control-allow-origin"] == SANDBOX
    assert "POST" in resp.headers["access-control-allow-methods"]
    allowed = resp.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed


def test_cors_header_on_real_responses(service):
    resp = service.http.get(service.url(), headers={"Origin": SANDBOX})
    assert resp.headers["access-control-allow-origin"] == SANDBOX


def test_openapi_is_published(service):
    spec = service.http.get(f"{service.base}/openapi.json").json()
    assert "/cds-services/{service_id}" in spec["paths"]
    assert "/cds-services/{service_id}/feedback" in spec["paths"]
    assert "Card" in spec["components"]["schemas"]


def test_unknown_service_is_404_outcome(service):
    resp = service.post("no-such-service", {"hook": "patient-view", "hookInstance": "x", "context": {}})
    assert resp.status_code == 404
    assert resp.json()["resourceType"] == "OperationOutcome"
