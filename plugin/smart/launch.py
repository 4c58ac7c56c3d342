"""SMART-on-FHIR EHR launch: a page in the EHR for asking a question and seeing the evidence.

    GET  /smart/launch?iss&launch  -> redirect to the EHR's authorize endpoint (PKCE S256, state)
    GET  /smart/callback?code&state -> token exchange, id_token check, server-side session, -> app
    GET  /smart/app                 -> the page (patient banner: name, birth date, encounter type and
                                       dates read with the session's token; question form, verdict + evidence)
    POST /smart/api/verify          -> Verdict JSON (session cookie + X-CSRF-Token header)

The access token stays on the server: the browser holds only an opaque session cookie. Launch
and session state live in per-app TtlStores (`install_smart`), never in module globals.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Cookie, FastAPI, Header, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from medeventgraph.cds_hooks.deps import ServiceState
from medeventgraph.cds_hooks.encounter import index_for_question, launch_encounter_applies
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.worker_pool import Deadline
from medeventgraph.model.settings import Settings
from medeventgraph.smart.banner import read_banner
from medeventgraph.smart.oauth import (
    JwksCache,
    SmartConfiguration,
    discover,
    exchange_code,
    normalize_base,
    pkce_pair,
    validate_id_token,
)
from medeventgraph.smart.page import PageContext, initial_query, render_notice, render_page
from medeventgraph.smart.record import fetch_record
from medeventgraph.smart.store import TtlStore, new_token, same_token, token_hash
from medeventgraph.smart.view import page_payload
from medeventgraph.wording.templates import load_wording
from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["SESSION_COOKIE", "SmartState", "VerifyRequest", "install_smart", "router"]

log = logging.getLogger("medeventgraph.smart")

SESSION_COOKIE = "meg_smart_session"
# Binds a launch's `state` to the browser that started it (login CSRF): set at /smart/launch,
# its hash kept with the pending launch, required at /smart/callback.
LAUNCH_COOKIE = "meg_smart_launch"
CSRF_HEADER = "X-CSRF-Token"
_NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


@dataclass(frozen=True)
class PendingLaunch:
    iss: str
    config: SmartConfiguration
    verifier: str
    redirect_uri: str
    browser_hash: str  # token_hash of the LAUNCH_COOKIE this launch was started with


@dataclass(frozen=True)
class SmartSession:
    iss: str
    access_token: str
    patient: str
    encounter: str | None
    fhir_user: str | None
    csrf_token: str
    app_context: str | None = None  # the EHR's launch appContext (a CDS card's question)


@dataclass
class SmartState:
    settings: Settings
    launches: TtlStore[PendingLaunch]
    sessions: TtlStore[SmartSession]
    jwks: JwksCache = field(default_factory=JwksCache)

    @classmethod
    def create(cls, settings: Settings) -> SmartState:
        return cls(settings,
                   launches=TtlStore(settings.smart_launch_ttl_seconds, settings.smart_max_sessions),
                   sessions=TtlStore(settings.smart_session_ttl_seconds, settings.smart_max_sessions))

    def allowed(self, iss: str) -> bool:
        return iss in {normalize_base(i) for i in self.settings.smart_allowed_issuers}


class VerifyRequest(BaseModel):
    """A free-text question or a query JSON object; `scope` overrides the query's scope."""

    model_config = ConfigDict(extra="forbid")
    question: str | None = Field(default=None, max_length=1000)
    query: dict[str, Any] | None = None
    scope: Literal["encounter", "episode", "patient"] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> VerifyRequest:
        if (self.question is None) == (self.query is None):
            raise ValueError("send exactly one of question or query")
        return self


router = APIRouter(prefix="/smart", tags=["smart"])


def install_smart(app: FastAPI, settings: Settings) -> None:
    """Add the SMART routes to an app built by cds_hooks.create_app (it provides state.meg)."""
    app.state.smart = SmartState.create(settings)
    app.include_router(router)


def _states(request: Request) -> tuple[SmartState, ServiceState]:
    return request.app.state.smart, request.app.state.meg


