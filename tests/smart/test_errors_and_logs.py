"""The SMART page's 412 (launch patient not on the FHIR server) and 502 (the EHR's FHIR server
failing) as OperationOutcomes, and the log of `medeventgraph serve` after a launch, a verified
question and both failures: no patient id, encounter id, name, token or question in it."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

from ..cds_hooks.synthea import load_patient
from ..cds_hooks.test_security_logs import _free_port, logged_serve
from .conftest import CLIENT_ID, LANCE, LANCE_ENCOUNTER, Service, assert_outcome

QUESTION = "Was the patient given vancomycin after the lactate within the same encounter?"


@contextmanager
def _outage(ehr, *types: str):
    """The EHR's FHIR endpoint answers 503 for these resource types until the block ends."""
    ehr.failing_types.update(types)
    try:
        yield
    finally:
        ehr.failing_types.difference_update(types)


def _not_on_server(browser) -> dict:
    """Launched for a patient the EHR's FHIR server does not hold: 412, naming the problem."""
    resp = browser.verify({"question": QUESTION})
    out = assert_outcome(resp, 412)
    assert out["issue"][0]["code"] == "not-found"
    assert "launch patient is not on the FHIR server" in out["issue"][0]["diagnostics"]
    return out


def _fhir_down(browser) -> dict:
    with _outage(browser.service.ehr, "Observation"):
        resp = browser.verify({"question": QUESTION})
    out = assert_outcome(resp, 502)
    assert out["issue"][0]["code"] == "transient"
    assert out["issue"][0]["diagnostics"] == \
        "reading observations from the FHIR server failed: FHIR server answered HTTP 503"
    return out


def test_412_when_the_launch_patient_is_not_on_the_fhir_server(smart_service):
    out = _not_on_server(smart_service.browser().login(patient="meg-nobody-1", encounter=None))
    assert "meg-nobody-1" not in json.dumps(out)


def test_502_when_the_fhir_server_fails_and_the_session_survives_it(smart_service):
    browser = smart_service.browser().login(patient="meg-given-1", encounter=None)
    out = _fhir_down(browser)
    assert "meg-given-1" not in json.dumps(out)
    assert browser.verify({"question": QUESTION}).status_code == 200  # the outage over, the same session reads


def test_serve_log_has_nothing_from_the_record_on_the_smart_routes(ehr, synthea_dir, tmp_path: Path):
    _, by_type = load_patient(next(synthea_dir.glob(f"*{LANCE}.json")))
    name = by_type["Patient"][0]["name"][0]
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "MEG_PUBLIC_BASE_URL": base, "MEG_SMART_ALLOWED_ISSUERS": json.dumps([ehr.fhir_base]),
           "MEG_SMART_CLIENT_ID": CLIENT_ID, "MEG_FHIR_TIMEOUT_SECONDS": "120",
           "MEG_REQUEST_DEADLINE_SECONDS": "600", "MEG_NOTES": "false"}
    log_path = tmp_path / "serve.log"
    with logged_serve(env, port, log_path):
        service = Service(base=base, app=None, settings=None, ehr=ehr)  # type: ignore[arg-type]
        browser = service.browser().login()
        resp = browser.verify({"question": QUESTION})
        assert resp.status_code == 200, resp.text
        assert LANCE in resp.text  # the answer names the record; the log must not
        _fhir_down(browser)
        _not_on_server(service.browser().login(patient="meg-nobody-1", encounter=None))
    log = log_path.read_text()
    assert "SMART session started" in log, log  # the log was captured
    for value in (LANCE, LANCE_ENCOUNTER, "meg-nobody-1", name["family"], *name["given"], QUESTION, "vancomycin",
                  browser.csrf, *ehr.tokens):
        assert value not in log, (value, log)
    assert "Traceback" not in log and "/Patient" not in log and "fhir" not in log.lower(), log
