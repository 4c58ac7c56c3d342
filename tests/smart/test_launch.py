"""The SMART EHR launch end to end over HTTP: launch -> authorize -> callback -> page -> verify,
against the loopback EHR and the real Medplum FHIR server loaded with Synthea."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from medeventgraph.smart.launch import SESSION_COOKIE

from ..cds_hooks.synthea import load_patient
from .conftest import CLIENT_ID, LANCE, LANCE_ENCOUNTER, page_context

QUESTION = "Was norepinephrine given after vancomycin within the same encounter?"
VANCO_ADMIN = "MedicationAdministration/5af9bf00-a299-eff2-b3e2-f844b51089a8"
NOREPI_ADMIN = "MedicationAdministration/5c340062-76ff-b1a0-5e81-1d899f820118"


def test_full_launch_then_question_cites_the_patients_resources(smart_service, synthea_dir):
    browser = smart_service.browser()
    launch = browser.launch()
    assert launch.status_code == 302
    auth_url = urlsplit(launch.headers["location"])
    params = {k: v[0] for k, v in parse_qs(auth_url.query).items()}
    assert params["aud"] == smart_service.ehr.fhir_base  # aud = iss (trailing slash normalised)
    assert params["client_id"] == CLIENT_ID and params["response_type"] == "code"
    assert params["code_challenge_method"] == "S256" and len(params["code_challenge"]) == 43
    assert params["scope"] == "launch openid fhirUser patient/*.read"
    assert params["redirect_uri"] == f"{smart_service.base}/smart/callback" and params["state"]

    callback = browser.callback(browser.authorize(launch))
    assert callback.status_code == 303 and callback.headers["location"] == "app"
    cookie = callback.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Path=/smart" in cookie

    page = browser.open_app(callback)
    assert page.status_code == 200 and "nonce-" in page.headers["content-security-policy"]
    ctx = page_context(page.text)
    assert ctx["patient"] == LANCE and ctx["encounter"] == LANCE_ENCOUNTER
    assert ctx["fhir_user"] == "Practitioner/test-user" and ctx["default_scope"] == "encounter"
    # The access token never reaches the browser: not in the page, not in any cookie.
    for token in smart_service.ehr.tokens:
        assert token not in page.text and token not in callback.text
        assert all(token != v for v in browser.http.cookies.values())
    # The banner is in the EHR's words, read with the session's token from its own FHIR server.
    assert ctx["banner"] == {"patient": "Lance203 Jamel269 Padberg411", "born": "23 Jun 1964",
                             "encounter": "Emergency visit · Encounter for problem · 3–9 Feb 2015", "user": None}

    resp = browser.verify({"question": QUESTION})
    assert resp.status_code == 200, resp.text
    assert resp.headers["cache-control"] == "no-store"
    verdict = resp.json()
    assert verdict["patient"] == LANCE and verdict["verdict"] == "supported"
    assert {VANCO_ADMIN, NOREPI_ADMIN} <= set(verdict["citations"])
    _, by_type = load_patient(next(synthea_dir.glob(f"*{LANCE}.json")))
    own = {f"{t}/{r['id']}" for t, rs in by_type.items() for r in rs}
    assert verdict["evidence"] and all(ev["source"]["reference"] in own for ev in verdict["evidence"])
    assert verdict["bundle_hash"]


def test_query_json_with_scope_override_and_index_cache(smart_service):
    browser = smart_service.browser().login()
    query = {"id": "q-json", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                                        {"id": "e1", "text": "norepinephrine", "kind": "medication"}],
             "relations": [{"from": "e0", "to": "e1", "type": "before"}], "scope": "encounter"}
    cache = smart_service.app.state.meg.engine.cache
    first = browser.verify({"query": query, "scope": "patient"})
    hits = cache.hits
    second = browser.verify({"query": query, "scope": "patient"})
    assert first.status_code == second.status_code == 200, first.text
    assert first.json()["id"] == "q-json" and first.json()["verdict"] == "supported"
    assert cache.hits == hits + 1  # same record content: the built index is reused
    assert first.json()["bundle_hash"] == second.json()["bundle_hash"]


def test_launch_without_encounter_defaults_to_patient_scope(smart_service):
    browser = smart_service.browser().login(encounter=None)
    ctx = page_context(browser.page)
    assert ctx["encounter"] is None and ctx["default_scope"] == "patient"
    resp = browser.verify({"question": "Was vancomycin given before norepinephrine?", "scope": "patient"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["patient"] == LANCE


def test_launch_without_id_token_still_works(smart_service, id_token_mode):
    id_token_mode("none")
    browser = smart_service.browser().login()
    assert page_context(browser.page)["fhir_user"] is None


def test_a_question_past_the_request_deadline_answers_503_and_the_page_still_answers(start_smart_service):
    # The page's verification runs on the service's worker pool under MEG_REQUEST_DEADLINE_SECONDS:
    # Lance's record cannot be indexed in a millisecond, so the call answers 503 at a checkpoint.
    service = start_smart_service(request_deadline_seconds=0.001)
    browser = service.browser().login()
    resp = browser.verify({"question": QUESTION})
    assert resp.status_code == 503, resp.text
    [issue] = resp.json()["issue"]
    assert issue["code"] == "timeout" and "MEG_REQUEST_DEADLINE_SECONDS" in issue["diagnostics"]
    assert browser.http.get(f"{service.base}/smart/app").status_code == 200