def _redirect_uri(request: Request, settings: Settings) -> str:
    if settings.smart_redirect_url:
        return settings.smart_redirect_url
    if settings.public_base_url:
        return settings.public_base_url.rstrip("/") + "/smart/callback"
    return str(request.url_for("smart_callback"))


@router.get("/launch")
async def launch(request: Request, iss: str, launch: str) -> RedirectResponse:
    smart, meg = _states(request)
    settings = smart.settings
    base = normalize_base(iss)
    if not smart.allowed(base):
        raise HookError(403, "iss is not an allowed SMART issuer (settings: smart_allowed_issuers)",
                        code="forbidden", expression=("iss",))
    config = await discover(base, meg.http_client(), settings.fhir_timeout_seconds)
    verifier, challenge = pkce_pair()
    state = new_token()
    redirect_uri = _redirect_uri(request, settings)
    # One value per browser, reused by concurrent launches (two tabs) until it expires.
    browser = request.cookies.get(LAUNCH_COOKIE)
    if not browser or len(browser) > 128:
        browser = new_token()
    smart.launches.put(state, PendingLaunch(base, config, verifier, redirect_uri, token_hash(browser)))
    params = {"response_type": "code", "client_id": settings.smart_client_id, "redirect_uri": redirect_uri,
              "scope": settings.smart_scopes, "state": state, "aud": base, "launch": launch,
              "code_challenge": challenge, "code_challenge_method": "S256"}
    sep = "&" if "?" in config.authorization_endpoint else "?"
    resp = RedirectResponse(config.authorization_endpoint + sep + urlencode(params), status_code=302,
                            headers=_NO_STORE)
    # Lax (not Strict): the callback arrives by a cross-site redirect from the EHR.
    samesite: Literal["none", "lax"] = "none" if settings.smart_cookie_samesite == "none" else "lax"
    resp.set_cookie(LAUNCH_COOKIE, browser, httponly=True, samesite=samesite, path="/smart",
                    secure=samesite == "none" or redirect_uri.startswith("https://"),
                    max_age=settings.smart_launch_ttl_seconds)
    return resp


@router.get("/callback", name="smart_callback")
async def callback(request: Request, code: str | None = None, state: str | None = None,
                   error: str | None = None) -> RedirectResponse:
    smart, meg = _states(request)
    settings = smart.settings
    pending = smart.launches.get(state) if state else None
    if pending is None:
        raise HookError(400, "unknown, expired or already used state; launch the app again",
                        code="security", expression=("state",))
    if not same_token(request.cookies.get(LAUNCH_COOKIE), pending.browser_hash):
        # Another client (an attacker's link, a scanner) brought this state: refused without using it up.
        raise HookError(400, "this launch was not started in this browser (launch cookie missing or "
                             "wrong); launch the app again", code="security", expression=("state",))
    # Taken out of the store on first use: a replayed state never finds its launch.
    pending = smart.launches.pop(state) if state else None
    if pending is None:
        raise HookError(400, "unknown, expired or already used state; launch the app again",
                        code="security", expression=("state",))
    if error or not code:
        raise HookError(400, "the EHR did not authorize the launch", code="security")
    http = meg.http_client()
    token = await exchange_code(pending.config, code=code, verifier=pending.verifier,
                                redirect_uri=pending.redirect_uri, client_id=settings.smart_client_id,
                                http=http, timeout=settings.fhir_timeout_seconds)
    if not token.patient:
        raise HookError(400, "the token response has no patient context (needs the launch scope)",
                        code="required", expression=("patient",))
    fhir_user = None
    if token.id_token:
        claims = await validate_id_token(token.id_token, config=pending.config, iss=pending.iss,
                                         client_id=settings.smart_client_id, jwks=smart.jwks, http=http,
                                         leeway=settings.jwt_leeway_seconds, timeout=settings.fhir_timeout_seconds)
        user = claims.get("fhirUser") or claims.get("profile")
        fhir_user = user if isinstance(user, str) else None
    session_id = new_token()
    session = SmartSession(iss=pending.iss, access_token=token.access_token,
                           patient=token.patient.removeprefix("Patient/"),
                           encounter=token.encounter.removeprefix("Encounter/") if token.encounter else None,
                           fhir_user=fhir_user, csrf_token=new_token(),
                           app_context=_app_context(token.model_extra))
    smart.sessions.put(session_id, session, ttl_seconds=token.expires_in)
    log.info("SMART session started (encounter context: %s)", "yes" if session.encounter else "no")
    resp = RedirectResponse("app", status_code=303, headers=_NO_STORE)  # relative: /smart/app
    samesite = settings.smart_cookie_samesite
    resp.set_cookie(SESSION_COOKIE, session_id, httponly=True, samesite=samesite, path="/smart",
                    secure=samesite == "none" or pending.redirect_uri.startswith("https://"),
                    max_age=min(token.expires_in or settings.smart_session_ttl_seconds,
                                settings.smart_session_ttl_seconds))
    return resp


