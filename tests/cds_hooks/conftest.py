"""Fixtures for the CDS Hooks tests: a real FHIR server process, real keys, and the real
service under uvicorn on a free loopback port, called over HTTP with httpx."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from medeventgraph.app import serving
from medeventgraph.cds_hooks import create_app
from medeventgraph.model.settings import Settings

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
ISSUER = "https://ehr.test.example"
SMART_URL = "https://apps.example.org/medeventgraph/launch"


@dataclass
class Keys:
    es384: ec.EllipticCurvePrivateKey
    rs384: rsa.RSAPrivateKey
    trust_file: Path
    kids: dict[str, str] = field(default_factory=lambda: {"ES384": "test-es384", "RS384": "test-rs384"})

    def token(self, aud: str, *, alg: str = "ES384", iss: str = ISSUER, **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": iss, "aud": aud, "iat": now, "exp": now + 300, "jti": str(uuid.uuid4()), **claims}
        key = self.es384 if alg == "ES384" else self.rs384
        return jwt.encode(body, key, algorithm=alg, headers={"kid": self.kids[alg]})


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    folder = tmp_path_factory.mktemp("trust")
    es = ec.generate_private_key(ec.SECP384R1())
    rs = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    k = Keys(es, rs, folder / "trusted_issuers.json")
    jwks = []
    for alg, key in (("ES384", es), ("RS384", rs)):
        algo = jwt.algorithms.get_default_algorithms()[alg]
        jwk = json.loads(algo.to_jwk(key.public_key()))
        jwks.append({**jwk, "kid": k.kids[alg], "alg": alg, "use": "sig"})
    (folder / "ehr-jwks.json").write_text(json.dumps({"keys": jwks}))
    k.trust_file.write_text(json.dumps({ISSUER: {"jwks_file": "ehr-jwks.json"}}))
    return k


@dataclass
class Running:
    base: str
    app: Any
    settings: Settings
    keys: Keys
    http: httpx.Client

    def url(self, service: str = "") -> str:
        return f"{self.base}/cds-services" + (f"/{service}" if service else "")

    def post(self, service: str, body: Any, *, token: str | None = None, auth: bool = True) -> httpx.Response:
        url = self.url(service)
        headers = {}
        if auth:
            headers["Authorization"] = f"Bearer {token or self.keys.token(url)}"
        if isinstance(body, (bytes, str)):
            return self.http.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
        return self.http.post(url, json=body, headers=headers)


@contextmanager
def _serve(settings_kwargs: dict[str, Any]) -> Iterator[tuple[str, Any, Settings]]:
    made: dict[str, Settings] = {}

    # The FHIR test server and the verifier share 2 cores with the rest of the suite: generous
    # bounds here, so that only the tests of those bounds (which set their own) ever hit them.
    bounds = {"fhir_timeout_seconds": 120, "request_deadline_seconds": 600}

    def make(base: str) -> Any:
        made["settings"] = Settings(public_base_url=base, **{**bounds, **settings_kwargs})
        return create_app(made["settings"])

    with serving(make) as (base, app):
        yield base, app, made["settings"]


@pytest.fixture(scope="session")
def service(keys: Keys, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("service")
    kwargs = {"trusted_issuers_file": keys.trust_file, "feedback_log": folder / "feedback.jsonl",
                  "smart_app_url": SMART_URL, "fhir_max_pages": 20, "cors_origins": ["https://sandbox.cds-hooks.org"]}
    with _serve(kwargs) as (base, app, settings), httpx.Client(timeout=120) as http:
        yield Running(base, app, settings, keys, http)


@pytest.fixture()
def start_service(keys: Keys):
    """Start another service with other settings (torn down after the test)."""
    with ExitStack() as stack:

        def start(**kwargs: Any) -> Running:
            base, app, settings = stack.enter_context(_serve({"trusted_issuers_file": keys.trust_file, **kwargs}))
            return Running(base, app, settings, keys, stack.enter_context(httpx.Client(timeout=120)))

        yield start


def assert_card_ok(card: dict[str, Any]) -> None:
    """The CDS Hooks 2.0 card rules."""
    assert isinstance(card.get("summary"), str) and 0 < len(card["summary"]) < 140
    assert card.get("indicator") in ("info", "warning", "critical")
    assert isinstance(card.get("source"), dict) and card["source"].get("label")
    if card.get("suggestions"):
        assert card.get("selectionBehavior") in ("at-most-one", "any")
    assert isinstance(card.get("uuid"), str)
    for link in card.get("links") or []:
        assert link["type"] in ("absolute", "smart") and link["label"] and link["url"]


def assert_outcome(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["resourceType"] == "OperationOutcome" and body["issue"], body
    return body
