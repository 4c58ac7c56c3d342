"""The graded assessor: its documented scale (doctests in core/decide/assess.py) and what it changes."""

from __future__ import annotations

import doctest
from dataclasses import replace

import medeventgraph.core.decide.assess as assess_module
import medeventgraph.core.decide.counter as counter_module
from medeventgraph.core.decide.assess import assess, load_thresholds
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import simple_discovery
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.occurrence import Assertion
from medeventgraph.model.settings import Settings

from .conftest import index_of
from .helpers import pair
from .records import septic_shock_record

S = Settings(notes=False)


def test_the_documented_scale_holds():
    """The worked examples in the docstrings of core/decide/assess.py (S+) and core/decide/counter.py (S-)."""
    for module, examples in ((assess_module, 10), (counter_module, 10)):
        result = doctest.testmod(module)
        assert result.attempted >= examples and result.failed == 0, module.__name__


def _bundle_with(assertion: Assertion, copies: int):
    """vancomycin, then norepinephrine documented absent after it (`copies` denying rows)."""
    index = index_of(septic_shock_record(), S)
    q = pair("vancomycin", "norepinephrine")
    cands = simple_discovery(index, q, S).candidates
    norepi = next(c for c in cands if "e1" in c.events)
    others = [c for c in cands if "e1" not in c.events]
    denied = []
    for k in range(copies):
        occ = replace(norepi.occurrence, assertion=assertion)
        denied.append(replace(norepi, occurrence=occ))
    # The contract refuses occurrences that differ from the record's, so assess the bundle directly.
    bundle = admit(index, q, others)
    from medeventgraph.core.evidence.binding import BindingContext
    from medeventgraph.core.evidence.contract import _item, bundle_hash
    from medeventgraph.core.evidence.reading import HistoryReading

    ctx = BindingContext.of(q, index.lexicon)
    reading = HistoryReading(dict(ctx.events), ctx.expansion)
    extra = tuple(replace(_item(c, bundle.items[0].unit, reading), occurrence=f"{c.occurrence.id}#{k}")
                  for k, c in enumerate(denied))
    items = tuple(sorted(bundle.items + extra, key=lambda i: i.occurrence))
    # The denying rows stand for the record's only norepinephrine: the bundle holds every one.
    coverage = tuple((e, u, n, n) for e, u, _, n in bundle.coverage)
    return replace(bundle, items=items, coverage=coverage, hash=bundle_hash(q, bundle.patient, items, coverage=coverage))


def test_an_uncertain_negation_alone_never_refutes():
    tau_minus = load_thresholds().tau_minus
    assert tau_minus > 0.5  # the frozen point keeps "uncertain weighs half" meaningful
    one = assess(_bundle_with(Assertion(negated=True, uncertain=True), 1))
    assert one.s_minus == 0.5 < tau_minus
    assert one.label is Label.INSUFFICIENT and one.failure is FailureType.NEGATED
    # Two independent uncertain negations weigh more than one (noisy-OR), less than a certain one.
    two = assess(_bundle_with(Assertion(negated=True, uncertain=True), 2))
    assert two.s_minus == 0.75 and two.label is (Label.REFUTED if 0.75 >= tau_minus else Label.INSUFFICIENT)
    certain = assess(_bundle_with(Assertion(negated=True), 1))
    assert certain.s_minus == 1.0 and certain.label is Label.REFUTED


def test_s_num_reads_a_derived_findings_value_fields_not_its_text():
    from medeventgraph.core.decide.assess import value_strength
    from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
    from medeventgraph.core.evidence.contract import Candidate, _item
    from medeventgraph.core.index.derive import derive_occurrences
    from medeventgraph.fhir_adapters.ingest import ingest_json

    from .records import _creatinine

    record = septic_shock_record()
    record["entry"] += [{"resource": _creatinine("meg-cr-up", 1.9, "2023-05-02T07:00:00Z")}]
    occs = ingest_json(record).for_patient("meg-bind-1").occurrences
    [rise] = [o for o in derive_occurrences(occs) if o.concept.codings[0].code == "kdigo-creatinine-rise"]
    assert (rise.value.quantity, rise.value.reference) == (1.9, 0.9)  # lowest prior 0.9 -> 1.9: +1.0
    from medeventgraph.core.evidence.binding import BindingContext
    from medeventgraph.core.evidence.reading import HistoryReading
    from medeventgraph.core.query.lexicon import load_lexicon

    ctx = BindingContext.of(pair("creatinine rise", "vancomycin", ka="derived"), load_lexicon())
    reading = HistoryReading(dict(ctx.events), ctx.expansion)
    item = _item(Candidate(rise, (BindingBasis("e0", BasisKind.KIND, "derived"),)), "u", reading)
    assert value_strength(item) == 1.0
    # The text is for people: rewriting it changes nothing; the fields decide.
    assert value_strength(replace(item, value=replace(item.value, text="0.9 -> 1.2 mg/dL"))) == 1.0
    assert value_strength(replace(item, value=replace(item.value, reference=1.6))) == 0.6  # +0.3: at the criterion
    assert value_strength(replace(item, value=replace(item.value, reference=None))) == 0.6


def test_the_support_label_is_a_rule_and_s_plus_ranks_evidence():
    """docs/discovery-and-evidence.md (Semantics, Scores): over every S+ the scale can reach (S_num >= 0.5: a note
    mention; certainty >= 0.5: uncertain; S_tim 0.8 or 1), a complete chain reaches tau+ and an
    incomplete one never does, with one exception: a chain whose orders rest on note-stated words
    for two or more relations and whose items are uncertain. Values and certainty otherwise rank
    evidence within each side of tau+. If the weights or tau+ changed, this fails and that page's
    claim must change with them."""
    from medeventgraph.core.decide.assess import score_plus

    tau_plus = load_thresholds().tau_plus
    grid = [0.5 + k / 40 for k in range(21)]  # 0.5 .. 1.0
    for s_num in grid:
        for certainty in grid:
            for stated in (0, 1):  # relations decided by a note's words rather than time stamps
                s_jdg = certainty * 0.8 ** stated
                for s_tim in (0.8, 1.0):  # a chain ordered by a note's date bound, or by two time stamps
                    assert score_plus(s_tim, s_num, s_jdg, complete=True) >= tau_plus
            assert score_plus(0.0, 1.0, 1.0, complete=False) < tau_plus
    # The exception, as stated: two note-stated orders between uncertain note mentions.
    assert score_plus(0.8, 0.5, 0.5 * 0.8 ** 2, complete=True) < tau_plus
    assert score_plus(0.8, 0.5, 1.0 * 0.8 ** 2, complete=True) >= tau_plus
