"""The optional LLM assessor against an OpenAI-compatible stub server (the one fake: a vLLM
server cannot run here). The stub records every request and answers judgments computed from
the request's own bundle payload by a per-test rule."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from medeventgraph.core.answer import verify_query
from medeventgraph.core.decide import assess_llm
from medeventgraph.core.decide.assess import assess
from medeventgraph.core.decide.assess_llm import LLMAssessor, bundle_payload
from medeventgraph.core.evidence.contract import EvidenceBundle, EvidenceItem, bundle_hash
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.occurrence import Assertion, EventTime, Granularity, Kind, Origin, SourceRef
from medeventgraph.model.settings import Settings

from .helpers import pair

PATIENT = "pt-do-not-send-7f3a"
UNIT = "Encounter/enc-1"
FORBIDDEN_KEYS = {"search", "score", "scores", "rank", "ranks", "R", "depth", "depths", "policy", "signals",
                  "memory", "patient", "rejected"}

Judge = Callable[[dict[str, Any]], list[dict[str, Any]]]


@dataclass
class Stub:
    requests: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "judge"  # judge | 500 | slow | malformed | schema
    judge: Judge = lambda payload: []
    base_url: str = ""


def _app(stub: Stub) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        stub.requests.append(body)
        if stub.mode == "500":
            return PlainTextResponse("internal error", status_code=500)
        if stub.mode == "slow":
            await asyncio.sleep(1.0)
        if stub.mode == "malformed":
            content = '{"judgments": [{"item": '
        elif stub.mode == "schema":
            content = json.dumps({"judgments": [{"item": "x", "relation": "r0", "polarity": "maybe"}]})
        else:
            content = json.dumps({"judgments": stub.judge(json.loads(body["messages"][1]["content"]))})
        return JSONResponse({
            "id": "chatcmpl-stub", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        })

    return app


@pytest.fixture(scope="module")
def server() -> Iterator[Stub]:
    stub = Stub()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    stub.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    srv = uvicorn.Server(uvicorn.Config(_app(stub), log_level="error", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        if not thread.is_alive():
            pytest.fail("stub server did not start")
        time.sleep(0.01)
    yield stub
    srv.should_exit = True
    thread.join(timeout=5)
    sock.close()


@pytest.fixture
def stub(server: Stub) -> Stub:
    server.requests.clear()
    server.mode = "judge"
    server.judge = lambda payload: []
    assess_llm._memory.clear()
    return server


def llm_settings(stub: Stub, **kw: Any) -> Settings:
    return Settings(**{"notes": False, "assessor": "llm", "llm_base_url": stub.base_url, "llm_model": "stub-model", **kw})


def _note(k: int, event: str, text: str, hour: int, *, unit: str | None = UNIT, negated: bool = False) -> EvidenceItem:
    src = SourceRef("DocumentReference", "doc-1", attachment=0, start=100 * k, end=100 * k + len(text))
    return EvidenceItem(
        occurrence=src.citation, events=(event,), patient=PATIENT, kind=Kind.LAB if event == "e1" else Kind.MEDICATION,
        origin=Origin.NOTE, concept=text, codes=(), context=text,
        time=EventTime(datetime(2024, 3, 1, hour, tzinfo=UTC), granularity=Granularity.MINUTE),
        documented=None, open_end=False, encounter=unit, unit=unit, scope="valid" if unit else "unknown",
        assertion=Assertion(negated=negated), status=None, value=None, source=src,
    )


def make_bundle(*extra: EvidenceItem) -> EvidenceBundle:
    """Note items in one encounter, vancomycin at 08:00 and creatinine at 20:00: S_tim 1, S_num 0.5,
    so S+ is 0.56 without judgment support (below tau+ 0.6) and 0.89 with full support."""
    q = pair("vancomycin", "creatinine", scope="encounter")
    items = tuple(sorted((
        _note(0, "e0", "Vancomycin 1 g IV given.", 8),
        _note(1, "e1", "Creatinine 2.1 this evening.", 20),
        *extra,
    ), key=lambda i: (i.occurrence, i.events)))
    # These items are the record's whole grounding of both events: the bundle is complete.
    held = Counter((e, i.unit) for i in items for e in i.events if i.unit)
    coverage = tuple(sorted((e, u, n, n) for (e, u), n in held.items()))
    return EvidenceBundle(q, PATIENT, items, bundle_hash(q, PATIENT, items, coverage=coverage), coverage=coverage)


def ids(b: EvidenceBundle) -> list[str]:
    return [i.occurrence for i in b.items]


def support_all(payload: dict[str, Any]) -> list[dict[str, Any]]:
    rels = payload["query"]["relations"]
    return [{"item": it["id"], "relation": r["id"], "polarity": "supports", "certainty": "certain", "basis": None}
            for it in payload["items"] for r in rels if {r["from"], r["to"]} & set(it["events"])]


def _keys(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def _check_request_holds_only_bundle(body: dict[str, Any], bundle: EvidenceBundle) -> None:
    assert set(body) == {"model", "messages", "temperature", "top_p", "n", "seed", "response_format"}
    assert body["temperature"] == 0 and isinstance(body["seed"], int)
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert system["role"] == "system" and system["content"] == assess_llm.prompt_text()
    payload = json.loads(user["content"])
    assert payload == json.loads(json.dumps(bundle_payload(bundle)))
    assert set(payload) == {"query", "items"}
    assert not set(_keys(payload)) & FORBIDDEN_KEYS
    assert [it["id"] for it in payload["items"]] == ids(bundle)
    assert bundle.patient not in json.dumps(body)


# (1) isolation ---------------------------------------------------------------------------------

def test_request_holds_only_the_bundle(stub: Stub):
    stub.judge = support_all
    bundle = make_bundle()
    LLMAssessor(llm_settings(stub))(bundle)
    assert len(stub.requests) == 1
    _check_request_holds_only_bundle(stub.requests[0], bundle)


def test_verify_query_sends_no_search_metadata(stub: Stub, lance):
    stub.judge = support_all
    q = pair("vancomycin", "norepinephrine")
    v = verify_query(lance, q, llm_settings(stub, discovery="search"))  # a budget for the LLM's context
    assert v.search["depths"]  # discovery did score and rank candidates ...
    assert len(stub.requests) == 1
    body = stub.requests[0]
    text = json.dumps(body)
    assert "depths" not in text and lance.patient not in text  # ... and none of it was sent
    payload = json.loads(body["messages"][1]["content"])
    assert not set(_keys(payload)) & FORBIDDEN_KEYS
    assert {it["id"] for it in payload["items"]} == {e.occurrence for e in v.evidence}
    assert v.search["assessor"]["assessor"] == "llm" and not v.issues


# (2) label mapping ----------------------------------------------------------------------------

COUNTER = _note(2, "e1", "Creatinine was not drawn after vancomycin.", 21)


def _counter(basis: str, certainty: str = "certain") -> list[dict[str, Any]]:
    return [{"item": COUNTER.occurrence, "relation": "r0", "polarity": "counters", "certainty": certainty,
             "basis": basis}]


@pytest.mark.parametrize(("judge", "label", "failure", "s_plus", "s_minus"), [
    (support_all, Label.SUPPORTED, None, 0.89, 0.0),
    (lambda p: support_all(p) + _counter("absent"), Label.CONFLICTING, FailureType.NEGATED, 0.89, 1.0),
    (lambda p: _counter("order"), Label.REFUTED, FailureType.OPPOSITE_ORDER, 0.56, 1.0),
    # an uncertain counter weighs half: alone it stays below tau- and does not refute
    (lambda p: _counter("window", "uncertain"), Label.INSUFFICIENT, FailureType.UNRESOLVED_TIME, 0.56, 0.5),
    (lambda p: [], Label.INSUFFICIENT, FailureType.UNRESOLVED_TIME, 0.56, 0.0),
    (lambda p: [{**j, "certainty": "uncertain"} for j in support_all(p)], Label.SUPPORTED, None, 0.725, 0.0),
])
def test_stub_judgments_map_to_the_four_labels(stub: Stub, judge: Judge, label, failure, s_plus, s_minus):
    stub.judge = judge
    bundle = make_bundle(COUNTER)
    a = LLMAssessor(llm_settings(stub))(bundle)
    assert (a.label, a.failure, a.s_plus, a.s_minus) == (label, failure, s_plus, s_minus)
    assert a.countering == ((COUNTER.occurrence,) if s_minus else ())
    assert assess(bundle).label is Label.SUPPORTED  # the deterministic reading differs: the judgments decided


# (3) cache (Eq. 8) ----------------------------------------------------------------------------

def test_repeated_bundle_never_asks_again(stub: Stub, tmp_path):
    stub.judge = support_all
    s = llm_settings(stub, cache_dir=tmp_path)
    first = LLMAssessor(s)(make_bundle())
    again = LLMAssessor(s)
    assert again(make_bundle()) == first and again.audit["cached"]
    assess_llm._memory.clear()  # a new process: the disk cache answers
    assert LLMAssessor(s)(make_bundle()) == first
    assert len(stub.requests) == 1
    assert len(list((tmp_path / "llm_assessor").glob("*.json"))) == 1
    LLMAssessor(llm_settings(stub, cache_dir=tmp_path, llm_model="other-model"))(make_bundle())
    assert len(stub.requests) == 2  # another model is another assessor


# (4) fallback ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("mode", "code"), [
    ("500", "transient"), ("slow", "timeout"), ("malformed", "exception"), ("schema", "exception"),
])
def test_endpoint_failure_falls_back_to_deterministic(stub: Stub, tmp_path, mode: str, code: str):
    stub.mode = mode
    bundle = make_bundle(COUNTER)
    llm = LLMAssessor(llm_settings(stub, cache_dir=tmp_path, llm_timeout_seconds=0.2))
    assert llm(bundle) == assess(bundle)
    assert [(i.severity, i.code) for i in llm.issues] == [("warning", code)]
    diag = llm.issues[0].diagnostics
    assert "deterministic" in diag
    assert not any(s in diag for s in [PATIENT, "doc-1", "Creatinine", "Vancomycin", stub.base_url])
    assert llm.audit["assessor"] == "deterministic"
    stub.mode, stub.judge = "judge", lambda p: []
    llm(bundle)  # a fallback is not cached: the endpoint is asked again
    assert len(stub.requests) == 2 and not llm.issues


def test_unreachable_endpoint_falls_back(stub: Stub):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    llm = LLMAssessor(Settings(notes=False, assessor="llm", llm_base_url=f"http://127.0.0.1:{port}/v1",
                               llm_model="m", llm_timeout_seconds=2))
    bundle = make_bundle()
    assert llm(bundle) == assess(bundle) and llm.issues[0].code == "transient"


def test_verdict_carries_the_fallback_issue(stub: Stub, lance):
    stub.mode = "500"
    q = pair("vancomycin", "norepinephrine")
    v = verify_query(lance, q, llm_settings(stub))
    d = verify_query(lance, q, Settings(notes=False))
    assert (v.verdict, v.s_plus, v.s_minus, v.bundle_hash) == (d.verdict, d.s_plus, d.s_minus, d.bundle_hash)
    assert {"severity": "warning", "code": "transient",
            "diagnostics": "LLM assessor answered HTTP 500; the deterministic assessor decided this verdict"} in v.issues
    assert v.search["assessor"]["fallback"] == "answered HTTP 500"


# (5) citations outside the bundle -------------------------------------------------------------

def test_judgments_citing_unknown_ids_are_ignored(stub: Stub):
    unscoped = _note(3, "e1", "Creatinine not checked.", 22, unit=None, negated=True)
    bogus = [
        {"item": "Observation/ghost", "relation": "r0", "polarity": "supports", "certainty": "certain"},
        {"item": "Observation/ghost", "relation": "r0", "polarity": "counters", "certainty": "certain",
         "basis": "absent"},
        {"item": COUNTER.occurrence, "relation": "r7", "polarity": "counters", "certainty": "certain",
         "basis": "absent"},
        # in the bundle, but scope-unknown: cannot by itself refute
        {"item": unscoped.occurrence, "relation": "r0", "polarity": "counters", "certainty": "certain",
         "basis": "absent"},
    ]
    stub.judge = lambda p: bogus
    a = LLMAssessor(llm_settings(stub))(make_bundle(COUNTER, unscoped))
    assert (a.label, a.s_plus, a.s_minus) == (Label.INSUFFICIENT, 0.56, 0.0)
    assert "Observation/ghost" not in a.supporting + a.countering and a.countering == ()


def test_a_counter_judgment_needs_a_complete_bundle(stub: Stub):
    """The same 'order' judgment that refutes on the complete bundle (above) is discarded when the
    bundle says the record grounds a creatinine it does not hold: the left-out one may be in order."""
    from dataclasses import replace

    stub.judge = lambda p: _counter("order")
    complete = make_bundle(COUNTER)
    short = tuple((e, u, held, total + 1 if e == "e1" else total) for e, u, held, total in complete.coverage)
    bundle = replace(complete, coverage=short, hash=bundle_hash(complete.query, PATIENT, complete.items, coverage=short))
    assert LLMAssessor(llm_settings(stub))(complete).label is Label.REFUTED
    a = LLMAssessor(llm_settings(stub))(bundle)
    assert (a.label, a.s_minus, a.countering) == (Label.INSUFFICIENT, 0.0, ())
