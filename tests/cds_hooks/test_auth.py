"""JWT checks with real keys generated in the test: what passes and what is refused."""

from __future__ import annotations

import base64
import json
import logging
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from medeventgraph.cds_hooks.services import VERIFY
from medeventgraph.cds_hooks.trust import load_trust_store

from .conftest import ISSUER, assert_outcome

QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


def _body(patient: dict) -> dict:
    return {"hook": "medeventgraph-verify", "hookInstance": "auth-test",
            "context": {"patientId": patient["id"], "query": QUERY}, "prefetch": {"patient": patient}}


@pytest.fixture(scope="module")
def body() -> dict:
    # Every other prefetch key null and no fhirServer would be 412; keys all present, empty.
    b = _body({"resourceType": "Patient", "id": "auth-1"})
    for key in ("encounters", "observations", "medicationAdministrations", "medicationRequests", "conditions",
                "procedures", "documents"):
        b["prefetch"][key] = {"resourceType": "Bundle", "type": "searchset", "entry": []}
    return b


def _b64(d: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()


@pytest.mark.parametrize("alg", ["ES384", "RS384"])
def test_valid_tokens_pass(service, body, alg):
    resp = service.post(VERIFY, body, token=service.keys.token(service.url(VERIFY), alg=alg))
    assert resp.status_code == 200, resp.text


def test_iat_slightly_in_the_future_is_accepted(service, body):
    now = int(time.time())
    token = service.keys.token(service.url(VERIFY), iat=now + 3, exp=now + 300)
    assert service.post(VERIFY, body, token=token).status_code == 200


def test_wrong_aud(service, body):
    for aud in (service.url(VERIFY).replace("127.0.0.1", "localhost"), service.url(), service.url(VERIFY) + "/"):
        assert_outcome(service.post(VERIFY, body, token=service.keys.token(aud)), 401)


def test_expired(service, body):
    now = int(time.time())
    token = service.keys.token(service.url(VERIFY), iat=now - 900, exp=now - 600)
    out = assert_outcome(service.post(VERIFY, body, token=token), 401)
    assert "expired" in out["issue"][0]["diagnostics"]


def test_replayed_jti(service, body):
    token = service.keys.token(service.url(VERIFY))
    assert service.post(VERIFY, body, token=token).status_code == 200
    out = assert_outcome(service.post(VERIFY, body, token=token), 401)
    assert "replay" in out["issue"][0]["diagnostics"]


def test_alg_none(service, body):
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": service.url(VERIFY), "iat": now, "exp": now + 300, "jti": "none-1"}
    token = f"{_b64({'alg': 'none', 'typ': 'JWT', 'kid': 'test-es384'})}.{_b64(claims)}."
    assert_outcome(service.post(VERIFY, body, token=token), 401)


def test_hs256_signed_with_the_public_key_is_refused(service, body):
    # The classic key-confusion attack: HMAC keyed with the (public) verification key bytes.
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": service.url(VERIFY), "iat": now, "exp": now + 300, "jti": "hs-1"}
    token = jwt.encode(claims, "a-shared-secret-nobody-configured-32b", algorithm="HS256",
                       headers={"kid": "test-es384"})
    assert_outcome(service.post(VERIFY, body, token=token), 401)


def test_unknown_issuer(service, body):
    token = service.keys.token(service.url(VERIFY), iss="https://evil.example")
    assert_outcome(service.post(VERIFY, body, token=token), 401)


def test_key_not_of_the_issuer(service, body):
    other = ec.generate_private_key(ec.SECP384R1())
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": service.url(VERIFY), "iat": now, "exp": now + 300, "jti": "other-1"}
    token = jwt.encode(claims, other, algorithm="ES384", headers={"kid": "test-es384"})
    assert_outcome(service.post(VERIFY, body, token=token), 401)


def test_jku_is_not_followed_unless_allowed(service, body):
    other = ec.generate_private_key(ec.SECP384R1())
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": service.url(VERIFY), "iat": now, "exp": now + 300, "jti": "jku-1"}
    token = jwt.encode(claims, other, algorithm="ES384",
                       headers={"kid": "attacker", "jku": "https://attacker.example/jwks.json"})
    assert_outcome(service.post(VERIFY, body, token=token), 401)


def test_missing_token_and_missing_claims(service, body):
    assert_outcome(service.post(VERIFY, body, auth=False), 401)
    now = int(time.time())
    token = jwt.encode({"iss": ISSUER, "aud": service.url(VERIFY), "iat": now, "exp": now + 300},
                       service.keys.es384, algorithm="ES384", headers={"kid": "test-es384"})
    assert_outcome(service.post(VERIFY, body, token=token), 401)  # no jti


def test_sandbox_trust_entry_is_shipped():
    store = load_trust_store(None)
    assert store.trusts("https://sandbox.cds-hooks.org")
    keys = store.signing_keys("https://sandbox.cds-hooks.org", "44823f3d-0b01-4a6c-a80e-b9d3e8a7226f", None)
    assert len(keys) == 1 and keys[0].key_type == "EC"


def test_jwt_off_only_with_the_flag_and_loudly(start_service, body, caplog):
    with caplog.at_level(logging.WARNING, logger="medeventgraph.cds_hooks"):
        svc = start_service(jwt_required=False)
    assert any("JWT CHECKS ARE OFF" in r.getMessage() for r in caplog.records)
    assert svc.post(VERIFY, body, auth=False).status_code == 200
    # a token that is sent is still checked
    assert svc.post(VERIFY, body, token="garbage").status_code == 401
