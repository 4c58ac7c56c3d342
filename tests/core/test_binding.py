"""Binding is evidence: the contract re-checks why each item stands for its event, so no
discovery, however adversarial, can make a wrong binding support a verdict."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import Discovery, simple_discovery
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis, BindingContext, basis_holds
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.query.lexicon import load_lexicon
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.occurrence import Concept, Kind
from medeventgraph.model.settings import Settings

from .conftest import index_of
from .helpers import chain, pair
from .records import SNOMED, septic_shock_record, values_record

S = Settings(notes=False)
AKI_Q = pair("vancomycin", "acute kidney injury", kb="condition")
SHOCK_Q = pair("vancomycin", "septic shock", kb="condition")


@pytest.fixture(scope="module")
def shock():
    return index_of(septic_shock_record(), S)


def _occ(index, rid):
    return next(o for o in index.occurrences.values() if o.source.resource_id == rid)


def _discover(candidates):
    return lambda index, query, settings: Discovery(list(candidates), {"discovery": "adversarial"})


def test_septic_shock_bound_to_kidney_injury_is_refused_and_reported(shock):
    honest = verify_query(shock, AKI_Q, S)
    assert honest.verdict is Label.INSUFFICIENT
    vanc, septic = _occ(shock, "meg-bind-vanc-1"), _occ(shock, "meg-bind-shock-1")
    lying = [
        Candidate(vanc, (BindingBasis("e0", BasisKind.CODE, "http://www.nlm.nih.gov/research/umls/rxnorm|11124"),
                         BindingBasis("e0", BasisKind.LEXICON, "vancomycin"))),
        Candidate(septic, (BindingBasis("e1", BasisKind.TEXT, "acute kidney injury"),
                           BindingBasis("e1", BasisKind.LEXICON, "acute kidney injury"),
                           BindingBasis("e1", BasisKind.CODE, f"{SNOMED}|76571007"),
                           BindingBasis("e1", BasisKind.KIND, "condition"))),
    ]
    v = verify_query(shock, AKI_Q, S, discover=_discover(lying))
    assert v.verdict is Label.INSUFFICIENT
    assert v.rejected.get("binding") == 1
    assert len([u for u in v.unbound if u.startswith(septic.id)]) == 4
    assert all("e1" not in e.events for e in v.evidence)
    # The vancomycin item's lexicon basis holds; its code basis does not (the query names no code).
    item = next(e for e in v.evidence if e.occurrence == vanc.id)
    assert item.basis == ["e0:lexicon:vancomycin"]


def test_a_forged_occurrence_is_refused_for_provenance(shock):
    septic = _occ(shock, "meg-bind-shock-1")
    forged = replace(septic, concept=Concept(text="Acute kidney injury"))
    vanc = _occ(shock, "meg-bind-vanc-1")
    cands = [Candidate(vanc, (BindingBasis("e0", BasisKind.LEXICON, "vancomycin"),)),
             Candidate(forged, (BindingBasis("e1", BasisKind.TEXT, "acute kidney injury"),))]
    v = verify_query(shock, AKI_Q, S, discover=_discover(cands))
    assert v.verdict is Label.INSUFFICIENT and v.rejected.get("provenance") == 1


def test_every_grounded_match_carries_a_basis_that_holds(shock):
    for q in (AKI_Q, SHOCK_Q, pair("vanco", "norepinephrine"), pair("antibiotics", "pressor", kb="medication"),
              chain([("vancomycin", "medication"), ("creatinine", "lab"), ("septic shock", "condition")], hidden=(1,))):
        d = simple_discovery(shock, q, S)
        bundle = admit(shock, q, d.candidates)
        assert bundle.unbound == (), (q.id, bundle.unbound)
        assert len(bundle.items) == len({c.occurrence.id for c in d.candidates})
    assert verify_query(shock, SHOCK_Q, S).verdict is Label.SUPPORTED


def test_basis_checks_read_the_item_and_the_query_only(shock):
    ctx = BindingContext.of(SHOCK_Q, load_lexicon())
    septic = _occ(shock, "meg-bind-shock-1")
    d = simple_discovery(shock, SHOCK_Q, S)
    item = admit(shock, SHOCK_Q, d.candidates).items
    shock_item = next(i for i in item if i.occurrence == septic.id)
    assert shock_item.basis == (BindingBasis("e1", BasisKind.LEXICON, "septic shock"),)
    assert basis_holds(BindingBasis("e1", BasisKind.TEXT, "septic shock"), shock_item, ctx)
    assert not basis_holds(BindingBasis("e0", BasisKind.TEXT, "septic shock"), shock_item, ctx)  # wrong kind
    assert not basis_holds(BindingBasis("e1", BasisKind.LEXICON, "sepsis"), shock_item, ctx)  # not what e1 expands to
    assert not basis_holds(BindingBasis("e1", BasisKind.KIND, "condition"), shock_item, ctx)  # e1 is not hidden
    assert not basis_holds(BindingBasis("e9", BasisKind.TEXT, "septic shock"), shock_item, ctx)  # no such event


_EVENTS = st.sampled_from(["e0", "e1"])
_DETAILS = st.sampled_from([
    "acute kidney injury", "aki", "septic shock", "vancomycin", "norepinephrine", "condition", "medication",
    "class:antibiotic", "http://hl7.org/fhir/sid/icd-10-cm|N17.9", f"{SNOMED}|76571007",
    "http://www.nlm.nih.gov/research/umls/rxnorm|11124", "", "renal failure",
    "kdigo-creatinine-rise|Observation/meg-bind-cr-1,Observation/meg-bind-cr-2", "hyperkalemia|Observation/meg-bind-cr-2",
])
_BASIS = st.builds(BindingBasis, _EVENTS, st.sampled_from(list(BasisKind)), _DETAILS)


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_adversarial_discovery_makes_a_wrong_binding_support(shock, data):
    ids = sorted(shock.occurrences)
    picks = data.draw(st.lists(st.tuples(st.sampled_from(ids), st.lists(_BASIS, min_size=1, max_size=4)),
                               min_size=1, max_size=12))
    forge = data.draw(st.booleans())
    cands = []
    for oid, bases in picks:
        occ = shock.occurrences[oid]
        if forge and occ.kind is Kind.CONDITION:
            occ = replace(occ, concept=Concept(text="Acute kidney injury"))
        cands.append(Candidate(occ, tuple(bases)))
    v = verify_query(shock, AKI_Q, S, discover=_discover(cands))
    assert v.verdict is not Label.SUPPORTED
    assert all("e1" not in e.events for e in v.evidence)  # nothing in this record is a kidney injury
    ctx = BindingContext.of(AKI_Q, load_lexicon())
    bundle = admit(shock, AKI_Q, cands)
    assert all(basis_holds(b, i, ctx) for i in bundle.items for b in i.basis)
    assert {b.event for i in bundle.items for b in i.basis} <= {"e0"}


# -- derived-finding: a condition event bound to a finding computed from values ----------------


@pytest.fixture(scope="module")
def values():
    return index_of(values_record(), S)


def _derived(index, rule: str):
    return next(o for o in index.occurrences.values() if o.extra_value("rule") == rule)


def test_a_condition_binds_the_finding_its_rule_indicates(values):
    v = verify_query(values, AKI_Q, S)
    assert v.verdict is Label.SUPPORTED
    kdigo = _derived(values, "kdigo-creatinine-rise")
    [item] = [e for e in v.evidence if "e1" in e.events]
    assert item.occurrence == kdigo.id and item.polarity == "supports"
    assert item.basis == [f"e1:derived-finding:kdigo-creatinine-rise|{','.join(kdigo.derived_from)}"]
    assert list(kdigo.derived_from) == item.derived_from == ["Observation/meg-bind-cr-2", "Observation/meg-bind-cr-3"]  # +0.6 in 24 h
    for condition in ("hyperkalemia", "hyperkalaemia", "elevated potassium"):
        assert verify_query(values, pair("vancomycin", condition, kb="condition"), S).verdict is Label.SUPPORTED
    # On the flat record no value passes a rule: kidney injury stays unsupported (test above).


def test_lactic_acidosis_needs_its_own_limit(values):
    """Lactate 3.0 is an elevated lactate (> 2), not lactic acidosis (>= 4, derive_rules.json)."""
    assert verify_query(values, pair("vancomycin", "elevated lactate"), S).verdict is Label.SUPPORTED
    v = verify_query(values, pair("vancomycin", "lactic acidosis", kb="condition"), S)
    assert v.verdict is Label.INSUFFICIENT and not any("e1" in e.events for e in v.evidence)
    lactate = _derived(values, "elevated-lactate")
    ctx = BindingContext.of(pair("vancomycin", "lactic acidosis", kb="condition"), load_lexicon())
    claim = BindingBasis("e1", BasisKind.DERIVED_FINDING, f"elevated-lactate|{lactate.derived_from[0]}")
    assert not basis_holds(claim, _probe(lactate), ctx)
    stronger = _probe(replace(lactate, value=replace(lactate.value, quantity=4.2)))
    assert basis_holds(claim, stronger, ctx)


def _probe(occ):
    from medeventgraph.core.evidence.contract import _Probe

    return _Probe(occ.kind, occ.status, (), tuple(f"{c.system}|{c.code}" for c in occ.concept.codings), None, False,
                  occ.derived_from, occ.value)


def test_derived_finding_claims_that_do_not_hold_are_refused(values):
    kdigo, potassium = _derived(values, "kdigo-creatinine-rise"), _derived(values, "hyperkalemia")
    ctx = BindingContext.of(AKI_Q, load_lexicon())
    cited = ",".join(kdigo.derived_from)
    good = BindingBasis("e1", BasisKind.DERIVED_FINDING, f"kdigo-creatinine-rise|{cited}")
    assert basis_holds(good, _probe(kdigo), ctx)
    refused = [
        BindingBasis("e0", BasisKind.DERIVED_FINDING, f"kdigo-creatinine-rise|{cited}"),  # a medication event
        BindingBasis("e1", BasisKind.DERIVED_FINDING, f"kdigo-creatinine-rise|{kdigo.derived_from[1]}"),  # cites less
        BindingBasis("e1", BasisKind.DERIVED_FINDING, f"hyperkalemia|{cited}"),  # not the item's rule
    ]
    assert not any(basis_holds(b, _probe(kdigo), ctx) for b in refused)
    # The potassium finding indicates hyperkalemia, not kidney injury, whatever its claim says.
    claim = BindingBasis("e1", BasisKind.DERIVED_FINDING, f"hyperkalemia|{potassium.derived_from[0]}")
    assert not basis_holds(claim, _probe(potassium), ctx)
    # A finding whose own value does not pass its rule (a forged 1.1 after 0.9) never binds.
    small = replace(kdigo.value, quantity=1.1)
    assert not basis_holds(good, _probe(replace(kdigo, value=small)), ctx)


def test_adversarial_derived_findings_never_support(values):
    """A discovery that binds the potassium and lactate findings, and a forged rise, to kidney
    injury: only the real KDIGO finding can ground it; without it nothing supports."""
    kdigo, potassium, lactate = (_derived(values, r) for r in ("kdigo-creatinine-rise", "hyperkalemia", "elevated-lactate"))
    vanc = _occ(values, "meg-bind-vanc-1")
    lying = [Candidate(vanc, (BindingBasis("e0", BasisKind.LEXICON, "vancomycin"),))] + [
        Candidate(o, (BindingBasis("e1", BasisKind.DERIVED_FINDING, f"kdigo-creatinine-rise|{','.join(o.derived_from)}"),
                      BindingBasis("e1", BasisKind.DERIVED_FINDING, f"{o.extra_value('rule')}|{','.join(o.derived_from)}"),
                      BindingBasis("e1", BasisKind.KIND, "condition")))
        for o in (potassium, lactate)]
    forged = replace(kdigo, value=replace(kdigo.value, quantity=2.5))
    v = verify_query(values, AKI_Q, S, discover=_discover(lying))
    assert v.verdict is Label.INSUFFICIENT and v.rejected.get("binding") == 2
    v = verify_query(values, AKI_Q, S, discover=_discover(
        [*lying, Candidate(forged, (BindingBasis("e1", BasisKind.DERIVED_FINDING,
                                                f"kdigo-creatinine-rise|{','.join(kdigo.derived_from)}"),))]))
    assert v.verdict is Label.INSUFFICIENT and v.rejected.get("provenance") == 1


def test_a_drug_asked_with_its_dose_needs_an_item_stating_that_dose():
    from types import SimpleNamespace

    from medeventgraph.core.evidence.binding import states_dose

    tablet = SimpleNamespace(displays=("carvedilol 6.25 mg oral tablet",), following=None)
    other = SimpleNamespace(displays=("carvedilol 12.5 mg oral tablet",), following=None)
    told = SimpleNamespace(displays=("coreg",), following=" was decreased to 6.25 mg b.i.d")
    far = SimpleNamespace(displays=("coreg",), following=" was continued with a plan to reach 6.25 mg")
    dose = load_lexicon().stated_dose("Coreg 6.25 mg")
    assert states_dose(tablet, dose) and states_dose(told, dose)
    assert not states_dose(other, dose) and not states_dose(far, dose)
    assert states_dose(other, None)  # no dose asked: any
    assert not states_dose(SimpleNamespace(displays=("carvedilol 16.25 mg",), following=None), dose)
