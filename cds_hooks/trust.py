"""Which JWT issuers the service trusts, and where each one's signing keys come from.

Keys are pinned per issuer (a JWKS file) or fetched from a configured JWKS URL; the token's
own `jku` header is used only for issuers whose entry lists key-set URLs, and then only when it
is exactly one of them (jku.py): otherwise anyone could sign a token and point `jku` at their
own keys.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import jwt
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

from .jku import normalise_key_set_url

__all__ = ["TrustEntry", "TrustStore", "load_trust_store"]

log = logging.getLogger("medeventgraph.cds_hooks")

_ALLOWED_KTY = {"EC", "RSA"}  # ES384 and RS384 only; symmetric ("oct") keys never
_JWKS_TTL_SECONDS = 300.0


class TrustEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    jwks_file: Path | None = None
    jwks_url: str | None = None
    # False, or the exact key-set URLs a token's jku may name (no prefixes, no "any")
    jku_allowed: list[str] | bool = False
    note: str | None = None
    keys: list[dict[str, Any]] = Field(default_factory=list, exclude=True)

    @field_validator("jku_allowed")
    @classmethod
    def _exact_urls(cls, value: list[str] | bool) -> list[str] | bool:
        if value is True:
            raise ValueError("jku_allowed: true (any URL) is not supported; list the exact key-set URLs")
        if isinstance(value, list):
            for url in value:
                if normalise_key_set_url(url) is None or url.endswith("/"):
                    raise ValueError(f"jku_allowed: {url!r} is not an exact https key-set URL (a URL, not a prefix; "
                                     "no query, fragment, userinfo or dot-segments; http only to loopback)")
        return value

    @model_validator(mode="after")
    def _some_key_source(self) -> TrustEntry:
        if not (self.jwks_file or self.jwks_url or self.jku_allowed or self.keys):
            raise ValueError("a trusted issuer needs jwks_file, jwks_url or jku_allowed")
        return self

    def allowed_jku(self, jku: str) -> str | None:
        """The configured URL that `jku` names exactly, to fetch instead of the token's string."""
        if not isinstance(self.jku_allowed, list):
            return None
        wanted = normalise_key_set_url(jku)
        if wanted is None:
            return None
        return next((url for url in self.jku_allowed if normalise_key_set_url(url) == wanted), None)


_ENTRIES = TypeAdapter(dict[str, TrustEntry | None])


def _read_jwks(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return [k for k in data.get("keys", []) if isinstance(k, dict)]


def _default_entries() -> dict[str, TrustEntry]:
    pkg = resources.files("medeventgraph.cds_hooks") / "resources"
    raw = json.loads((pkg / "trusted_issuers.json").read_text())
    out = {}
    for iss, entry in _ENTRIES.validate_python(raw).items():
        if entry is None:
            continue
        if entry.jwks_file is not None:
            entry.keys = json.loads((pkg / str(entry.jwks_file)).read_text())["keys"]
        out[iss] = entry
    return out


class TrustStore:
    """Issuer allowlist with key lookup; JWKS fetched from URLs are cached for a few minutes."""

    def __init__(self, entries: dict[str, TrustEntry], *, timeout: float = 5.0):
        self.entries = entries
        self._timeout = timeout
        self._fetched: dict[str, tuple[float, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    def trusts(self, iss: str) -> bool:
        return iss in self.entries

    def _fetch(self, url: str) -> list[dict[str, Any]]:
        with self._lock:
            hit = self._fetched.get(url)
            if hit and time.monotonic() - hit[0] < _JWKS_TTL_SECONDS:
                return hit[1]
        try:
            resp = httpx.get(url, timeout=self._timeout, follow_redirects=False)
            resp.raise_for_status()
            keys = [k for k in resp.json().get("keys", []) if isinstance(k, dict)]
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            log.warning("JWKS fetch failed (%s): %s", url, type(exc).__name__)
            return []
        with self._lock:
            self._fetched[url] = (time.monotonic(), keys)
        return keys

    def signing_keys(self, iss: str, kid: str | None, jku: str | None) -> list[jwt.PyJWK]:
        """Candidate public keys for a token from `iss` with header `kid` / `jku`."""
        entry = self.entries.get(iss)
        if entry is None:
            return []
        jwks = list(entry.keys)
        if entry.jwks_url:
            jwks += self._fetch(entry.jwks_url)
        allowed = entry.allowed_jku(jku) if jku else None
        if allowed is not None:
            jwks += self._fetch(allowed)
        out = []
        for jwk in jwks:
            if jwk.get("kty") not in _ALLOWED_KTY or (kid is not None and jwk.get("kid") != kid):
                continue
            try:
                out.append(jwt.PyJWK(jwk))
            except (jwt.PyJWKError, jwt.InvalidKeyError, KeyError, ValueError):
                log.warning("unusable key in JWKS for a trusted issuer (kid %s)", jwk.get("kid"))
        return out


def load_trust_store(path: Path | None, *, timeout: float = 5.0) -> TrustStore:
    """The shipped entries (the public CDS Hooks sandbox), overridden by `path` when given.

    In the file an issuer mapped to null is removed, e.g. to stop trusting the sandbox.
    `jwks_file` paths are relative to the file's folder.
    """
    entries = _default_entries()
    if path is not None:
        raw = json.loads(Path(path).read_text())
        for iss, entry in _ENTRIES.validate_python(raw).items():
            if entry is None:
                entries.pop(iss, None)
                continue
            if entry.jwks_file is not None:
                file = entry.jwks_file if entry.jwks_file.is_absolute() else Path(path).parent / entry.jwks_file
                entry.keys = _read_jwks(file)
            entries[iss] = entry
    return TrustStore(entries, timeout=timeout)
