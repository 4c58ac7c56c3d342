"""The OAuth 2 / OpenID Connect side of a SMART EHR launch: discovery, PKCE, code exchange,
id_token checks.

Every failure is a HookError whose diagnostics name the step and the rule, never token or
claim values, so they are safe to show and to log.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import logging
import re
import secrets
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt
from medeventgraph.cds_hooks.errors import HookError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "JwksCache",
    "SmartConfiguration",
    "TokenResponse",
    "discover",
    "exchange_code",
    "normalize_base",
    "pkce_pair",
    "validate_id_token",
]

log = logging.getLogger("medeventgraph.smart")

_OAUTH_ERROR = re.compile(r"^[a-z_]{1,40}$")


class SmartConfiguration(BaseModel):
    """`{iss}/.well-known/smart-configuration`: only the fields the launch needs are required."""

    model_config = ConfigDict(extra="allow")
    issuer: str | None = None
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str | None = None
    capabilities: list[str] = Field(default_factory=list)
    code_challenge_methods_supported: list[str] = Field(default_factory=list)


class TokenResponse(BaseModel):
    model_config = ConfigDict(extra="allow")
    access_token: str = Field(min_length=1)
    token_type: str
    expires_in: int | None = None
    scope: str | None = None
    patient: str | None = None
    encounter: str | None = None
    id_token: str | None = None


def normalize_base(url: str) -> str:
    """FHIR bases compare without a trailing slash (EHRs send both forms)."""
    return url.strip().rstrip("/")


def _endpoint_ok(url: str) -> bool:
    # Tokens and codes travel to these URLs: TLS is required except on the loopback interface.
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge), RFC 7636. Used on every launch, whatever the EHR advertises."""
    verifier = secrets.token_urlsafe(64)  # 86 characters, inside the 43..128 the RFC allows
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def _get_json(http: httpx.AsyncClient, url: str, what: str, timeout: float) -> Any:
    try:
        resp = await http.get(url, headers={"Accept": "application/json"}, timeout=timeout)
    except httpx.HTTPError as exc:
        raise HookError(502, f"{what} unreachable ({type(exc).__name__})", code="transient") from None
    if resp.status_code != 200:
        raise HookError(502, f"{what} answered HTTP {resp.status_code}", code="transient")
    try:
        return resp.json()
    except ValueError:
        raise HookError(502, f"{what} is not JSON", code="invalid") from None


async def discover(iss: str, http: httpx.AsyncClient, timeout: float) -> SmartConfiguration:
    data = await _get_json(http, f"{iss}/.well-known/smart-configuration", "smart-configuration", timeout)
    try:
        config = SmartConfiguration.model_validate(data)
    except ValidationError as exc:
        loc = ".".join(str(p) for p in exc.errors()[0].get("loc", ()))
        raise HookError(502, f"smart-configuration lacks a usable {loc or 'body'}", code="invalid") from None
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        url = getattr(config, name)
        if url is not None and not _endpoint_ok(url):
            raise HookError(502, f"smart-configuration {name} is not https", code="security")
    if "launch-ehr" not in config.capabilities:
        log.info("smart-configuration does not list launch-ehr; trying the EHR launch anyway")
    return config


