"""Verdict = f(bundle): the same bundle hash always comes with the same whole verdict (label,
S+, S-, failure, relations, citations, evidence; everything but `search`), whatever discovery
did: budgets, channel orders, replanning on or off, exhaustive or search, input order."""

from __future__ import annotations

import random

import pytest
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.exhaustive import Discovery
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.settings import Settings

from .conftest import index_of
from .helpers import chain, pair
from .records import two_encounter_record

VARIANTS = [
    Settings(notes=False),
    Settings(notes=False, discovery="search"),
    Settings(notes=False, discovery="search", d_max=1, k_neighbours=2, top_b=2, final_contexts=2),
    Settings(notes=False, discovery="search", d_max=3, k_neighbours=30, top_b=20, final_contexts=40),
    Settings(notes=False, discovery="search", channel_order=["metadata", "lexical"]),
    Settings(notes=False, discovery="search", r_max=0),
]
QUERIES = [
    pair("vancomycin", "acute kidney injury", kb="condition"),
    pair("vancomycin", "acute kidney injury", kb="condition", scope="patient"),
    pair("vancomycin", "septic shock", kb="condition"),
    pair("norepinephrine", "vancomycin"),
    pair("vancomycin", "norepinephrine", within="PT6H"),
    chain([("vancomycin", "medication"), ("septic shock", "condition"), ("norepinephrine", "medication")]),
]


def whole(v) -> dict:
    return v.model_dump(mode="json", exclude={"search"})


@pytest.fixture(scope="module")
def raw():
    return two_encounter_record()


@pytest.fixture(scope="module")
def index(raw):
    return index_of(raw, Settings(notes=False))


def _occ(index, rid):
    return next(o for o in index.occurrences.values() if o.source.resource_id == rid)


def test_failure_is_read_from_the_record_s_grounding_not_from_what_discovery_tried(index):
    """Two discoveries leave the same (empty) set of admissible items: one nominates nothing,
    the other a vancomycin dose and the kidney injury of a later admission, which the contract
    drops as scope-invalid. Both bundles record (coverage) that the record grounds each event,
    in different admissions only: the failure is `scope` for both. What the contract refused
    is shown, so it is hashed: the hashes differ."""
    q = QUERIES[0]
    vanc, aki = _occ(index, "meg-bind-vanc-1"), _occ(index, "meg-bind-aki-2")
    vb = (BindingBasis("e0", BasisKind.LEXICON, "vancomycin"),)
    ab = (BindingBasis("e1", BasisKind.LEXICON, "acute kidney injury"),)
    only = verify_query(index, q, Settings(notes=False), discover=lambda i, qq, s: Discovery([]))
    both = verify_query(index, q, Settings(notes=False),
                        discover=lambda i, qq, s: Discovery([Candidate(vanc, vb), Candidate(aki, ab)]))
    assert only.evidence == both.evidence == []
    assert only.failure is both.failure is FailureType.SCOPE
    assert only.bundle_hash != both.bundle_hash
    assert both.rejected == {"scope": 2}
    absent = pair("vancomycin", "myocardial infarction", kb="condition")  # grounded nowhere in this record
    assert verify_query(index, absent, Settings(notes=False)).failure is FailureType.MISSING_ENDPOINT


def test_same_hash_same_whole_verdict(raw, index):
    entries = list(raw["entry"])
    random.Random(11).shuffle(entries)
    shuffled = index_of({**raw, "entry": entries}, Settings(notes=False))
    collisions = 0
    for q in QUERIES:
        seen: dict[str, dict] = {}
        for s in VARIANTS:
            for idx in (index, shuffled):
                v = verify_query(idx, q, s)
                if v.bundle_hash in seen:
                    collisions += 1
                    assert seen[v.bundle_hash] == whole(v), (q.id, s)
                seen[v.bundle_hash] = whole(v)
    assert collisions >= len(QUERIES) * len(VARIANTS)  # at least input order collides every time
    labels = {verify_query(index, q, Settings(notes=False)).verdict for q in QUERIES}
    assert {Label.SUPPORTED, Label.INSUFFICIENT} <= labels
