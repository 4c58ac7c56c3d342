"""MEG_CARDS_FOR_REFUTED / MEG_CARDS_FOR_INSUFFICIENT over HTTP: patient-view shows a refuted or an
insufficient watch item only when its setting is on (cds_hooks.cards.wants_card)."""

from __future__ import annotations

import copy
import json

import pytest
from medeventgraph.cds_hooks.services import PATIENT_VIEW
from medeventgraph.cds_hooks.watchlist import load_watchlist

from .conftest import DATA, assert_card_ok
from .synthea import prefetch_for

PATIENT = "meg-aki-1"
NEPHROTOXIC = next(w for w in load_watchlist().watches if w.id == "nephrotoxic-aki")


@pytest.fixture(scope="module")
def aki_first() -> dict:
    """meg-aki-1 with the kidney injury a day *before* the vancomycin: the nephrotoxic watch is
    refuted; every other watch (no anticoagulant, opioid, ACE inhibitor or sepsis) is insufficient."""
    bundle = json.loads((DATA / "meg-aki-patient.json").read_text())
    by_type: dict[str, list] = {}
    for entry in copy.deepcopy(bundle["entry"]):
        res = entry["resource"]
        if res["resourceType"] == "Condition":
            res.update(onsetDateTime="2023-03-01T09:00:00Z", recordedDate="2023-03-01T09:30:00Z")
        by_type.setdefault(res["resourceType"], []).append(res)
    return {"hook": "patient-view", "hookInstance": "cards-settings", "prefetch": prefetch_for(by_type),
            "context": {"patientId": PATIENT, "userId": "Practitioner/1"}}


def _cards(svc, body: dict) -> list[dict]:
    resp = svc.post(PATIENT_VIEW, body)
    assert resp.status_code == 200, resp.text
    cards = resp.json()["cards"]
    for card in cards:
        assert_card_ok(card)
    return cards


def _audit(card: dict) -> str:
    return card["detail"].rsplit("`Audit: ", 1)[1].split(" ", 1)[0]


def test_refuted_and_insufficient_watch_items_make_no_card_by_default(service, aki_first):
    assert not service.settings.cards_for_refuted and not service.settings.cards_for_insufficient
    assert _cards(service, aki_first) == []


def test_cards_for_refuted_shows_the_refuted_item_only(start_service, aki_first):
    cards = _cards(start_service(cards_for_refuted=True, notes=False), aki_first)
    assert [_audit(c) for c in cards] == ["refuted"]
    assert cards[0]["summary"] and NEPHROTOXIC.title in cards[0]["detail"]


def test_cards_for_insufficient_shows_the_insufficient_items_only(start_service, aki_first):
    cards = _cards(start_service(cards_for_insufficient=True, notes=False), aki_first)
    others = [w for w in load_watchlist().watches if w.id != NEPHROTOXIC.id]
    assert [_audit(c) for c in cards] == ["insufficient"] * len(others)
    assert all(NEPHROTOXIC.title not in c["detail"] for c in cards)
