"""Binding is evidence: the contract re-checks why each item stands for its event, so no
discovery, however adversarial, can make a wrong binding support a verdict."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from medeventgraph.core.binding import BasisKind, BindingBasis, BindingContext, basis_holds
from medeventgraph.core.contract import Candidate
from medeventgraph.core.lexicon import load_lexicon
from medeventgraph.core.simple import Discovery, simple_discovery
from medeventgraph.core.verdict import Label
from medeventgraph.core.verify import admit, verify_query
from medeventgraph.occurrence import Concept, Kind
from medeventgraph.settings import Settings

from .conftest import index_of
from .helpers import chain, pair
from .records import SNOMED, septic_shock_record

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
