"""S- graded (core/counter.py): a recorded reverse order weighs by how far past the
contradiction it is, hedged evidence weighs half, and independent pieces add up."""

from __future__ import annotations

from dataclasses import replace

import pytest
from medeventgraph.core.assess import assess, load_thresholds
from medeventgraph.core.contract import bundle_hash
from medeventgraph.core.simple import simple_discovery
from medeventgraph.core.verdict import FailureType, Label
from medeventgraph.core.verify import admit
from medeventgraph.occurrence import Assertion
from medeventgraph.settings import Settings

from .conftest import index_of
from .helpers import pair
from .records import _med, septic_shock_record

S = Settings(notes=False)


def _record(norepi_at: str) -> dict:
    """One vancomycin dose at 10:00 and one norepinephrine dose at `norepi_at`, one encounter."""
    base = septic_shock_record()
    keep = [e for e in base["entry"] if e["resource"]["resourceType"] in ("Patient", "Encounter")
            or e["resource"]["id"] == "meg-bind-vanc-1"]
    return {**base, "entry": keep + [{"resource": _med("meg-bind-norepi-9", "7512", "norepinephrine", norepi_at)}]}


def _bundle(norepi_at: str, **claim):
    index = index_of(_record(norepi_at), S)
    q = pair("vancomycin", "norepinephrine", **claim)
    return admit(index, q, simple_discovery(index, q, S).candidates)


@pytest.mark.parametrize(("norepi_at", "s_minus"), [
    ("2023-05-01T09:57:00Z", 0.62),  # 3 minutes reversed: within charting delays, weakly against
    ("2023-05-01T09:30:00Z", 0.8),
    ("2023-05-01T08:00:00Z", 1.0),  # two hours reversed: past any charting delay
])
def test_a_recorded_reverse_order_weighs_by_how_far_it_is_reversed(norepi_at, s_minus):
    a = assess(_bundle(norepi_at))
    assert a.s_minus == s_minus
    assert a.label is (Label.REFUTED if s_minus >= load_thresholds().tau_minus else Label.INSUFFICIENT)
    if a.label is Label.REFUTED:
        assert a.failure is FailureType.OPPOSITE_ORDER
    assert set(a.countering) == {"MedicationAdministration/meg-bind-vanc-1", "MedicationAdministration/meg-bind-norepi-9"}


@pytest.mark.parametrize(("norepi_at", "s_minus"), [
    ("2023-05-01T11:15:00Z", 0.7),  # 75 minutes after, claimed within an hour: a quarter past it
    ("2023-05-01T12:00:00Z", 1.0),  # twice the window
])
def test_outside_the_window_weighs_by_how_far_past_it(norepi_at, s_minus):
    a = assess(_bundle(norepi_at, within="PT1H"))
    assert a.s_minus == s_minus and (a.label is Label.REFUTED) == (s_minus >= load_thresholds().tau_minus)


def _hedged(bundle, occurrence: str):
    items = tuple(replace(i, assertion=Assertion(uncertain=True)) if i.occurrence == occurrence else i
                  for i in bundle.items)
    return replace(bundle, items=items, hash=bundle_hash(bundle.query, bundle.patient, items))


def test_a_hedged_item_halves_its_piece_and_the_hash_says_so():
    bundle = _bundle("2023-05-01T08:00:00Z")
    hedged = _hedged(bundle, "MedicationAdministration/meg-bind-norepi-9")
    assert hedged.hash != bundle.hash
    assert (assess(bundle).s_minus, assess(hedged).s_minus) == (1.0, 0.5)
    assert assess(hedged).label is Label.INSUFFICIENT  # an uncertain reverse order alone never refutes


def test_independent_pieces_weigh_more_than_one():
    """vancomycin 10:00, norepinephrine 09:30, furosemide 09:00: "vancomycin before norepinephrine
    before furosemide" is reversed on both links, 30 minutes each (0.8 apiece)."""
    from .helpers import chain

    record = _record("2023-05-01T09:30:00Z")
    record["entry"].append({"resource": _med("meg-bind-furo-1", "4603", "furosemide", "2023-05-01T09:00:00Z")})
    index = index_of(record, S)
    both = chain([("vancomycin", "medication"), ("norepinephrine", "medication"), ("furosemide", "medication")])
    one = pair("vancomycin", "norepinephrine")
    s_both, s_one = (assess(admit(index, q, simple_discovery(index, q, S).candidates)).s_minus for q in (both, one))
    assert (s_one, s_both) == (0.8, 0.96)  # 1 - (1 - 0.8)^2
