"""A compositional query holds only on one chain: per-relation pairs that use different
items for the same event never make it supported (regression for the spine's fallback)."""

from __future__ import annotations

from medeventgraph import verify
from medeventgraph.model.settings import Settings


def _admin(rid: str, drug: str, when: str) -> dict:
    return {
        "resourceType": "MedicationAdministration", "id": rid, "status": "completed",
        "medicationCodeableConcept": {"text": drug}, "subject": {"reference": "Patient/p"},
        "context": {"reference": "Encounter/e"}, "effectiveDateTime": when,
    }


BUNDLE = {
    "resourceType": "Bundle", "type": "collection",
    "entry": [{"resource": r} for r in (
        {"resourceType": "Patient", "id": "p"},
        {"resourceType": "Encounter", "id": "e", "status": "finished", "subject": {"reference": "Patient/p"},
         "period": {"start": "2024-01-01T00:00:00Z", "end": "2024-01-05T00:00:00Z"}},
        _admin("b1", "heparin", "2024-01-01T06:00:00Z"),
        _admin("a", "aspirin", "2024-01-01T08:00:00Z"),
        _admin("c", "clopidogrel", "2024-01-01T10:00:00Z"),
        _admin("b2", "heparin", "2024-01-01T12:00:00Z"),
    )],
}


def _chain(middle: dict) -> dict:
    return {
        "id": "chain",
        "events": [{"id": "a", "text": "aspirin", "kind": "medication"}, {"id": "b", **middle},
                   {"id": "c", "text": "clopidogrel", "kind": "medication"}],
        "relations": [{"from": "a", "to": "b", "type": "before"}, {"from": "b", "to": "c", "type": "before"}],
        "scope": "encounter",
    }


def test_each_link_alone_is_not_a_chain():
    # aspirin < heparin(b2) and heparin(b1) < clopidogrel hold separately; no heparin lies between.
    v = verify(BUNDLE, _chain({"text": "heparin", "kind": "medication"}), settings=Settings(discovery="simple"))
    assert v.verdict.value != "supported"
    assert all(r.timing == "compatible" for r in v.relations)
    assert "no one chain" in v.relations[0].explanation


def test_hidden_intermediate_needs_one_item_between_both_ends():
    v = verify(BUNDLE, _chain({"kind": "medication", "hidden": True}), settings=Settings(discovery="simple"))
    assert v.verdict.value != "supported"


def test_a_real_chain_is_supported():
    q = _chain({"text": "heparin", "kind": "medication"})
    q["events"] = [q["events"][0], {"id": "b", "text": "clopidogrel", "kind": "medication"},
                   {"id": "c", "text": "heparin", "kind": "medication"}]
    v = verify(BUNDLE, q, settings=Settings(discovery="simple"))
    assert v.verdict.value == "supported"
    assert set(v.citations) == {"MedicationAdministration/a", "MedicationAdministration/c", "MedicationAdministration/b2"}
