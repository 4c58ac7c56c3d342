"""The SMART page: the packaged HTML template with the session's launch context filled in.

The template (`resources/smart.html`) is plain HTML and vanilla JS, no build step. The context
goes in as a JSON data block (never as markup) and every value the script shows is set with
`textContent`, so nothing from the EHR or the record can inject markup. A per-response nonce
lets the inline script and style run under a strict Content-Security-Policy.
"""

from __future__ import annotations

import json
import secrets
from functools import lru_cache
from typing import Any

from fastapi.responses import HTMLResponse
from medeventgraph.model.packaged import packaged_text
from medeventgraph.smart.banner import Banner
from pydantic import BaseModel

__all__ = ["PageContext", "initial_query", "render_notice", "render_page"]


class PageContext(BaseModel):
    """What the page's script reads. The header shows `banner` (names and dates); the ids stay
    here for the session's audit, never shown."""

    patient: str
    encounter: str | None = None
    fhir_user: str | None = None
    banner: Banner
    csrf_token: str
    default_scope: str
    initial_query: dict[str, Any] | None = None  # from the launch appContext: asked as the page opens


def initial_query(app_context: str | None, patient: str) -> dict[str, Any] | None:
    """The question a CDS card's SMART link carried (its `appContext`), if it is for this patient.

    The query is checked again like any other when the page sends it; here only its shape."""
    if not app_context:
        return None
    try:
        body = json.loads(app_context)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("query"), dict):
        return None
    if body.get("patient") not in (None, patient, f"Patient/{patient}"):
        return None  # a link made for another patient never opens a question here
    return body["query"]


@lru_cache(maxsize=1)
def _template() -> str:
    return packaged_text("medeventgraph.smart", "smart.html")


def _json_for_script(value: object) -> str:
    # Inside <script> a literal "</script>" would end the block; escape the characters that matter.
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _headers(nonce: str) -> dict[str, str]:
    csp = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
           "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'")
    # No frame-ancestors limit: EHRs embed SMART apps in frames. no-referrer: the callback URL
    # carried the authorization code; no-store: the page shows patient data.
    return {"Content-Security-Policy": csp, "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff"}


def render_page(ctx: PageContext) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    html = _template().replace("{{NONCE}}", nonce).replace("{{CONTEXT}}", _json_for_script(ctx.model_dump()))
    return HTMLResponse(html, headers=_headers(nonce))


def render_notice(status: int, message: str) -> HTMLResponse:
    """A short page for a browser that reached /smart/app without a session."""
    nonce = secrets.token_urlsafe(16)
    body = ("<!doctype html><meta charset=utf-8><title>MedEventGraph</title>"
            f"<p>{message}</p>")  # message is one of our fixed strings, never request data
    return HTMLResponse(body, status_code=status, headers=_headers(nonce))
