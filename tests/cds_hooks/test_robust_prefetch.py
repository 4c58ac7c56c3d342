"""Prefetch the readers and hashers cannot take: a 4xx OperationOutcome naming the rule, never a 500,
and the keep-alive connection survives (issue 10, robustness)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from medeventgraph.cds_hooks.services import ORDER_SELECT, ORDER_SIGN, PATIENT_VIEW, VERIFY

from .conftest import Running, assert_outcome
from .synthea import PREFETCH_TYPES

PID = "rob-1"
SECRET = "Zebediah Quux-Secretname"
QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


def _obs(**kw: Any) -> dict[str, Any]:
    res = {"resourceType": "Observation", "id": "o1", "status": "final", "subject": {"reference": f"Patient/{PID}"},
           "code": {"text": "creatinine"}, "effectiveDateTime": "2015-02-04T06:00:00Z",
           "valueQuantity": {"value": 1.2}, "note": [{"text": SECRET}]}
    res.update(kw)
    return res


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"url": "x"}
    for _ in range(levels):
        value = {"url": "x", "extension": [value]}
    return value


def _drug_and_aki(when_drug: str, when_aki: str) -> dict[str, Any]:
    subject = {"reference": f"Patient/{PID}"}
    return {
        "medicationAdministrations": _bundle({"resourceType": "MedicationAdministration", "id": "m1",
                                              "status": "completed", "subject": subject,
                                              "medicationCodeableConcept": {"text": "vancomycin"},
                                              "effectiveDateTime": when_drug}),
        "conditions": _bundle({"resourceType": "Condition", "id": "c1", "subject": subject,
                               "code": {"text": "acute kidney injury"}, "onsetDateTime": when_aki}),
    }


def _bundle(*resources: Any) -> dict[str, Any]:
    return {"resourceType": "Bundle", "type": "searchset", "entry": [{"resource": r} for r in resources]}


def _prefetch(**values: Any) -> dict[str, Any]:
    out: dict[str, Any] = {key: _bundle() for key in PREFETCH_TYPES}
    out["patient"] = {"resourceType": "Patient", "id": PID}
    out.update(values)
    return out


def _body(service: str, prefetch: dict[str, Any]) -> dict[str, Any]:
    hook = "patient-view" if service == PATIENT_VIEW else "medeventgraph-verify"
    context: dict[str, Any] = {"patientId": PID}
    if service == VERIFY:
        context["query"] = QUERY
    return {"hook": hook, "hookInstance": "rob", "context": context, "prefetch": prefetch}


REFUSED = {
    # orjson (the hasher) stops at 255 levels; the bound (MEG_MAX_JSON_DEPTH, default 100) comes first
    "nested 300 levels": (_prefetch(observations=_bundle(_obs(extension=[_nested(150)]))),
                          "structure", "nested deeper than 100 levels"),
    "nested 120 levels": (_prefetch(observations=_bundle(_obs(extension=[_nested(60)]))),
                          "structure", "MEG_MAX_JSON_DEPTH=100"),
    "lone surrogate": (_prefetch(observations=_bundle(_obs(code={"text": "a\ud800b"}))),
                       "value", "lone UTF-16 surrogate"),
    "surrogate in a key": (_prefetch(observations=_bundle(_obs(extension=[{"url": "x", "\udfff": 1}]))),
                           "value", "key: string is not valid Unicode"),
    "integer past 64 bits": (_prefetch(observations=_bundle(_obs(valueQuantity={"value": 2**64}))),
                             "value", "integer outside the 64-bit range"),
    "negative integer past 64 bits": (_prefetch(observations=_bundle(_obs(extension=[{"valueInteger": -(2**63) - 1}]))),
                                      "value", "integer outside the 64-bit range"),
}

ACCEPTED = {
    "entry is a number": _prefetch(observations={"resourceType": "Bundle", "entry": 5}),
    "entry is a string": _prefetch(conditions={"resourceType": "Bundle", "entry": "abc"}),
    "entries of wrong types": _prefetch(observations={"resourceType": "Bundle", "entry": [5, "x", [], {"resource": 5},
                                                                                           {"resource": {"resourceType": 5}}]}),
    "link is a number": _prefetch(observations={"resourceType": "Bundle", "link": 5, "entry": []}),
    "links of wrong types": _prefetch(observations={"resourceType": "Bundle", "link": [5, {"relation": "next", "url": 5}]}),
    "Bundles nested in Bundles": _prefetch(observations=_bundle(*[_bundle(_bundle(_bundle(_obs())))] * 3)),
    "onset 0001-01-01": _prefetch(**_drug_and_aki("0001-01-01", "0001-01-01")),
    "onset 9999-12-31": _prefetch(**_drug_and_aki("9999-12-31", "9999-12-31")),
    "year 9999 and the last instant": _prefetch(**_drug_and_aki("9999-12-31T23:59:59-05:00", "9999")),
    "first and last year": _prefetch(**_drug_and_aki("0001", "9999-12-31T23:59:59.999999Z")),
    "integer at the 64-bit edges": _prefetch(observations=_bundle(_obs(valueQuantity={"value": 2**64 - 1},
                                                                       extension=[{"valueInteger": -(2**63)}]))),
    "value past float range as a float": _prefetch(observations=_bundle(_obs(valueQuantity={"value": 1e308}))),
}


def _client_port(resp: httpx.Response) -> int:
    return resp.extensions["network_stream"].get_extra_info("client_addr")[1]


@pytest.fixture()
def one_connection(service: Running):
    """A client with a single keep-alive connection: a dropped connection shows as a new port."""
    with httpx.Client(timeout=120, limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)) as http:
        yield http


def _post(service: Running, http: httpx.Client, name: str, prefetch: dict[str, Any]) -> httpx.Response:
    url = service.url(name)
    headers = {"Authorization": f"Bearer {service.keys.token(url)}", "Content-Type": "application/json"}
    # json.dumps (not orjson): lone surrogates go out as \ud800 escapes, as a client would send them
    return http.post(url, content=json.dumps(_body(name, prefetch)), headers=headers)


@pytest.mark.parametrize("case", list(REFUSED))
@pytest.mark.parametrize("name", [VERIFY, PATIENT_VIEW])
def test_unreadable_prefetch_is_a_400_naming_the_rule(service, one_connection, case, name):
    prefetch, code, rule = REFUSED[case]
    first = _post(service, one_connection, name, prefetch)
    body = assert_outcome(first, 400)
    [issue] = body["issue"]
    assert issue["code"] == code and rule in issue["diagnostics"], issue
    assert "Observation/o1" in issue["diagnostics"] and SECRET not in first.text
    again = _post(service, one_connection, name, ACCEPTED["entry is a number"])
    assert again.status_code == 200 and _client_port(again) == _client_port(first)  # same connection


@pytest.mark.parametrize("case", list(ACCEPTED))
@pytest.mark.parametrize("name", [VERIFY, PATIENT_VIEW])
def test_odd_but_usable_prefetch_is_answered(service, one_connection, case, name):
    first = _post(service, one_connection, name, ACCEPTED[case])
    assert first.status_code == 200, first.text
    assert isinstance(first.json()["cards"], list)
    again = _post(service, one_connection, name, ACCEPTED[case])
    assert again.status_code == 200 and _client_port(again) == _client_port(first)


def test_same_day_placeholder_dates_give_no_order(service, one_connection):
    resp = _post(service, one_connection, VERIFY, ACCEPTED["onset 0001-01-01"])
    [card] = resp.json()["cards"]
    assert "Audit: insufficient" in card["detail"] and "failure unresolved_time" in card["detail"]


def test_depth_bound_is_a_setting(start_service):
    deeper = start_service(max_json_depth=200)
    resp = deeper.post(VERIFY, _body(VERIFY, REFUSED["nested 120 levels"][0]))
    assert resp.status_code == 200, resp.text
    resp = deeper.post(VERIFY, _body(VERIFY, REFUSED["nested 300 levels"][0]))
    assert "nested deeper than 200 levels" in assert_outcome(resp, 400)["issue"][0]["diagnostics"]


def _order(hook: str, medication: Any) -> dict[str, Any]:
    draft = {"resourceType": "Bundle", "entry": [{"resource": {
        "resourceType": "MedicationRequest", "id": "d1", "status": "draft", "intent": "order",
        "subject": {"reference": f"Patient/{PID}"}, "medicationCodeableConcept": medication}}]}
    return {"hook": hook, "hookInstance": "rob", "prefetch": _prefetch(),
            "context": {"patientId": PID, "draftOrders": draft, "selections": ["MedicationRequest/d1"]}}


@pytest.mark.parametrize("medication", [{"coding": 5}, {"coding": [{"system": [1], "code": {}}]},
                                        {"text": 5, "coding": [{"code": 11124}]}, {"coding": "x", "text": ["y"]}])
@pytest.mark.parametrize(("name", "hook"), [(ORDER_SELECT, "order-select"), (ORDER_SIGN, "order-sign")])
def test_draft_orders_of_wrong_types_are_answered(service, name, hook, medication):
    resp = service.post(name, _order(hook, medication))
    assert resp.status_code == 200, resp.text


def test_draft_orders_that_cannot_be_encoded_are_a_400(service):
    resp = service.post(ORDER_SIGN, json.dumps(_order("order-sign", {"text": "zzq\ud800"})))
    issue = assert_outcome(resp, 400)["issue"][0]
    assert issue["code"] == "value" and issue["diagnostics"].startswith("context.draftOrders: string is not valid")
