"""JWT checks with real keys generated in the test: what passes and what is refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
import uuid

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from medeventgraph.cds_hooks.auth.trust import load_trust_store
from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH
from medeventgraph.cds_hooks.services import VERIFY

from .conftest import ISSUER, assert_outcome

QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


def _body(patient: dict) -> dict:
    return {"hook": "medeventgraph-verify", "hookInstance": "auth-test",
            "context": {"patientId": patient["id"], "query": QUERY}, "prefetch": {"patient": patient}}


def minimal_body() -> dict:
    """A verify call that needs no FHIR server: every prefetch key present, empty (a missing key
    and no fhirServer would be 412)."""
    b = _body({"resourceType": "Patient", "id": "auth-1"})
    for key in PATIENT_PREFETCH.keys() - {"patient"}:
        b["prefetch"][key] = {"resourceType": "Bundle", "type": "searchset", "entry": []}
    return b


@pytest.fixture(scope="module")
def body() -> dict:
    return minimal_body()


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


# --- the attack suite: each token below is refused, and the diagnostics name the rule -------------

def _claims(service, **over) -> dict:
    now = int(time.time())
    return {"iss": ISSUER, "aud": service.url(VERIFY), "iat": now, "exp": now + 300,
            "jti": str(uuid.uuid4()), **over}


def _signed(service, claims: dict, *, alg: str = "ES384", **headers) -> str:
    key = service.keys.es384 if alg == "ES384" else service.keys.rs384
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": service.keys.kids[alg], **headers})


def _token_values(token: str) -> list[str]:
    """The token, its parts, and every header and claim value in it (string or number)."""
    values = [token, *(part for part in token.split(".") if len(part) > 8)]
    for part in token.split(".")[:2]:
        try:
            decoded = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        except ValueError:
            continue
        if isinstance(decoded, dict):
            values.extend(str(v) for v in decoded.values()
                          if isinstance(v, str | int | float) and not isinstance(v, bool) and len(str(v)) >= 4)
    return values


def _refused(service, token: str, reason: str, service_id: str = VERIFY) -> None:
    resp = service.post(service_id, minimal_body(), token=token)
    out = assert_outcome(resp, 401)
    assert reason in out["issue"][0]["diagnostics"], out
    # Refusals name the rule, never the token: no part of it, no header or claim value.
    leaked = [v for v in _token_values(token) if v in resp.text]
    assert not leaked, (leaked, resp.text)


def _hmac_token(header: dict, claims: dict, secret: bytes) -> str:
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384}[header["alg"]]
    signing_input = f"{_b64(header)}.{_b64(claims)}".encode()
    sig = base64.urlsafe_b64encode(hmac.new(secret, signing_input, digest).digest()).rstrip(b"=")
    return f"{signing_input.decode()}.{sig.decode()}"


@pytest.mark.parametrize("alg", ["none", "None", "NONE"])
def test_alg_none_spellings(service, alg):
    token = f"{_b64({'alg': alg, 'typ': 'JWT', 'kid': 'test-es384'})}.{_b64(_claims(service))}."
    _refused(service, token, "alg must be one of")


@pytest.mark.parametrize("alg", ["HS256", "HS384"])
@pytest.mark.parametrize("which", ["ES384", "RS384"])
def test_hmac_keyed_with_the_public_key(service, alg, which):
    # Key confusion: HMAC with the issuer's public key (PEM and JWK bytes) as the shared secret.
    public = (service.keys.es384 if which == "ES384" else service.keys.rs384).public_key()
    pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    jwk = jwt.algorithms.get_default_algorithms()[which].to_jwk(public).encode()
    for secret in (pem, jwk):
        header = {"alg": alg, "typ": "JWT", "kid": service.keys.kids[which]}
        _refused(service, _hmac_token(header, _claims(service), secret), "alg must be one of")


def test_aud_variants(service):
    url = service.url(VERIFY)
    scheme, rest = url.split("://", 1)
    host_port, path = rest.split("/", 1)
    host, port = host_port.split(":")
    variants = [
        "https://" + rest,                                    # scheme
        f"{scheme}://localhost:{port}/{path}",                # localhost vs 127.0.0.1
        f"{scheme}://127.0.0.2:{port}/{path}",                # host
        f"{scheme}://{host}:{int(port) + 1}/{path}",          # port
        f"{scheme}://{host}/{path}",                          # port dropped
        url + "/",                                            # trailing slash
        url.upper(),                                          # case
        service.url(),                                        # discovery path
        service.url("medeventgraph-patient-view"),            # another service
        url + "?x=1",                                         # query
        [service.url("medeventgraph-order-sign")],            # list without the called URL
    ]
    for aud in variants:
        _refused(service, _signed(service, _claims(service, aud=aud)), "aud does not equal")


@pytest.mark.parametrize(("exp", "reason"), [
    ("EXP_NOW", "exp must be a NumericDate"),       # a numeric string: PyJWT alone would take it
    ("9999999999", "exp must be a NumericDate"),
    (True, "exp must be a NumericDate"),
    (None, "exp must be a NumericDate"),
    ([1], "exp must be a NumericDate"),
    (10 ** 30, "exp is out of range"),
    (1e308, "exp is out of range"),
    (-1, "exp is out of range"),
])
def test_exp_must_be_a_numeric_date(service, exp, reason):
    exp = str(int(time.time()) + 300) if exp == "EXP_NOW" else exp
    _refused(service, _signed(service, _claims(service, exp=exp)), reason)


def test_long_lived_tokens_are_refused(service):
    now = int(time.time())
    cap = service.settings.jwt_max_lifetime_seconds
    assert cap == 3600  # the default
    _refused(service, _signed(service, _claims(service, iat=now, exp=now + 10 * 365 * 86400)), "lifetime")
    _refused(service, _signed(service, _claims(service, iat=now - 100, exp=now + cap - 99)), "lifetime")
    # exactly the cap is accepted
    token = _signed(service, _claims(service, iat=now - 100, exp=now + cap - 100))
    assert service.post(VERIFY, minimal_body(), token=token).status_code == 200


def test_lifetime_cap_is_configurable(start_service):
    svc = start_service(jwt_max_lifetime_seconds=120)
    now = int(time.time())
    _refused(svc, _signed(svc, _claims(svc, iat=now, exp=now + 300)), "exceeds 120 s")
    assert svc.post(VERIFY, minimal_body(), token=_signed(svc, _claims(svc, exp=now + 120))).status_code == 200


@pytest.mark.parametrize(("iat", "reason"), [
    ("FUTURE", "iat is in the future"),
    ("STRING", "iat must be a NumericDate"),
    ("MISSING", "missing claim iat"),
])
def test_iat_rules(service, iat, reason):
    now = int(time.time())
    claims = _claims(service)
    if iat == "FUTURE":
        claims.update(iat=now + 120, exp=now + 300)  # beyond the 10 s leeway
    elif iat == "STRING":
        claims["iat"] = str(now)
    else:
        del claims["iat"]
    _refused(service, _signed(service, claims), reason)


def test_missing_exp(service):
    claims = _claims(service)
    del claims["exp"]
    _refused(service, _signed(service, claims), "missing claim exp")


@pytest.mark.parametrize("jti", ["MISSING", "", 5, "x" * 257])
def test_bad_jti(service, jti):
    claims = _claims(service)
    if jti == "MISSING":
        del claims["jti"]
    else:
        claims["jti"] = jti
    _refused(service, _signed(service, claims), "jti must be")


def test_replay_with_rs384_too(service):
    token = _signed(service, _claims(service), alg="RS384")
    assert service.post(VERIFY, minimal_body(), token=token).status_code == 200
    _refused(service, token, "replay")


def test_unknown_or_missing_issuer_and_kid(service):
    claims = _claims(service)
    del claims["iss"]
    _refused(service, _signed(service, claims), "issuer is not trusted")
    _refused(service, _signed(service, _claims(service, iss=ISSUER + "/")), "issuer is not trusted")
    _refused(service, _signed(service, _claims(service), kid="no-such-kid"), "no trusted key")
    # an ES384 token naming the RSA key's kid finds no key of the right type
    _refused(service, _signed(service, _claims(service), kid=service.keys.kids["RS384"]), "no trusted key")


def test_tampering(service):
    token = _signed(service, _claims(service))
    head, payload, sig = token.split(".")
    # a payload swapped for another audience, signature kept
    other = _b64(_claims(service, aud=service.url("medeventgraph-order-sign")))
    _refused(service, f"{head}.{other}.{sig}", "signature does not verify")
    # one flipped byte in the signature
    raw = bytearray(base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4)))
    raw[10] ^= 0x01
    flipped = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    _refused(service, f"{head}.{payload}.{flipped}", "signature does not verify")
    # header switched to RS384 with the ES384 signature
    rs_head = _b64({"alg": "RS384", "typ": "JWT", "kid": service.keys.kids["RS384"]})
    _refused(service, f"{rs_head}.{payload}.{sig}", "signature does not verify")
    # and the untouched token still passes (so the refusals above are about the tampering)
    assert service.post(VERIFY, minimal_body(), token=token).status_code == 200


def test_cross_service_replay(service):
    token = _signed(service, _claims(service))
    assert service.post(VERIFY, minimal_body(), token=token).status_code == 200
    for other in ("medeventgraph-patient-view", "medeventgraph-order-sign"):
        _refused(service, token, "aud does not equal", other)
    # and one never used at its own service is refused elsewhere too
    fresh = _signed(service, _claims(service))
    _refused(service, fresh, "aud does not equal", "medeventgraph-order-select")
