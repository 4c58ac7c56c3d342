"""Property: whatever prefetch and query a client sends, the answer over loopback HTTP is 2xx or a
4xx OperationOutcome: never a 500, never a dropped connection (issue 10).

Example counts are modest so `make test` stays fast; MEG_FUZZ_EXAMPLES=2000 runs a longer search.
"""

from __future__ import annotations

import base64
import json
import os
from datetime import UTC, timedelta, timezone
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from medeventgraph.cds_hooks.services import ORDER_SELECT, ORDER_SIGN, PATIENT_VIEW, VERIFY

from .conftest import Running
from .synthea import PREFETCH_TYPES

EXAMPLES = int(os.environ.get("MEG_FUZZ_EXAMPLES", "40"))
PID = "fz-1"

EXTREME_DATES = ["0001-01-01", "9999-12-31", "0001", "9999", "0001-01-01T00:00:00+14:00",
                 "9999-12-31T23:59:59-12:00", "9999-12-31T23:59:59.999999Z", "2015-02-30", "2015-13-01",
                 "2015-02-03T25:00:00Z", "2015-02-03T10:00:00+25:00", "", "yesterday"]
TZS = st.sampled_from([UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12))])
DATES = st.one_of(st.sampled_from(EXTREME_DATES), st.dates().map(str),
                  st.datetimes(timezones=TZS).map(lambda d: d.isoformat()))
STRINGS = st.one_of(st.text(max_size=16), st.sampled_from(["\ud800", "a\udfffb", " ", "<p>x", "Patient/fz-1"]))
INTS = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30]))
LEAVES = st.one_of(st.none(), st.booleans(), INTS, st.floats(allow_nan=False, allow_infinity=False), STRINGS, DATES)
JUNK = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(STRINGS, inner, max_size=3),
                    max_leaves=8)


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"url": "x"}
    for _ in range(levels):
        value = {"url": "x", "extension": [value]}
    return value


VALUES = st.one_of(JUNK, st.integers(1, 200).map(_nested))
SUBJECT = {"reference": f"Patient/{PID}"}
# Note texts: clinical phrases, relative times (resolved against extreme note dates), markup and noise.
NOTE_TEXT = st.lists(st.one_of(st.sampled_from(["Acute kidney injury.", "No AKI.", "Vancomycin given.", "AKI yesterday.",
                                                "Started 2 days ago.", "Cr rose 3 months ago.",
                                                "<p>acute kidney injury</p>", "<script>x", "<!-- ", "&amp;"]),
                               st.text(max_size=30)), max_size=6).map(" ".join)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode()


TEMPLATES: dict[str, Any] = {
    "Observation": lambda d: {"status": "final", "code": {"text": "creatinine"}, "effectiveDateTime": d,
                              "valueQuantity": {"value": 1.4, "unit": "mg/dL"}},
    "Condition": lambda d: {"code": {"text": "acute kidney injury"}, "onsetDateTime": d},
    "MedicationAdministration": lambda d: {"status": "completed", "medicationCodeableConcept": {"text": "vancomycin"},
                                           "effectiveDateTime": d},
    "MedicationRequest": lambda d: {"status": "active", "intent": "order", "authoredOn": d,
                                    "medicationCodeableConcept": {"text": "vancomycin"}},
    "Encounter": lambda d: {"status": "finished", "class": {"code": "IMP"}, "period": {"start": d, "end": d}},
    "Procedure": lambda d: {"status": "completed", "code": {"text": "dialysis"}, "performedDateTime": d},
}
FIELDS = ["id", "status", "code", "subject", "effectiveDateTime", "effectivePeriod", "valueQuantity", "onsetDateTime",
          "medicationCodeableConcept", "period", "encounter", "context", "component", "extension", "resourceType",
          "meta", "content", "date", "interpretation", "referenceRange", "category"]


@st.composite
def resources(draw: st.DrawFn) -> Any:
    rtype = draw(st.sampled_from([*TEMPLATES, "DocumentReference"]))
    res: dict[str, Any] = {"resourceType": rtype, "id": draw(st.sampled_from(["r1", "r2", "r3"])), "subject": SUBJECT}
    if rtype == "DocumentReference":
        mime = draw(st.sampled_from(["text/plain", "text/html", "text/plain; charset=latin-1", "image/png"]))
        res.update(status="current", date=draw(DATES),
                   content=[{"attachment": {"contentType": mime, "data": _b64(draw(NOTE_TEXT))}}])
    else:
        res.update(TEMPLATES[rtype](draw(DATES)))
    res.update(draw(st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=2)))
    return res


