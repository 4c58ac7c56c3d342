"""Feedback fields are validated before anything is stored: instants, declared override codes,
id-like card and suggestion ids, the spec's outcomes; a bad field is a 400 naming it, and the
log holds no free text."""

from __future__ import annotations

import json
import uuid

import pytest
from medeventgraph.cds_hooks.cards import OVERRIDE_SYSTEM
from medeventgraph.cds_hooks.services import ORDER_SIGN

from .conftest import assert_outcome

PHI = "Jane Roe DOB 1950-01-01 MRN 99812"


def _item(**over) -> dict:
    return {"card": str(uuid.uuid4()), "outcome": "overridden", "outcomeTimestamp": "2024-05-01T10:00:00Z",
            **over}


def _post(service, *items: dict):
    url = service.url(f"{ORDER_SIGN}/feedback")
    return service.http.post(url, json={"feedback": list(items)},
                             headers={"Authorization": f"Bearer {service.keys.token(url)}"})


def _rows(service) -> list[str]:
    log = service.settings.feedback_log
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(("over", "field"), [
    ({"outcomeTimestamp": PHI}, "outcomeTimestamp"),
    ({"outcomeTimestamp": "yesterday"}, "outcomeTimestamp"),
    ({"outcomeTimestamp": "2024-05-01"}, "outcomeTimestamp"),
    ({"outcomeTimestamp": "2024-05-01T10:00:00"}, "outcomeTimestamp"),  # no zone: not an instant
    ({"outcomeTimestamp": "2024-13-01T10:00:00Z"}, "outcomeTimestamp"),
    ({"outcomeTimestamp": "2024-02-30T10:00:00Z"}, "outcomeTimestamp"),
    ({"outcomeTimestamp": 1714557600}, "outcomeTimestamp"),
    ({"card": PHI}, "card"),
    ({"card": "x" * 65}, "card"),
    ({"outcome": "ignored"}, "outcome"),
    ({"acceptedSuggestions": [{"id": PHI}]}, "acceptedSuggestions.0.id"),
    ({"overrideReason": {"reason": {"system": OVERRIDE_SYSTEM, "code": "patient-refused"}}},
     "overrideReason.reason.code"),
    ({"overrideReason": {"reason": {"code": PHI}}}, "overrideReason.reason.code"),
    ({"overrideReason": {"reason": {"system": "https://other.example/reasons", "code": PHI}}},
     "overrideReason.reason.code"),
    ({"overrideReason": {"reason": {"system": PHI, "code": "abc"}}}, "overrideReason.reason.system"),
])
def test_bad_fields_are_refused_by_name_and_nothing_is_stored(service, over, field):
    before = _rows(service)
    out = assert_outcome(_post(service, _item(), _item(**over)), 400)
    text = json.dumps(out)
    assert f"feedback.1.{field}" in text, out
    assert PHI not in text  # the diagnostics name the rule, never echo the value
    assert _rows(service) == before  # the good first item was not stored either


def test_valid_feedback_is_stored_as_codes_and_instants_only(service):
    before = len(_rows(service))
    card, suggestion = str(uuid.uuid4()), str(uuid.uuid4())
    items = [
        _item(card=card, outcomeTimestamp="2024-05-01T12:00:00.123+02:00",
              overrideReason={"reason": {"system": OVERRIDE_SYSTEM, "code": "already-addressed",
                                         "display": PHI}, "userComment": PHI}),
        _item(outcome="accepted", acceptedSuggestions=[{"id": suggestion, "label": PHI}], note=PHI),
        _item(overrideReason={"reason": {"system": "https://example.com/cds-hooks/override-reason-system",
                                         "code": "d7ecf885"}}),  # the spec's example: another system's code
    ]
    assert _post(service, *items).status_code == 200
    rows = [json.loads(line) for line in _rows(service)[before:]]
    assert len(rows) == 3
    assert PHI not in json.dumps(rows)
    assert rows[0]["card"] == card and rows[0]["outcomeTimestamp"] == "2024-05-01T10:00:00Z"
    assert rows[0]["overrideReason"] == {"system": OVERRIDE_SYSTEM, "code": "already-addressed"}
    assert rows[1]["acceptedSuggestions"] == [suggestion] and rows[1]["overrideReason"] is None
    assert rows[2]["overrideReason"]["code"] == "d7ecf885"