def _session(request: Request, cookie: str | None) -> SmartSession | None:
    smart, _ = _states(request)
    return smart.sessions.get(cookie) if cookie else None


SessionCookie = Annotated[str | None, Cookie(alias=SESSION_COOKIE)]


@router.get("/app")
async def app_page(request: Request, session_id: SessionCookie = None) -> Response:
    session = _session(request, session_id)
    if session is None:
        return render_notice(401, "No SMART session (or it expired): open MedEventGraph from the EHR.")
    _, meg = _states(request)
    banner = await read_banner(session, meg.settings, meg.http_client(), load_wording())
    return render_page(PageContext(patient=session.patient, encounter=session.encounter,
                                   fhir_user=session.fhir_user, banner=banner, csrf_token=session.csrf_token,
                                   default_scope="encounter" if session.encounter else "patient",
                                   initial_query=initial_query(session.app_context, session.patient)))


def _app_context(extra: dict[str, Any] | None) -> str | None:
    value = (extra or {}).get("appContext")
    return value if isinstance(value, str) and len(value) <= 20_000 else None


def _verify(meg: ServiceState, session: SmartSession, data: Any, query: Any, question: str | None,
            deadline: Deadline) -> dict[str, Any]:
    # "One encounter" is the encounter the EHR launched with, when it named one.
    index = index_for_question(meg.engine, session.patient, data, "smart:verify", query, session.encounter,
                               deadline)
    query, verdict = meg.engine.verify_asked(index, query, question, deadline)
    body = verdict.model_dump(mode="json")
    encounter = session.encounter if launch_encounter_applies(query, session.encounter) else None
    body["page"] = page_payload(index, verdict, query, launch_encounter=encounter)
    return body


@router.post("/api/verify")
async def api_verify(request: Request, body: VerifyRequest, session_id: SessionCookie = None,
                     csrf: Annotated[str | None, Header(alias=CSRF_HEADER)] = None) -> JSONResponse:
    session = _session(request, session_id)
    if session is None:
        raise HookError(401, "no SMART session (or it expired); launch the app from the EHR", code="login")
    if not csrf or not hmac.compare_digest(csrf, session.csrf_token):
        raise HookError(403, f"missing or wrong {CSRF_HEADER} header", code="forbidden")
    _, meg = _states(request)
    query = meg.engine.parse_query(body.query if body.query is not None else body.question or "")
    if body.scope is not None:
        query = query.model_copy(update={"scope": type(query.scope)(body.scope)})
    data = await fetch_record(session.iss, session.access_token, session.patient, meg.settings,
                              meg.http_client())
    # The same worker pool and deadline as the CDS Hooks services (cds_hooks/worker_pool.py): the page's
    # question never blocks the event loop, and past MEG_REQUEST_DEADLINE_SECONDS it answers 503.
    deadline = Deadline(meg.settings.request_deadline_seconds)
    question = body.question.strip() if body.query is None and body.question is not None else None
    verdict = await meg.engine.workers.run(_verify, deadline, meg, session, data, query, question)
    return JSONResponse(verdict, headers=_NO_STORE)