ENTRIES = st.one_of(resources().map(lambda r: {"resource": r}), JUNK)
PREFETCH_VALUES = st.one_of(
    st.lists(ENTRIES, max_size=4).map(lambda e: {"resourceType": "Bundle", "type": "searchset", "entry": e}),
    resources(),
    st.none(),
    JUNK.map(lambda j: {"resourceType": "Bundle", "entry": j, "link": j}),
)
QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}
QUERIES = st.one_of(
    st.just(QUERY),
    st.dictionaries(st.sampled_from(["id", "events", "relations", "scope"]), JUNK, max_size=2).map(
        lambda d: {**QUERY, **d}),
    st.builds(lambda t, w: {**QUERY, "events": [{"id": "e0", "text": t}, QUERY["events"][1]],
                            "relations": [{**QUERY["relations"][0], "within": w}]}, STRINGS, STRINGS),
    STRINGS,
    JUNK,
)


MEDICATIONS = st.one_of(st.just({"text": "vancomycin"}), JUNK,
                        st.fixed_dictionaries({"text": STRINGS, "coding": JUNK}),
                        st.fixed_dictionaries({"coding": st.lists(st.fixed_dictionaries(
                            {"system": st.one_of(st.just("http://www.nlm.nih.gov/research/umls/rxnorm"), JUNK),
                             "code": st.one_of(st.just("11124"), JUNK)}), max_size=2)}))
DRAFTS = st.one_of(
    st.lists(MEDICATIONS.map(lambda m: {"resource": {"resourceType": "MedicationRequest", "id": "d1", "status": "draft",
                                                     "intent": "order", "subject": SUBJECT,
                                                     "medicationCodeableConcept": m}}), max_size=2)
    .map(lambda e: {"resourceType": "Bundle", "entry": e}),
    JUNK,
)
HOOKS = {VERIFY: "medeventgraph-verify", PATIENT_VIEW: "patient-view", ORDER_SELECT: "order-select",
         ORDER_SIGN: "order-sign"}


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(list(HOOKS)))
    prefetch = {key: draw(PREFETCH_VALUES) for key in PREFETCH_TYPES}
    prefetch["patient"] = {"resourceType": "Patient", "id": PID}
    context: dict[str, Any] = {"patientId": draw(st.one_of(st.just(PID), STRINGS))}
    if name == VERIFY:
        context["query"] = draw(QUERIES)
    if name in (ORDER_SELECT, ORDER_SIGN):
        context["draftOrders"] = draw(DRAFTS)
        context["selections"] = draw(st.one_of(st.none(), st.just(["MedicationRequest/d1"]), JUNK))
    return name, {"hook": HOOKS[name], "hookInstance": "fuzz", "context": context, "prefetch": prefetch}


@pytest.fixture(scope="module")
def one_connection():
    with httpx.Client(timeout=300, limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)) as http:
        yield http


def _port(resp: httpx.Response) -> int:
    return resp.extensions["network_stream"].get_extra_info("client_addr")[1]


def test_no_500_and_no_dropped_connection(service: Running, one_connection: httpx.Client):
    ports: set[int] = set()

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(requests())
    def check(request: tuple[str, dict[str, Any]]) -> None:
        name, body = request
        url = service.url(name)
        resp = one_connection.post(url, content=json.dumps(body), headers={
            "Authorization": f"Bearer {service.keys.token(url)}", "Content-Type": "application/json"})
        assert resp.status_code < 500, resp.text
        if resp.status_code >= 400:
            outcome = resp.json()
            assert outcome["resourceType"] == "OperationOutcome" and outcome["issue"], outcome
        else:
            assert isinstance(resp.json()["cards"], list)
        ports.add(_port(resp))
        assert len(ports) == 1, "the keep-alive connection was dropped"

    check()


def test_note_dated_year_one_with_a_relative_time(service: Running):
    note = {"resourceType": "DocumentReference", "id": "d1", "status": "current", "subject": SUBJECT,
            "date": "0001-01-01T05:00:00Z",
            "content": [{"attachment": {"contentType": "text/plain", "data": _b64("Acute kidney injury yesterday.")}}]}
    prefetch = {key: {"resourceType": "Bundle", "entry": []} for key in PREFETCH_TYPES}
    prefetch["documents"] = {"resourceType": "Bundle", "entry": [{"resource": note}]}
    body = {"hook": "medeventgraph-verify", "hookInstance": "fuzz", "context": {"patientId": PID, "query": QUERY},
            "prefetch": prefetch}
    assert service.post(VERIFY, body).status_code < 500