async def exchange_code(config: SmartConfiguration, *, code: str, verifier: str, redirect_uri: str,
                        client_id: str, http: httpx.AsyncClient, timeout: float) -> TokenResponse:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier, "client_id": client_id}
    try:
        resp = await http.post(config.token_endpoint, data=form, timeout=timeout,
                               headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise HookError(502, f"token endpoint unreachable ({type(exc).__name__})", code="transient") from None
    try:
        body = resp.json()
    except ValueError:
        body = None
    if resp.status_code in (400, 401):
        # The OAuth `error` code (e.g. invalid_grant on a PKCE mismatch) says why; it carries no data.
        err = body.get("error") if isinstance(body, dict) else None
        reason = err if isinstance(err, str) and _OAUTH_ERROR.match(err) else f"HTTP {resp.status_code}"
        raise HookError(400, f"token endpoint refused the authorization code ({reason})", code="security")
    if resp.status_code != 200 or not isinstance(body, dict):
        raise HookError(502, f"token endpoint answered HTTP {resp.status_code}", code="transient")
    try:
        token = TokenResponse.model_validate(body)
    except ValidationError as exc:
        loc = ".".join(str(p) for p in exc.errors()[0].get("loc", ()))
        raise HookError(502, f"token response lacks a usable {loc}", code="invalid") from None
    if token.token_type.lower() != "bearer":
        raise HookError(502, "token response is not a bearer token", code="not-supported")
    return token


class JwksCache:
    """The authorization server's signing keys by `jwks_uri`, refetched on an unknown `kid`."""

    def __init__(self, ttl_seconds: float = 3600):
        self.ttl = ttl_seconds
        self._sets: dict[str, tuple[float, jwt.PyJWKSet]] = {}

    async def key(self, uri: str, kid: str | None, http: httpx.AsyncClient, timeout: float) -> jwt.PyJWK:
        for refresh in (False, True):
            keyset = await self._keyset(uri, http, timeout, refresh)
            rsa = [k for k in keyset.keys if k.key_type == "RSA" and (kid is None or k.key_id == kid)]
            if len(rsa) == 1 or (rsa and kid is not None):
                return rsa[0]
            if kid is None and len(rsa) > 1:
                raise HookError(401, "id_token has no kid and the JWKS holds several RSA keys", code="security")
        raise HookError(401, "id_token signing key is not in the server's JWKS", code="security")

    async def _keyset(self, uri: str, http: httpx.AsyncClient, timeout: float, refresh: bool) -> jwt.PyJWKSet:
        cached = self._sets.get(uri)
        if cached and not refresh and cached[0] > time.monotonic():
            return cached[1]
        data = await _get_json(http, uri, "JWKS", timeout)
        try:
            keyset = jwt.PyJWKSet.from_dict(data)
        except (jwt.PyJWKSetError, jwt.InvalidKeyError, TypeError, AttributeError):
            raise HookError(502, "JWKS holds no usable keys", code="invalid") from None
        self._sets[uri] = (time.monotonic() + self.ttl, keyset)
        return keyset


async def validate_id_token(id_token: str, *, config: SmartConfiguration, iss: str, client_id: str,
                            jwks: JwksCache, http: httpx.AsyncClient, leeway: int,
                            timeout: float) -> dict[str, Any]:
    """The id_token's claims after RS256 signature, aud, iss, exp and iat checks."""
    try:
        header = jwt.get_unverified_header(id_token)
    except jwt.DecodeError:
        raise HookError(401, "id_token is not a JWT", code="security") from None
    # Checked before any key lookup: an HS256 token "signed" with the public key must never pass.
    if header.get("alg") != "RS256":
        raise HookError(401, "id_token must be signed with RS256", code="security")
    if not config.jwks_uri:
        raise HookError(401, "id_token cannot be checked: smart-configuration has no jwks_uri", code="security")
    key = await jwks.key(config.jwks_uri, header.get("kid"), http, timeout)
    try:
        return jwt.decode(id_token, key.key, algorithms=["RS256"], audience=client_id,
                          issuer=config.issuer or iss, leeway=leeway,
                          options={"require": ["iss", "aud", "exp", "iat", "sub"]})
    except jwt.ExpiredSignatureError:
        raise HookError(401, "id_token has expired", code="security") from None
    except jwt.InvalidAudienceError:
        raise HookError(401, "id_token aud is not this app's client id", code="security") from None
    except jwt.InvalidIssuerError:
        raise HookError(401, "id_token iss is not the launching issuer", code="security") from None
    except jwt.InvalidTokenError as exc:
        raise HookError(401, f"id_token refused ({type(exc).__name__})", code="security") from None
