"""The verify hook reads a question's "started on" against the record it verifies (issue #13):
a dose given where the record keeps doses, any medication record where it keeps only orders;
the card says which, and its SMART link carries the query as verified."""

from __future__ import annotations

import json

import pytest
from medeventgraph.cds_hooks.services import VERIFY

from .conftest import DATA, assert_card_ok
from .synthea import prefetch_for

QUESTION = "Was the patient started on vancomycin within 1 hour of the lactate?"


def _record(name: str) -> tuple[str, dict]:
    by_type: dict[str, list] = {}
    for entry in json.loads((DATA / name).read_text())["entry"]:
        by_type.setdefault(entry["resource"]["resourceType"], []).append(entry["resource"])
    return by_type["Patient"][0]["id"], by_type


def _card(service, name: str, query) -> dict:
    pid, by_type = _record(name)
    body = {"hook": VERIFY, "hookInstance": "started-on", "prefetch": prefetch_for(by_type),
            "context": {"patientId": pid, "userId": "Practitioner/1", "query": query}}
    resp = service.post(VERIFY, body)
    assert resp.status_code == 200, resp.text
    [card] = resp.json()["cards"]
    assert_card_ok(card)
    return card


def _verified_query(card: dict) -> dict:
    return json.loads(card["links"][0]["appContext"])["query"]


def test_started_on_is_a_dose_where_the_record_keeps_doses(service):
    # lactate 10:00, vancomycin ordered 10:10, first given 12:05: no dose within the hour
    card = _card(service, "meg-given-patient.json", QUESTION)
    assert "`Audit: supported" not in card["detail"]
    assert "'started on' read as administered: the record holds medication administrations" in card["detail"]
    assert _verified_query(card)["events"][0]["action"] == "administered"


def test_started_on_is_any_medication_record_where_it_keeps_only_orders(service):
    card = _card(service, "meg-ordered-patient.json", QUESTION)
    assert "`Audit: supported" in card["detail"]
    assert "'started on' read as any medication record: the record holds no medication administrations" \
        in card["detail"]
    assert _verified_query(card)["events"][0].get("action") in (None, "any")


@pytest.mark.parametrize("name", ["meg-given-patient.json", "meg-ordered-patient.json"])
def test_a_query_sent_as_json_keeps_its_own_actions(service, name):
    query = {"id": "q", "scope": "patient",
             "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                        {"id": "e1", "text": "lactate", "kind": "lab"}],
             "relations": [{"from": "e0", "to": "e1", "type": "after", "within": "PT1H"}]}
    card = _card(service, name, query)
    assert "`Audit: supported" in card["detail"] and "'started on'" not in card["detail"]
