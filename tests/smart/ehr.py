"""A loopback SMART EHR for the tests: authorization server + FHIR endpoint that needs its tokens.

The one fake in these tests (no SMART EHR or launcher runs here; the SMART launcher is not on
npm). It does what INTEROP.md says real EHRs do: smart-configuration at `{iss}/.well-known`,
`/authorize` that checks `aud` and the launch id and redirects back with code + state, `/token`
that checks the PKCE S256 verifier and returns patient, optional encounter and an RS256
id_token with `fhirUser`, and `/jwks`. FHIR reads under `{iss}` are passed, with a valid access
token only, to the real Medplum test server; its absolute paging links are rewritten to `{iss}`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

KID = "ehr-rs256"


@dataclass
class Launch:
    patient: str
    encounter: str | None = None
    app_context: str | None = None  # handed back as `appContext` (a CDS card's SMART link sets it)


@dataclass
class FakeEhr:
    upstream: str  # the Medplum FHIR base
    client_id: str
    base: str = ""  # http://127.0.0.1:<port>, set once the server listens
    key: rsa.RSAPrivateKey = field(default_factory=lambda: rsa.generate_private_key(65537, 2048))
    id_token_mode: str = "good"  # good | wrong_aud | hs256 | expired | none
    launches: dict[str, Launch] = field(default_factory=dict)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, Launch] = field(default_factory=dict)
    authorize_requests: list[dict[str, str]] = field(default_factory=list)
    token_errors: list[str] = field(default_factory=list)
    failing_types: set[str] = field(default_factory=set)  # FHIR reads of these types answer 503 (an outage)

    @property
    def fhir_base(self) -> str:
        return f"{self.base}/fhir"

    def launch(self, patient: str, encounter: str | None = None, app_context: str | None = None) -> str:
        launch_id = secrets.token_hex(8)
        self.launches[launch_id] = Launch(patient, encounter, app_context)
        return launch_id

    def id_token(self, launch: Launch) -> str | None:
        now = int(time.time())
        claims = {"iss": self.fhir_base, "sub": "test-user", "aud": self.client_id, "iat": now,
                  "exp": now + 300, "fhirUser": "Practitioner/test-user"}
        if self.id_token_mode == "none":
            return None
        if self.id_token_mode == "wrong_aud":
            claims["aud"] = "some-other-app"
        if self.id_token_mode == "expired":
            claims.update(iat=now - 3600, exp=now - 1800)
        if self.id_token_mode == "hs256":
            return jwt.encode(claims, "shared-secret-" + "x" * 32, algorithm="HS256", headers={"kid": KID})
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": KID})

    def app(self) -> FastAPI:
        app = FastAPI()
        ehr = self

        def oauth_error(error: str, status: int = 400) -> JSONResponse:
            ehr.token_errors.append(error)
            return JSONResponse({"error": error}, status_code=status)

        @app.get("/fhir/.well-known/smart-configuration")
        def smart_configuration() -> dict[str, Any]:
            return {"issuer": ehr.fhir_base, "authorization_endpoint": f"{ehr.base}/auth/authorize",
                    "token_endpoint": f"{ehr.base}/auth/token", "jwks_uri": f"{ehr.base}/auth/jwks",
                    "capabilities": ["launch-ehr", "client-public", "context-ehr-patient",
                                     "context-ehr-encounter", "sso-openid-connect", "permission-patient"],
                    "code_challenge_methods_supported": ["S256"],
                    "scopes_supported": ["launch", "openid", "fhirUser", "patient/*.read"]}

        @app.get("/auth/authorize")
        def authorize(request: Request) -> Response:
            q = dict(request.query_params)
            ehr.authorize_requests.append(q)
            launch = ehr.launches.get(q.get("launch", ""))
            if q.get("response_type") != "code" or q.get("aud") != ehr.fhir_base or launch is None:
                return JSONResponse({"error": "invalid_request"}, status_code=400)
            if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
                return JSONResponse({"error": "invalid_request"}, status_code=400)
            code = secrets.token_urlsafe(16)
            ehr.codes[code] = {"challenge": q["code_challenge"], "redirect_uri": q["redirect_uri"],
                               "client_id": q.get("client_id"), "launch": launch}
            return RedirectResponse(q["redirect_uri"] + "?" + urlencode({"code": code, "state": q["state"]}), 302)

        @app.post("/auth/token")
        async def token(request: Request) -> Response:
            form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
            grant = ehr.codes.pop(form.get("code", ""), None)  # codes are single-use
            if form.get("grant_type") != "authorization_code" or grant is None:
                return oauth_error("invalid_grant")
            if form.get("redirect_uri") != grant["redirect_uri"] or form.get("client_id") != grant["client_id"]:
                return oauth_error("invalid_grant")
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant["challenge"]:
                return oauth_error("invalid_grant")  # PKCE mismatch
            launch: Launch = grant["launch"]
            access = secrets.token_urlsafe(24)
            ehr.tokens[access] = launch
            body: dict[str, Any] = {"access_token": access, "token_type": "Bearer", "expires_in": 3600,
                                    "scope": "launch openid fhirUser patient/*.read", "patient": launch.patient}
            if launch.encounter:
                body["encounter"] = launch.encounter
            if launch.app_context:
                body["appContext"] = launch.app_context
            if (id_token := ehr.id_token(launch)) is not None:
                body["id_token"] = id_token
            return JSONResponse(body, headers={"Cache-Control": "no-store"})

        @app.get("/auth/jwks")
        def jwks() -> dict[str, Any]:
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(ehr.key.public_key()))
            return {"keys": [{**jwk, "kid": KID, "alg": "RS256", "use": "sig"}]}

        @app.get("/fhir/{path:path}")
        async def fhir(path: str, request: Request) -> Response:
            auth = request.headers.get("authorization", "")
            if not auth.startswith("Bearer ") or auth[7:] not in ehr.tokens:
                return JSONResponse({"resourceType": "OperationOutcome", "issue": [
                    {"severity": "error", "code": "login", "diagnostics": "token required"}]}, status_code=401)
            if path.split("/", 1)[0] in ehr.failing_types:
                return JSONResponse({"resourceType": "OperationOutcome", "issue": [
                    {"severity": "error", "code": "transient", "diagnostics": "down"}]}, status_code=503)
            url = f"{ehr.upstream}/{path}" + (f"?{request.url.query}" if request.url.query else "")
            async with httpx.AsyncClient() as http:
                resp = await http.get(url, headers={"Accept": "application/fhir+json"}, timeout=60)
            text = resp.text.replace(ehr.upstream, ehr.fhir_base)
            return Response(text, status_code=resp.status_code,
                            media_type=resp.headers.get("content-type", "application/fhir+json"))

        return app
