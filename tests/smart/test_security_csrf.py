"""Login CSRF: a launch's `state` works only in the browser that started the launch (a cookie
set at /smart/launch whose hash is kept with the pending launch)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from medeventgraph.smart.launch import LAUNCH_COOKIE, SESSION_COOKIE

from .conftest import assert_outcome


def _code(authorize) -> str:
    return parse_qs(urlsplit(authorize.headers["location"]).query)["code"][0]


def test_launch_sets_an_httponly_binding_cookie(smart_service):
    launch = smart_service.browser().launch()
    assert launch.status_code == 302
    cookie = next(v for k, v in launch.headers.multi_items() if k == "set-cookie" and v.startswith(LAUNCH_COOKIE))
    attrs = {a.strip().split("=")[0].lower() for a in cookie.split(";")}
    assert {"httponly", "path", "samesite", "max-age"} <= attrs
    assert "samesite=lax" in cookie.lower() and "path=/smart" in cookie.lower()


def test_another_client_cannot_complete_the_callback(smart_service):
    attacker = smart_service.browser()
    authorize = attacker.authorize(attacker.launch())
    victim = smart_service.browser()  # no cookies: the attacker's link opened in someone else's browser
    out = assert_outcome(victim.callback(authorize), 400)
    assert "not started in this browser" in out["issue"][0]["diagnostics"]
    assert SESSION_COOKIE not in victim.http.cookies
    assert _code(authorize) in smart_service.ehr.codes  # the code was never exchanged
    # The refusal did not use the launch up: its own browser still completes it.
    assert attacker.open_app(attacker.callback(authorize)).status_code == 200


def test_a_browser_with_its_own_launch_cookie_is_refused_too(smart_service):
    attacker = smart_service.browser()
    authorize = attacker.authorize(attacker.launch())
    victim = smart_service.browser()
    victim.launch()  # the victim has a binding cookie, but for its own launches
    assert LAUNCH_COOKIE in victim.http.cookies
    assert_outcome(victim.callback(authorize), 400)
    victim.http.cookies.set(LAUNCH_COOKIE, "forged-value", domain="127.0.0.1", path="/smart")
    assert_outcome(victim.callback(authorize), 400)


def test_two_launches_in_one_browser_both_complete(smart_service):
    browser = smart_service.browser()
    first = browser.authorize(browser.launch())
    second = browser.authorize(browser.launch())
    assert browser.callback(second).status_code == 303
    assert browser.callback(first).status_code == 303
