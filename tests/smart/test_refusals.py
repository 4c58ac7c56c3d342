"""What the SMART launch refuses: unknown issuers, bad/replayed/expired state, PKCE mismatch,
bad id_tokens, API calls without a session or CSRF token; errors are OperationOutcomes."""

from __future__ import annotations

import time

import pytest

from .conftest import assert_outcome


def test_unknown_iss_is_refused_before_any_request(smart_service):
    browser = smart_service.browser()
    before = len(smart_service.ehr.authorize_requests)
    resp = browser.http.get(f"{smart_service.base}/smart/launch",
                            params={"iss": "http://127.0.0.1:9/fhir", "launch": "x"})
    out = assert_outcome(resp, 403)
    assert "smart_allowed_issuers" in out["issue"][0]["diagnostics"]
    assert len(smart_service.ehr.authorize_requests) == before


def test_launch_needs_iss_and_launch(smart_service):
    assert_outcome(smart_service.browser().http.get(f"{smart_service.base}/smart/launch"), 400)


def test_unknown_state_is_refused(smart_service):
    resp = smart_service.browser().http.get(f"{smart_service.base}/smart/callback",
                                            params={"code": "abc", "state": "forged"})
    assert "state" in assert_outcome(resp, 400)["issue"][0]["diagnostics"]


def test_replayed_state_is_refused(smart_service):
    browser = smart_service.browser()
    authorize = browser.authorize(browser.launch())
    assert browser.callback(authorize).status_code == 303
    replay = browser.callback(authorize)  # the same code + state a second time
    assert_outcome(replay, 400)


def test_expired_state_is_refused(smart_service):
    browser = smart_service.browser()
    authorize = browser.authorize(browser.launch())
    store = smart_service.app.state.smart.launches
    ttl = smart_service.settings.smart_launch_ttl_seconds
    store.clock = lambda: time.monotonic() + ttl + 1  # the store's clock, not a sleep
    try:
        assert_outcome(browser.callback(authorize), 400)
    finally:
        store.clock = time.monotonic


def test_pkce_mismatch_is_refused_by_the_ehr(smart_service):
    # A code obtained with another challenge (an injected code) cannot be redeemed with our verifier.
    browser = smart_service.browser()
    launch = browser.launch()
    authorize = browser.authorize(launch, code_challenge="A" * 43)
    out = assert_outcome(browser.callback(authorize), 400)
    assert "invalid_grant" in out["issue"][0]["diagnostics"]
    assert smart_service.ehr.token_errors[-1] == "invalid_grant"
    assert "set-cookie" not in browser.callback(authorize).headers


@pytest.mark.parametrize("mode,words", [("wrong_aud", "aud"), ("hs256", "RS256"), ("expired", "expired")])
def test_bad_id_token_is_refused(smart_service, id_token_mode, mode, words):
    id_token_mode(mode)
    browser = smart_service.browser()
    resp = browser.callback(browser.authorize(browser.launch()))
    out = assert_outcome(resp, 401)
    assert words in out["issue"][0]["diagnostics"]
    assert "set-cookie" not in resp.headers


def test_verify_without_session_is_401(smart_service):
    browser = smart_service.browser()
    assert_outcome(browser.verify({"question": "Was vancomycin given before norepinephrine?"}, csrf="x"), 401)
    browser.http.cookies.set("meg_smart_session", "made-up", domain="127.0.0.1", path="/smart")
    assert_outcome(browser.verify({"question": "Was vancomycin given before norepinephrine?"}, csrf="x"), 401)


def test_app_page_without_session_is_401(smart_service):
    resp = smart_service.browser().http.get(f"{smart_service.base}/smart/app")
    assert resp.status_code == 401 and "from the EHR" in resp.text


def test_verify_without_or_with_wrong_csrf_is_403(smart_service):
    browser = smart_service.browser().login()
    body = {"question": "Was vancomycin given before norepinephrine?"}
    assert_outcome(browser.verify(body, csrf=None), 403)
    assert_outcome(browser.verify(body, csrf="not-the-token"), 403)


def test_bad_question_and_bad_body_are_400(smart_service):
    browser = smart_service.browser().login()
    out = assert_outcome(browser.verify({"question": "tell me everything"}), 400)
    assert "tell me" not in out["issue"][0]["diagnostics"]  # no request text echoed back
    assert_outcome(browser.verify({"question": "a before b", "query": {"events": []}}), 400)
    assert_outcome(browser.verify({"query": {"events": [{"id": "e0", "text": "x"}]}}), 400)
    assert_outcome(browser.verify({"question": "Was x before y?", "scope": "ward"}), 400)


def test_fhir_server_refusing_the_token_is_401(smart_service):
    browser = smart_service.browser().login()
    smart_service.ehr.tokens.clear()  # the EHR revoked every access token
    out = assert_outcome(browser.verify({"question": "Was vancomycin given before norepinephrine?"}), 401)
    assert "relaunch" in out["issue"][0]["diagnostics"]
