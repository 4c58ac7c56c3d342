"""JWT checks on every CDS Hooks call (CDS Hooks 2.0, "Trusting CDS Clients").

Accepted: RS384 or ES384 signed by a key of an allowlisted issuer, `aud` equal to the exact URL
called, `exp` and `iat` valid within the leeway, and a `jti` not seen before (replay cache).
Everything else is a 401 whose diagnostics say which rule failed, never the token itself.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import jwt
from fastapi import Request
from medeventgraph.settings import Settings

from .errors import HookError
from .trust import TrustStore

__all__ = ["ALGORITHMS", "ReplayCache", "called_url", "verify_request"]

log = logging.getLogger("medeventgraph.cds_hooks")

# The spec names ES384 and RS384; `none` and HMAC (a shared secret nobody configured) never pass.
ALGORITHMS = ("ES384", "RS384")
_MAX_TOKEN_BYTES = 16_384
_KEEP_AFTER_EXP = 600.0  # longer than any leeway, so an expired-then-accepted jti cannot recur


class ReplayCache:
    """`jti` values seen, kept until their token expires (bounded so it cannot grow unchecked)."""

    def __init__(self, max_entries: int = 100_000):
        self._seen: dict[tuple[str, str], float] = {}
        self._max = max_entries
        self._lock = threading.Lock()

    def check_and_add(self, iss: str, jti: str, exp: float) -> bool:
        now = time.time()
        with self._lock:
            if len(self._seen) >= self._max:
                self._seen = {k: v for k, v in self._seen.items() if v + _KEEP_AFTER_EXP > now}
                if len(self._seen) >= self._max:
                    return False  # refuse rather than forget: forgetting would allow replay
            key = (iss, jti)
            if key in self._seen:
                return False
            self._seen[key] = exp
            return True


def called_url(request: Request, settings: Settings) -> str:
    """The URL the client called, as it must appear in `aud`: the configured public base URL
    (the service may sit behind a proxy) plus the path, without the query string."""
    path = request.url.path
    if settings.public_base_url:
        return settings.public_base_url.rstrip("/") + path
    return f"{request.url.scheme}://{request.url.netloc}{path}"


def _refuse(reason: str) -> HookError:
    return HookError(401, f"JWT refused: {reason}", code="security")


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
    kid, jku = head.get("kid"), head.get("jku")
    want_kty = "EC" if alg == "ES384" else "RSA"
    keys = [k for k in trust.signing_keys(iss, kid if isinstance(kid, str) else None,
                                         jku if isinstance(jku, str) else None)
            if k.key_type == want_kty]
    if not keys:
        raise _refuse("no trusted key for this issuer and kid")
    expected_aud = called_url(request, settings)
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
    if not isinstance(claims.get("jti"), str) or not claims["jti"]:
        raise _refuse("jti must be a non-empty string")
    if not replay.check_and_add(iss, claims["jti"], float(claims["exp"])):
        raise _refuse("jti was already used (replay)")
    return claims
