"""The log of `medeventgraph serve`, captured from the real process: calls that read the patient
from the FHIR test server and one that fails inside leave no patient id, no request value and no
traceback in it; the failure is logged as an error id and an exception type."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from medeventgraph.cds_hooks.services import PATIENT_VIEW, VERIFY

from .conftest import assert_outcome

PATIENT = "meg-aki-1"  # tests/cds_hooks/data/meg-aki-patient.json, loaded into the FHIR test server
QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(proc: subprocess.Popen, url: str) -> None:
    deadline = time.monotonic() + 300  # a bound for a broken start, not a timing assertion
    while time.monotonic() < deadline:
        assert proc.poll() is None, "medeventgraph serve exited"
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("medeventgraph serve did not become ready")


@contextmanager
def logged_serve(env: dict[str, str], port: int, log_path: Path) -> Iterator[None]:
    """`medeventgraph serve` on loopback with its whole output in `log_path`, ready on entry,
    stopped with SIGINT (as a user stops it) on exit."""
    cmd = [sys.executable, "-m", "medeventgraph.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(cmd, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    try:
        _wait_ready(proc, f"http://127.0.0.1:{port}/cds-services")
        yield
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def test_serve_log_has_no_patient_ids_request_values_or_tracebacks(keys, fhir_server, tmp_path: Path):
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    env = {**os.environ, "MEG_TRUSTED_ISSUERS_FILE": str(keys.trust_file), "MEG_PUBLIC_BASE_URL": base,
           "MEG_FHIR_TIMEOUT_SECONDS": "120", "MEG_REQUEST_DEADLINE_SECONDS": "600", "MEG_NOTES": "false",
           # a feedback log that cannot be created: the feedback call fails inside the service
           "MEG_FEEDBACK_LOG": str(not_a_dir / "feedback.jsonl")}
    log_path = tmp_path / "serve.log"
    with logged_serve(env, port, log_path):
        marker = str(uuid.uuid4())
        auth = {"access_token": "opaque", "token_type": "Bearer", "expires_in": 300,
                "scope": "patient/*.read", "subject": "medeventgraph"}
        with httpx.Client(timeout=300) as http:
            for service_id, context in ((PATIENT_VIEW, {"userId": "Practitioner/1", "patientId": PATIENT}),
                                        (VERIFY, {"patientId": PATIENT, "query": QUERY})):
                url = f"{base}/cds-services/{service_id}"
                body = {"hook": "patient-view" if service_id == PATIENT_VIEW else "medeventgraph-verify",
                        "hookInstance": marker, "fhirServer": fhir_server, "fhirAuthorization": auth,
                        "context": context}
                resp = http.post(url, json=body, headers={"Authorization": f"Bearer {keys.token(url)}"})
                assert resp.status_code == 200, resp.text
            url = f"{base}/cds-services/{VERIFY}/feedback"
            feedback = {"feedback": [{"card": marker, "outcome": "accepted",
                                      "outcomeTimestamp": "2024-05-01T10:00:00Z"}]}
            resp = http.post(url, json=feedback, headers={"Authorization": f"Bearer {keys.token(url)}"})
            out = assert_outcome(resp, 500)
            error_id = out["issue"][0]["diagnostics"].split()[2].rstrip(";")
            # the connection survives the 500
            assert http.get(f"{base}/cds-services").status_code == 200
    log = log_path.read_text()
    assert re.search(rf"internal error {error_id}: \w+Error \(POST\)", log), log  # the log was captured
    assert PATIENT not in log, log
    assert marker not in log, log
    assert "Traceback" not in log and 'File "' not in log, log
    assert "HTTP Request" not in log and "/Patient" not in log and "fhir" not in log.lower(), log
