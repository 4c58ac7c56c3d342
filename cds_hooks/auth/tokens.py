"""JWT checks on every CDS Hooks call (CDS Hooks 2.0, "Trusting CDS Clients").

Accepted: RS384 or ES384 signed by a key of an allowlisted issuer, `aud` equal to the exact URL
called, `exp` and `iat` NumericDates valid within the leeway with `exp - iat` at most
`jwt_max_lifetime_seconds`, and an `(iss, jti)` not seen before (replay.py).
Everything else is a 401 whose diagnostics say which rule failed, never the token itself.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import jwt
from fastapi import Request
from medeventgraph.cds_hooks.auth.replay import ReplayCache
from medeventgraph.cds_hooks.auth.trust import TrustStore
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.model.settings import Settings

__all__ = ["ALGORITHMS", "ReplayCache", "verify_request"]

log = logging.getLogger("medeventgraph.cds_hooks")

# The spec names ES384 and RS384; `none` and HMAC (a shared secret nobody configured) never pass.
ALGORITHMS = ("ES384", "RS384")
_MAX_TOKEN_BYTES = 16_384
_MAX_JTI_CHARS = 256
_MAX_NUMERIC_DATE = 253_402_300_799  # 9999-12-31T23:59:59Z: anything later is an attack, not a date


def _called_url(request: Request, settings: Settings) -> str:
    """The URL the client called, as it must appear in `aud`: the configured public base URL
    (the service may sit behind a proxy) plus the path, without the query string."""
    path = request.url.path
    if settings.public_base_url:
        return settings.public_base_url.rstrip("/") + path
    return f"{request.url.scheme}://{request.url.netloc}{path}"


def _refuse(reason: str) -> HookError:
    return HookError(401, f"JWT refused: {reason}", code="security")


def _numeric_date(claims: dict[str, Any], name: str) -> float:
    """RFC 7519 NumericDate: a JSON number (not a string, not a boolean), finite and plausible."""
    if name not in claims:
        raise _refuse(f"missing claim {name}")
    value = claims[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refuse(f"{name} must be a NumericDate (a JSON number of seconds)")
    if isinstance(value, float) and not math.isfinite(value) or not 0 <= value <= _MAX_NUMERIC_DATE:
        raise _refuse(f"{name} is out of range")
    return float(value)


def _check_times(claims: dict[str, Any], settings: Settings, now: float | None = None) -> None:
    """exp and iat are NumericDates, iat not in the future beyond the leeway, and the token's
    lifetime `exp - iat` within `jwt_max_lifetime_seconds`: a ten-year token is refused even if
    correctly signed, because a leaked one would be good for ten years and would pin a replay
    cache entry for as long."""
    now = time.time() if now is None else now
    exp, iat = _numeric_date(claims, "exp"), _numeric_date(claims, "iat")
    leeway = settings.jwt_leeway_seconds
    if exp <= now - leeway:
        raise _refuse("token expired")
    if iat > now + leeway:
        raise _refuse("iat is in the future")
    if exp - iat > settings.jwt_max_lifetime_seconds:
        raise _refuse(f"token lifetime exp - iat exceeds {settings.jwt_max_lifetime_seconds} s")
    if exp < iat:
        raise _refuse("exp is before iat")


def verify_request(request: Request, settings: Settings, trust: TrustStore, replay: ReplayCache,
                   *, required: bool = True) -> dict[str, Any] | None:
    """Claims of the verified bearer JWT; None only when no token came and none is required."""
    header = request.headers.get("authorization", "")
    if not header:
        if required and settings.jwt_required:
            raise _refuse("no Authorization header")
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _refuse("Authorization is not a Bearer token")
    token = token.strip()
    if len(token) > _MAX_TOKEN_BYTES:
        raise _refuse("token too large")
    try:
        head = jwt.get_unverified_header(token)
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise _refuse("token is not a well-formed JWT") from None
    alg = head.get("alg")
    if alg not in ALGORITHMS:
        raise _refuse(f"alg must be one of {', '.join(ALGORITHMS)}")
    iss = unverified.get("iss")
    if not isinstance(iss, str) or not trust.trusts(iss):
        raise _refuse("issuer is not trusted")
    # Shape first, keys after: a malformed token never makes the service fetch a key set.
    _check_times(unverified, settings)
    jti = unverified.get("jti")
    if not isinstance(jti, str) or not jti or len(jti) > _MAX_JTI_CHARS:
        raise _refuse(f"jti must be a non-empty string of at most {_MAX_JTI_CHARS} characters")
    kid, jku = head.get("kid"), head.get("jku")
    want_kty = "EC" if alg == "ES384" else "RSA"
    keys = [k for k in trust.signing_keys(iss, kid if isinstance(kid, str) else None,
                                         jku if isinstance(jku, str) else None)
            if k.key_type == want_kty]
    if not keys:
        raise _refuse("no trusted key for this issuer and kid")
    expected_aud = _called_url(request, settings)
    last: Exception | None = None
    for key in keys:
        try:
            claims = jwt.decode(
                token, key=key, algorithms=[alg], audience=expected_aud, issuer=iss,
                leeway=settings.jwt_leeway_seconds,
                options={"require": ["iss", "aud", "exp", "iat", "jti"], "verify_iat": True},
            )
            break
        except jwt.InvalidSignatureError as exc:
            last = exc  # try the issuer's next key
        except jwt.ExpiredSignatureError:
            raise _refuse("token expired") from None
        except jwt.InvalidAudienceError:
            raise _refuse("aud does not equal the URL called") from None
        except jwt.ImmatureSignatureError:
            raise _refuse("iat is in the future") from None
        except jwt.MissingRequiredClaimError as exc:
            raise _refuse(f"missing claim {exc.claim}") from None
        except jwt.PyJWTError as exc:
            raise _refuse(type(exc).__name__) from None
    else:
        raise _refuse("signature does not verify") from last
    if not replay.check_and_add(iss, claims["jti"], float(claims["exp"])):
        raise _refuse("jti was already used (replay)")
    return claims
