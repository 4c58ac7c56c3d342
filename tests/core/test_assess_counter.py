"""S- graded (core/decide/counter.py): a recorded reverse order weighs by how far past the
contradiction it is (below tau- within the recording-delay scale), hedged evidence weighs half,
independent pieces add up, and no order or absence refutes from a bundle that does not hold
every grounded occurrence of both events (issue #20, reproduction 2)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from medeventgraph.core.decide.assess import assess, load_thresholds
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import simple_discovery
from medeventgraph.core.evidence.contract import bundle_hash
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.occurrence import Assertion
from medeventgraph.model.settings import Settings

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
    ("2023-05-01T09:58:47Z", 0.0122),  # 73 seconds reversed: within charting delays, weakly against
    ("2023-05-01T09:30:00Z", 0.3),  # half an hour: still within the delay scale, below tau-
    ("2023-05-01T09:00:00Z", 0.6),  # an hour reversed: past the delay scale
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
    ("2023-05-01T11:15:00Z", 0.15),  # 75 minutes after, claimed within an hour: 15 minutes over
    ("2023-05-01T12:30:00Z", 0.8),  # an hour and a half over: past the delay scale, half a window more
    ("2023-05-01T13:00:00Z", 1.0),  # a delay scale and a whole window over
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
    """vancomycin 10:00, norepinephrine 08:30, furosemide 07:00: "vancomycin before norepinephrine
    before furosemide" is reversed on both links, 90 minutes each (0.8 apiece)."""
    from .helpers import chain

    record = _record("2023-05-01T08:30:00Z")
    record["entry"].append({"resource": _med("meg-bind-furo-1", "4603", "furosemide", "2023-05-01T07:00:00Z")})
    index = index_of(record, S)
    both = chain([("vancomycin", "medication"), ("norepinephrine", "medication"), ("furosemide", "medication")])
    one = pair("vancomycin", "norepinephrine")
    s_both, s_one = (assess(admit(index, q, simple_discovery(index, q, S).candidates)).s_minus for q in (both, one))
    assert (s_one, s_both) == (0.8, 0.96)  # 1 - (1 - 0.8)^2


# -- completeness before refutation ---------------------------------------------------------------


def _hidden_step_record() -> dict:
    """Furosemide 10:00, a procedure 12:00, sodium 13:00, and a second procedure 73 seconds
    after the sodium draw: "furosemide, then some procedure, then sodium" holds through the
    first procedure. One encounter."""
    from .records import _lab

    base = septic_shock_record()
    keep = [e for e in base["entry"] if e["resource"]["resourceType"] in ("Patient", "Encounter")]
    proc = [{"resourceType": "Procedure", "id": f"meg-proc-{k}", "status": "completed",
             "code": {"coding": [{"system": "http://snomed.info/sct", "code": "392230005", "display": display}],
                      "text": display},
             "subject": {"reference": "Patient/meg-bind-1"}, "encounter": {"reference": "Encounter/meg-bind-enc-1"},
             "performedDateTime": when}
            for k, display, when in ((1, "Insertion of urinary catheter", "2023-05-01T12:00:00Z"),
                                     (2, "Chest radiograph", "2023-05-01T13:01:13Z"))]
    sodium = _lab("meg-bind-na-1", "2951-2", "Sodium [Moles/volume] in Serum or Plasma", 131, "mmol/L",
                  "2023-05-01T13:00:00Z")
    furo = _med("meg-bind-furo-1", "4603", "furosemide", "2023-05-01T10:00:00Z")
    return {**base, "entry": keep + [{"resource": r} for r in (*proc, sodium, furo)]}


def _hidden_query():
    from .helpers import chain

    return chain([("furosemide", "medication"), ("", "procedure"), ("sodium", "lab")], hidden=(1,))


def test_a_budget_that_drops_the_compatible_pair_does_not_refute():
    """Reproduction: the search once kept only the procedure 73 s after the sodium draw and
    refuted (S- 0.61) what exhaustive grounding supports. A bundle without the compatible
    procedure does not hold every grounded occurrence of the hidden step in the encounter, so
    no order piece can be made; and 73 s is within the recording-delay scale anyway."""
    index = index_of(_hidden_step_record(), S)
    q = _hidden_query()
    full = simple_discovery(index, q, S).candidates
    assert assess(admit(index, q, full)).label is Label.SUPPORTED
    cut = [c for c in full if not c.occurrence.id.endswith("meg-proc-1")]
    bundle = admit(index, q, cut)
    assert not bundle.complete("e1", "Encounter/meg-bind-enc-1")
    assert bundle.complete("e0", "Encounter/meg-bind-enc-1") and bundle.complete("e2", "Encounter/meg-bind-enc-1")
    a = assess(bundle)
    assert a.label is Label.INSUFFICIENT and a.s_minus == 0.0
    # The same bundle read as if it were complete refutes only above the delay scale: 73 s weighs 0.0122.
    whole = replace(bundle, coverage=tuple((e, u, n, n) for e, u, _, n in bundle.coverage))
    assert assess(whole).s_minus == 0.0122 and assess(whole).label is Label.INSUFFICIENT


def test_an_order_refutation_needs_both_sides_complete():
    """vancomycin 10:00, norepinephrine 08:00 (two hours reversed: 1.0 when complete). Left
    out of the bundle, either side's missing dose could have been the compatible one."""
    index = index_of(_record("2023-05-01T08:00:00Z"), S)
    index_late = index_of({**_record("2023-05-01T08:00:00Z"), "entry": [
        *_record("2023-05-01T08:00:00Z")["entry"],
        {"resource": _med("meg-bind-norepi-10", "7512", "norepinephrine", "2023-05-01T11:00:00Z")}]}, S)
    q = pair("vancomycin", "norepinephrine")
    assert assess(admit(index, q, simple_discovery(index, q, S).candidates)).label is Label.REFUTED
    full = simple_discovery(index_late, q, S).candidates
    assert assess(admit(index_late, q, full)).label is Label.SUPPORTED
    early_only = [c for c in full if not c.occurrence.id.endswith("meg-bind-norepi-10")]
    a = assess(admit(index_late, q, early_only))
    assert a.label is Label.INSUFFICIENT and a.s_minus == 0.0


def test_a_documented_absence_needs_the_event_complete_in_its_unit():
    """A not-done norepinephrine row after vancomycin, and a completed dose too: the bundle that
    holds only the not-done row is not documentation that norepinephrine was absent."""
    record = _record("2023-05-01T12:00:00Z")
    record["entry"].append({"resource": _med("meg-bind-norepi-x", "7512", "norepinephrine", "2023-05-01T11:00:00Z",
                                             status="not-done")})
    index = index_of(record, S)
    q = pair("vancomycin", "norepinephrine")
    full = simple_discovery(index, q, S).candidates
    assert assess(admit(index, q, full)).label is Label.SUPPORTED
    only_missed = [c for c in full if not c.occurrence.id.endswith("meg-bind-norepi-9")]
    a = assess(admit(index, q, only_missed))
    assert a.label is Label.INSUFFICIENT and a.s_minus == 0.0
