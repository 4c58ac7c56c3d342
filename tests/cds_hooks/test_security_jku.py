"""jku: only an exactly allowlisted key-set URL is ever fetched, proved against a real loopback
key server that also serves an attacker's key set at the path a traversal would reach."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from medeventgraph.cds_hooks.auth.trust import TrustFileError, load_trust_store
from medeventgraph.cds_hooks.services import VERIFY

from .conftest import REPO, assert_outcome
from .test_auth import minimal_body

CLOUD = "https://cloud-ehr.test.example"


def _jwks(key: ec.EllipticCurvePrivateKey, kid: str) -> bytes:
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    return json.dumps({"keys": [{**jwk, "kid": kid, "alg": "ES384", "use": "sig"}]}).encode()


class KeyServer:
    """Serves the issuer's key set at /allowed/jwks.json and the attacker's at /evil/jwks.json,
    and records every path requested."""

    def __init__(self) -> None:
        self.good = ec.generate_private_key(ec.SECP384R1())
        self.evil = ec.generate_private_key(ec.SECP384R1())
        self.requested: list[str] = []
        routes = {"/allowed/jwks.json": _jwks(self.good, "k1"), "/evil/jwks.json": _jwks(self.evil, "k1")}
        requested = self.requested

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requested.append(self.path)
                if self.path == "/allowed/moved.json":
                    self.send_response(302)
                    self.send_header("Location", "/evil/jwks.json")
                    self.end_headers()
                    return
                body = routes.get(self.path)
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body or b"{}")

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture(scope="module")
def key_server() -> Iterator[KeyServer]:
    ks = KeyServer()
    thread = threading.Thread(target=ks.httpd.serve_forever, daemon=True)
    thread.start()
    yield ks
    ks.httpd.shutdown()


@pytest.fixture()
def cloud_service(start_service, key_server: KeyServer, tmp_path: Path):
    trust = tmp_path / "trusted_issuers.json"
    allowed = [key_server.base + "/allowed/jwks.json", key_server.base + "/allowed/moved.json"]
    trust.write_text(json.dumps({CLOUD: {"jku_allowed": allowed}}))
    key_server.requested.clear()
    return start_service(trusted_issuers_file=trust)


def _token(aud: str, key: ec.EllipticCurvePrivateKey, jku: str, **over) -> str:
    now = int(time.time())
    claims = {"iss": CLOUD, "aud": aud, "iat": now, "exp": now + 300, "jti": str(uuid.uuid4()), **over}
    return jwt.encode(claims, key, algorithm="ES384", headers={"kid": "k1", "jku": jku})


def test_the_allowlisted_jku_is_fetched_and_trusted(cloud_service, key_server):
    token = _token(cloud_service.url(VERIFY), key_server.good, key_server.base + "/allowed/jwks.json")
    assert cloud_service.post(VERIFY, minimal_body(), token=token).status_code == 200
    assert key_server.requested == ["/allowed/jwks.json"]


@pytest.mark.parametrize("path", [
    "/allowed/jwks.json/../../evil/jwks.json",  # passed the old prefix check, collapsed by httpx
    "/allowed/../evil/jwks.json",
    "/allowed/./../evil/jwks.json",
    "/allowed/%2e%2e/evil/jwks.json",
    "/allowed/%2E%2E%2Fevil/jwks.json",
    "/allowed\\..\\evil/jwks.json",
    "/allowed/jwks.json?u=/evil/jwks.json",
    "/allowed/jwks.json#/../../evil/jwks.json",
    "//evil/jwks.json",
    "/evil/jwks.json",
])
def test_traversal_and_tricks_never_fetch_the_attacker_keys(cloud_service, key_server, path):
    token = _token(cloud_service.url(VERIFY), key_server.evil, key_server.base + path)
    out = assert_outcome(cloud_service.post(VERIFY, minimal_body(), token=token), 401)
    assert "no trusted key" in out["issue"][0]["diagnostics"]
    assert not any("evil" in p for p in key_server.requested), key_server.requested


def test_a_redirect_from_an_allowed_url_is_not_followed(cloud_service, key_server):
    token = _token(cloud_service.url(VERIFY), key_server.evil, key_server.base + "/allowed/moved.json")
    assert_outcome(cloud_service.post(VERIFY, minimal_body(), token=token), 401)
    assert key_server.requested == ["/allowed/moved.json"]


def test_a_malformed_token_fetches_no_key_set(cloud_service, key_server):
    jku = key_server.base + "/allowed/jwks.json"
    for over in ({"exp": "9999999999"}, {"iat": None}, {"jti": ""}):
        token = _token(cloud_service.url(VERIFY), key_server.good, jku, **over)
        assert_outcome(cloud_service.post(VERIFY, minimal_body(), token=token), 401)
    assert key_server.requested == []


@pytest.mark.parametrize("jku", [
    "http://attacker@{host}/allowed/jwks.json",
    "http://{host}@attacker.example/allowed/jwks.json",
    "https://attacker.example/allowed/jwks.json",
    "http://localhost:{port}/evil/jwks.json",
    "http://{host}/allowed/jwks.json ",
])
def test_userinfo_and_other_hosts_are_refused(cloud_service, key_server, jku):
    host = key_server.base.removeprefix("http://")
    url = jku.format(host=host, port=host.rsplit(":", 1)[1])
    token = _token(cloud_service.url(VERIFY), key_server.evil, url)
    assert_outcome(cloud_service.post(VERIFY, minimal_body(), token=token), 401)
    assert not any("evil" in p for p in key_server.requested), key_server.requested


def test_equivalent_spelling_fetches_the_configured_url(cloud_service, key_server):
    # Scheme and host case and a default port are normalised; what is fetched is the configured string.
    token = _token(cloud_service.url(VERIFY), key_server.good,
                   key_server.base.replace("http://", "HTTP://") + "/allowed/jwks.json")
    assert cloud_service.post(VERIFY, minimal_body(), token=token).status_code == 200
    assert key_server.requested == ["/allowed/jwks.json"]


@pytest.mark.parametrize("entry", [
    {"jku_allowed": True},
    {"jku_allowed": ["https://cloud-ehr.example.org/keys/"]},  # a prefix, the old meaning
    {"jku_allowed": ["https://cloud-ehr.example.org/keys/../jwks.json"]},
    {"jku_allowed": ["http://cloud-ehr.example.org/jwks.json"]},  # plain http off loopback
    {"jku_allowed": ["https://cloud-ehr.example.org/jwks.json?v=1"]},
])
def test_config_must_name_exact_https_key_set_urls(tmp_path, entry):
    trust = tmp_path / "trusted_issuers.json"
    trust.write_text(json.dumps({CLOUD: entry}))
    with pytest.raises(TrustFileError, match="jku_allowed"):
        load_trust_store(trust)


def test_readme_trust_example_is_a_valid_config(tmp_path):
    page = (REPO / "docs" / "cds-hooks.md").read_text()  # the CDS Hooks section moved there from the README
    section = page[page.index("## Trust (JWT)"):]
    example = re.search(r"```json\n(.*?)```", section, re.DOTALL).group(1)
    (tmp_path / "trusted_issuers.json").write_text(example)
    (tmp_path / "ehr-jwks.json").write_text('{"keys": []}')
    store = load_trust_store(tmp_path / "trusted_issuers.json")
    for iss, entry in store.entries.items():
        for url in entry.jku_allowed or []:
            assert entry.allowed_jku(url) == url, iss
