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
from pathlib import Path
from typing import Any

import httpx
import jwt
from medeventgraph.cds_hooks.auth.jku import key_set_url_problem, normalise_key_set_url
from medeventgraph.model.packaged import packaged_object
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

__all__ = ["TrustEntry", "TrustFileError", "TrustStore", "load_trust_store"]

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
            for i, url in enumerate(value):
                problem = key_set_url_problem(url)
                if problem is not None:
                    raise ValueError(f"jku_allowed[{i}] {problem}; list the exact key-set URLs a token's jku may "
                                     "name (https; nothing after '?' or '#', no userinfo, no dot-segments; http "
                                     "only to loopback)")
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


class TrustFileError(ValueError):
    """A trusted-issuers file the service cannot start with; the message names the file, the
    issuer and the rule broken (issuers are shown JSON-quoted, so any string prints safely)."""


def _rule(exc: ValidationError) -> str:
    """The first rule a TrustEntry broke, as `field: rule` (a validator's own words as written)."""
    err = exc.errors(include_url=False, include_input=False)[0]
    # loc: field names (an unknown one included) and list indices; union-member tags
    # ("list[str]", "bool") are not places
    unknown = err.get("type") == "extra_forbidden"
    loc = ".".join(str(p) for p in err.get("loc", ()) if isinstance(p, int) or p in TrustEntry.model_fields or unknown)
    error = (err.get("ctx") or {}).get("error")
    rule = str(error) if err.get("type") == "value_error" and error is not None else str(err.get("msg"))
    return f"{loc}: {rule}" if loc and not rule.startswith(loc) else rule


def _read_jwks(path: Path, where: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TrustFileError(f"{where}: jwks_file {path} cannot be read ({type(exc).__name__})") from None
    except ValueError:
        raise TrustFileError(f"{where}: jwks_file {path} is not JSON") from None
    keys = data.get("keys") if isinstance(data, dict) else None
    if not isinstance(keys, list):
        raise TrustFileError(f"{where}: jwks_file {path} is not a JWK Set (an object with a \"keys\" array)")
    return [k for k in keys if isinstance(k, dict)]


def _read_entries(path: Path) -> dict[str, TrustEntry | None]:
    """The file's issuers and entries, each checked on its own so an error names its issuer."""
    where = f"trusted-issuers file {path}"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TrustFileError(f"{where}: cannot be read ({type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise TrustFileError(f"{where}: is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise TrustFileError(f"{where}: is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(raw, dict):
        raise TrustFileError(f"{where}: must be a JSON object mapping each issuer (iss) to its entry or null")
    entries: dict[str, TrustEntry | None] = {}
    for iss, value in raw.items():
        at = f"{where}: issuer {json.dumps(iss)}"
        if value is not None and not isinstance(value, dict):
            raise TrustFileError(f"{at}: the entry must be an object (jwks_file, jwks_url, jku_allowed, note) "
                                 "or null")
        try:
            entry = None if value is None else TrustEntry.model_validate(value)
        except ValidationError as exc:
            raise TrustFileError(f"{at}: {_rule(exc)}") from None
        if entry is not None and entry.jwks_file is not None:
            file = entry.jwks_file if entry.jwks_file.is_absolute() else path.parent / entry.jwks_file
            entry.keys = _read_jwks(file, at)
        entries[iss] = entry
    return entries


def _default_entries() -> dict[str, TrustEntry]:
    raw = packaged_object("medeventgraph.cds_hooks", "trusted_issuers.json")
    out = {}
    for iss, entry in _ENTRIES.validate_python(raw).items():
        if entry is None:
            continue
        if entry.jwks_file is not None:
            entry.keys = packaged_object("medeventgraph.cds_hooks", str(entry.jwks_file))["keys"]
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
                log.warning("unusable key in JWKS for a trusted issuer (kid %r)", jwk.get("kid"))  # %r: any text prints
        return out


def load_trust_store(path: Path | None, *, timeout: float = 5.0) -> TrustStore:
    """The shipped entries (the public CDS Hooks sandbox), overridden by `path` when given.

    In the file an issuer mapped to null is removed, e.g. to stop trusting the sandbox.
    `jwks_file` paths are relative to the file's folder. A file that breaks a rule raises
    TrustFileError naming the file, the issuer and the rule.
    """
    entries = _default_entries()
    if path is not None:
        for iss, entry in _read_entries(Path(path)).items():
            if entry is None:
                entries.pop(iss, None)
            else:
                entries[iss] = entry
    return TrustStore(entries, timeout=timeout)
