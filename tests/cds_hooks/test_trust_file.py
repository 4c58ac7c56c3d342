"""A trusted-issuers file that breaks a rule stops the service at start-up with a message naming
the file, the issuer and the rule, never as "invalid query" (issue 22)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from medeventgraph.cds_hooks.auth.trust import TrustFileError, load_trust_store

ISS = "https://cloud-ehr.test.example"


@pytest.mark.parametrize(("content", "rule"), [
    ({ISS: {"jku_allowed": [f"{ISS}/keys/"]}}, "jku_allowed[0] ends with '/': a prefix"),
    ({ISS: {"jku_allowed": [f"{ISS}/jwks.json", f"{ISS}/a/../jwks.json"]}}, "jku_allowed[1] has dot-segments"),
    ({ISS: {"jku_allowed": [f"{ISS}/jwks.json?v=1"]}}, "jku_allowed[0] has a '?' or '#' part"),
    ({ISS: {"jku_allowed": ["http://cloud-ehr.test.example/jwks.json"]}}, "plain http to a host other than loopback"),
    ({ISS: {"jku_allowed": True}}, "jku_allowed: true (any URL) is not supported"),
    ({ISS: {"jku_allowed": "https://x.example/jwks.json"}}, "jku_allowed: Input should be a valid list"),
    ({ISS: {"jwks_fil": "a.json"}}, "jwks_fil: Extra inputs are not permitted"),
    ({ISS: {}}, "needs jwks_file, jwks_url or jku_allowed"),
    ({ISS: 5}, "the entry must be an object"),
    ({ISS: {"jwks_file": "missing.json"}}, "missing.json cannot be read (FileNotFoundError)"),
    ({ISS: {"jwks_file": "not-jwks.json"}}, "is not a JWK Set"),
])
def test_each_rule_is_named_with_the_file_and_the_issuer(tmp_path, content, rule):
    (tmp_path / "not-jwks.json").write_text('{"keys": 5}')
    path = tmp_path / "trusted_issuers.json"
    path.write_text(json.dumps({"https://fine.test.example": {"jwks_url": "https://fine.test.example/k"}, **content}))
    with pytest.raises(TrustFileError) as caught:
        load_trust_store(path)
    message = str(caught.value)
    assert message.startswith(f"trusted-issuers file {path}: issuer {json.dumps(ISS)}: "), message
    assert rule in message and "query" not in message.lower()


@pytest.mark.parametrize(("text", "rule"), [
    ('{"https://a.example": ', "is not JSON (Expecting value at line 1 column 23)"),
    ('["https://a.example"]', "must be a JSON object mapping each issuer"),
    (None, "cannot be read (FileNotFoundError)"),
])
def test_a_file_that_is_not_an_issuer_map(tmp_path, text, rule):
    path = tmp_path / "trusted_issuers.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(TrustFileError, match=r"^trusted-issuers file .*trusted_issuers\.json: ") as caught:
        load_trust_store(path)
    assert rule in str(caught.value)


def test_an_issuer_that_is_not_printable_text_is_shown_escaped(tmp_path):
    path = tmp_path / "trusted_issuers.json"
    path.write_text('{"https://a.example/\\ud800": {"jku_allowed": ["https://a.example/"]}}')
    with pytest.raises(TrustFileError) as caught:
        load_trust_store(path)
    assert 'issuer "https://a.example/\\ud800"' in str(caught.value)
    str(caught.value).encode("utf-8")  # printable on any terminal


def _serve(env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-m", "medeventgraph.cli", "serve", "--host", "127.0.0.1", "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=300, check=False)


def test_serve_refuses_to_start_naming_file_issuer_and_rule(tmp_path):
    path = tmp_path / "trusted_issuers.json"
    path.write_text(json.dumps({ISS: {"jku_allowed": [f"{ISS}/keys/"]}}))
    done = _serve({"MEG_TRUSTED_ISSUERS_FILE": str(path)})
    assert done.returncode == 2, done.stderr
    diagnostics = json.loads(done.stderr)["issue"][0]["diagnostics"]
    assert str(path) in diagnostics and json.dumps(ISS) in diagnostics and "a prefix" in diagnostics
    assert "query" not in done.stderr.lower() and "Traceback" not in done.stderr


def test_bad_settings_are_called_settings_not_a_query():
    done = _serve({"MEG_MAX_JSON_DEPTH": "3"})
    assert done.returncode == 2, done.stderr
    diagnostics = json.loads(done.stderr)["issue"][0]["diagnostics"]
    assert diagnostics.startswith("invalid settings") and "max_json_depth" in diagnostics
    assert "query" not in diagnostics.lower()
