"""Work per request: past MEG_REQUEST_DEADLINE_SECONDS a call answers 503, the service keeps
answering meanwhile, and the abandoned computation stops at its next stage (issue 10)."""

from __future__ import annotations

import threading
import time
from typing import Any

from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH
from medeventgraph.cds_hooks.services import VERIFY

from .conftest import assert_outcome

PID = "slow-1"
QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


def _body(n: int) -> dict[str, Any]:
    """A verify call for a record of n creatinine rows."""
    subject = {"reference": f"Patient/{PID}"}
    rows = [{"resource": {"resourceType": "Observation", "id": f"o{i}", "status": "final", "subject": subject,
                          "code": {"text": f"creatinine {i % 50}"}, "valueQuantity": {"value": 1.0 + i % 7},
                          "effectiveDateTime": f"2015-{1 + i % 12:02d}-{1 + i % 28:02d}T06:00:00Z"}}
            for i in range(n)]
    prefetch: dict[str, Any] = {key: {"resourceType": "Bundle", "entry": []} for key in PATIENT_PREFETCH}
    prefetch["patient"] = {"resourceType": "Patient", "id": PID}
    prefetch["observations"] = {"resourceType": "Bundle", "entry": rows}
    return {"hook": "medeventgraph-verify", "hookInstance": "slow", "context": {"patientId": PID, "query": QUERY},
            "prefetch": prefetch}


def _hold_ingest(engine) -> threading.Event:
    """Make the next ingest wait until the returned event is set: a computation as slow as the test
    needs, whatever the machine's speed (ordering by events, not by durations)."""
    release = threading.Event()
    real = engine.index_for

    def held(*args: Any) -> Any:
        release.wait(timeout=300)
        return real(*args)

    engine.index_for = held
    return release


def _until(predicate, what: str, limit: float = 120.0) -> None:
    """Wait for a state change (not a duration): fails only if it never comes."""
    give_up = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < give_up, f"never: {what}"
        time.sleep(0.01)


def test_past_the_deadline_503_while_discovery_is_answered(start_service):
    svc = start_service(request_deadline_seconds=1.0, notes=False, verify_workers=1)
    engine = svc.app.state.meg.engine
    workers, cache = engine.workers, engine.cache
    release = _hold_ingest(engine)
    answer: dict[str, Any] = {}
    slow = threading.Thread(target=lambda: answer.update(resp=svc.post(VERIFY, _body(50))))
    slow.start()
    _until(lambda: workers.running() == 1, "the verification started")
    discovery = svc.http.get(svc.url())
    assert discovery.status_code == 200 and discovery.json()["services"]
    assert workers.running() == 1  # answered while the verification runs
    slow.join(timeout=300)
    body = assert_outcome(answer["resp"], 503)
    [issue] = body["issue"]
    assert issue["code"] == "timeout" and "MEG_REQUEST_DEADLINE_SECONDS" in issue["diagnostics"]
    assert answer["resp"].headers["Retry-After"]
    assert workers.running() == 1  # still computing after its caller got the 503
    release.set()
    # the abandoned computation stops at its next checkpoint and leaves no build gate behind
    _until(lambda: workers.running() == 0, "the abandoned computation stopped")
    assert cache.building() == 0


def test_calls_queued_past_their_deadline_never_start(start_service):
    svc = start_service(request_deadline_seconds=1.0, notes=False, verify_workers=1)
    engine = svc.app.state.meg.engine
    workers = engine.workers
    release = _hold_ingest(engine)
    answers: list[Any] = []
    slow = threading.Thread(target=lambda: answers.append(svc.post(VERIFY, _body(50))))
    slow.start()
    _until(lambda: workers.running() == 1, "the slow verification started")
    # small calls, queued behind it on the only worker: their deadlines pass while they wait
    queued = [threading.Thread(target=lambda: answers.append(svc.post(VERIFY, _body(5)))) for _ in range(2)]
    for t in queued:
        t.start()
    for t in [slow, *queued]:
        t.join(timeout=300)
    assert [r.status_code for r in answers] == [503, 503, 503]
    release.set()
    _until(lambda: workers.running() == 0, "the computation stopped")
    assert workers.started() == 1  # the queued calls never started


def test_within_the_deadline_the_answer_is_cards(start_service):
    svc = start_service(request_deadline_seconds=120.0, notes=False)
    resp = svc.post(VERIFY, _body(50))
    assert resp.status_code == 200 and resp.json()["cards"]
