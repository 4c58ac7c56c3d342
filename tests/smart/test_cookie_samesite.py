"""MEG_SMART_COOKIE_SAMESITE over HTTP: `none` makes both cookies `SameSite=None; Secure` (for an
EHR that embeds the app in a cross-site iframe); `strict` makes the session cookie Strict while
the launch cookie stays Lax, since it must come back on the EHR's cross-site redirect."""

from __future__ import annotations

import httpx
import pytest
from medeventgraph.smart.launch import LAUNCH_COOKIE, SESSION_COOKIE


def _set_cookie(resp: httpx.Response, name: str) -> tuple[str, dict[str, str]]:
    """(value, attributes by lower-case name) of the Set-Cookie header for `name`."""
    header = next(v for k, v in resp.headers.multi_items() if k == "set-cookie" and v.startswith(f"{name}="))
    first, *rest = (part.strip() for part in header.split(";"))
    attrs = {a.split("=", 1)[0].lower(): (a.split("=", 1)[1] if "=" in a else "") for a in rest}
    return first.split("=", 1)[1], attrs


@pytest.mark.parametrize(("setting", "launch_samesite", "session_samesite", "secure"), [
    ("none", "none", "none", True),
    ("strict", "lax", "strict", False),  # served over plain http here: Secure only where it must be
])
def test_cookie_samesite_setting(start_smart_service, setting, launch_samesite, session_samesite, secure):
    svc = start_smart_service(smart_cookie_samesite=setting)
    browser = svc.browser()
    launch = browser.launch()
    assert launch.status_code == 302, launch.text
    launch_value, launch_attrs = _set_cookie(launch, LAUNCH_COOKIE)
    assert launch_attrs["samesite"].lower() == launch_samesite
    assert ("secure" in launch_attrs) is secure
    authorize = browser.authorize(launch)
    assert authorize.status_code == 302, authorize.text
    # A Secure cookie is not sent over plain http by httpx's jar: hand it over as a browser on https would.
    with httpx.Client(timeout=120) as http:
        callback = http.get(authorize.headers["location"], headers={"Cookie": f"{LAUNCH_COOKIE}={launch_value}"})
    assert callback.status_code == 303, callback.text
    session_value, session_attrs = _set_cookie(callback, SESSION_COOKIE)
    assert session_attrs["samesite"].lower() == session_samesite
    assert ("secure" in session_attrs) is secure and "httponly" in session_attrs
    with httpx.Client(timeout=120) as http:
        page = http.get(f"{svc.base}/smart/app", headers={"Cookie": f"{SESSION_COOKIE}={session_value}"})
    assert page.status_code == 200, page.text
