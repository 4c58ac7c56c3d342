"""The contract re-derives every field that changes an item's reading from the item itself
and the query (issue #20, reproduction 3): what a candidate claims beyond its occurrence and
its binding bases cannot change a verdict, and each of those two is re-checked."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import Discovery, simple_discovery
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.occurrence import (
    Assertion,
    Concept,
    EventTime,
    Kind,
    Occurrence,
    Origin,
    SourceRef,
    Value,
)
from medeventgraph.model.settings import Settings

from .conftest import index_of
from .helpers import pair
from .records import _condition, septic_shock_record

S = Settings(notes=False)
MI_Q = pair("vancomycin", "myocardial infarction", kb="condition")


def _history_record() -> dict:
    """Vancomycin on 05-01, and on 05-04 a Condition coded as the *history* of an infarction."""
    base = septic_shock_record()
    history = _condition("meg-hist-mi-1", "399211009", "History of myocardial infarction (situation)",
                         "2023-05-04T09:00:00Z")
    return {**base, "entry": [*base["entry"], {"resource": history}]}


@pytest.fixture(scope="module")
def history():
    return index_of(_history_record(), S)


def _occ(index, rid: str) -> Occurrence:
    return next(o for o in index.occurrences.values() if o.source.resource_id == rid)


def test_a_history_display_reads_historical_whatever_discovery_says(history):
    """Reproduction: with discovery's historical flag dropped (a candidate carries only its
    occurrence and a basis that holds), the 'History of ...' row once supported at S+ 1.0."""
    honest = verify_query(history, MI_Q, S)
    assert honest.verdict is not Label.SUPPORTED
    vanc, mi = _occ(history, "meg-bind-vanc-1"), _occ(history, "meg-hist-mi-1")
    bare = [Candidate(vanc, (BindingBasis("e0", BasisKind.LEXICON, "vancomycin"),)),
            Candidate(mi, (BindingBasis("e1", BasisKind.LEXICON, "myocardial infarction"),))]
    v = verify_query(history, MI_Q, S, discover=lambda i, q, s: Discovery(bare))
    assert v.verdict is not Label.SUPPORTED
    [item] = [e for e in v.evidence if "e1" in e.events]
    assert item.assertion["historical"] and item.basis == ["e1:lexicon:myocardial infarction"]
    # The same row answers a question about the history itself: the query decides, not discovery.
    asked = pair("vancomycin", "history of myocardial infarction", kb="condition")
    assert verify_query(history, asked, S).verdict is Label.SUPPORTED


def _perturbed(value: object) -> object:
    """Some other value of the same type: what a lying discovery could put in a field."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return value + "-forged"
    if value is None:
        return "forged"
    if isinstance(value, Kind):
        return Kind.CONDITION if value is not Kind.CONDITION else Kind.MEDICATION
    if isinstance(value, Origin):
        return Origin.NOTE if value is not Origin.NOTE else Origin.STRUCTURED
    if isinstance(value, Concept):
        return Concept(text="myocardial infarction")
    if isinstance(value, EventTime):
        return dataclasses.replace(value, start=(value.start + timedelta(days=9)) if value.start else None)
    if isinstance(value, SourceRef):
        return dataclasses.replace(value, json_path=value.json_path + ".forged")
    if isinstance(value, Value):
        return dataclasses.replace(value, quantity=(value.quantity or 0) + 5)
    if isinstance(value, Assertion):
        return Assertion()
    if isinstance(value, tuple):
        return (*value, ("forged", "forged"))
    raise AssertionError(f"no perturbation for {type(value).__name__}")


def test_every_field_of_a_candidate_is_rechecked_or_re_derived(history):
    """Vary each field of each candidate, one at a time: the contract either refuses the
    candidate or admits exactly the item the honest candidate gives. A field added to
    Candidate or Occurrence that the contract trusted would fail here."""
    honest = simple_discovery(history, MI_Q, S).candidates
    reference = {i.occurrence: i for i in admit(history, MI_Q, honest).items}
    assert {f.name for f in dataclasses.fields(Candidate)} == {"occurrence", "basis"}
    varied = 0
    for k, cand in enumerate(honest):
        others = honest[:k] + honest[k + 1:]
        occ = cand.occurrence
        variants = [Candidate(dataclasses.replace(occ, **{f.name: _perturbed(getattr(occ, f.name))}), cand.basis)
                    for f in dataclasses.fields(Occurrence) if f.name != "id"]
        variants += [Candidate(occ, tuple(dataclasses.replace(b, detail=b.detail + " forged") for b in cand.basis)),
                     Candidate(occ, tuple(dataclasses.replace(b, kind=BasisKind.KIND) for b in cand.basis)),
                     Candidate(occ, ())]
        for variant in variants:
            bundle = admit(history, MI_Q, [*others, variant])
            got = {i.occurrence: i for i in bundle.items}.get(occ.id)
            assert got is None or got == reference.get(occ.id), (occ.id, variant)
            varied += 1
    assert varied > 2 * len(dataclasses.fields(Occurrence))
