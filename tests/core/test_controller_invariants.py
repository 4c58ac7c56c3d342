"""Information-flow invariants of the budgeted search and the default path (paper Eq. 8 and the
evidence contract)."""

from __future__ import annotations

import random

import orjson
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from medeventgraph.core.answer import decide, default_discover, verify_query
from medeventgraph.core.evidence.contract import bundle_hash
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.settings import Settings

from .conftest import AKI_PATIENT, index_of
from .helpers import chain, pair
from .test_purity import whole

QUERIES = [
    pair("vancomycin", "norepinephrine"),
    pair("norepinephrine", "vancomycin"),
    pair("sepsis", "vancomycin", ka="condition", kb="medication"),
    pair("lactate", "piperacillin", ka="lab", within="PT1H"),
    chain([("lactate", "lab"), ("piperacillin", "medication"), ("norepinephrine", "medication")]),
]
VARIANTS = [
    Settings(notes=False),
    Settings(notes=False, discovery="search"),
    Settings(notes=False, discovery="search", d_max=1, k_neighbours=2, top_b=2, final_contexts=4),
    Settings(notes=False, discovery="search", d_max=3, k_neighbours=30, top_b=20, final_contexts=40),
    Settings(notes=False, discovery="search", channel_order=["metadata", "dense", "lexical"]),
    Settings(notes=False, discovery="search", r_max=0),
]


def test_same_bundle_same_verdict_across_budgets_channels_replanning(lance):
    for q in QUERIES:
        seen: dict[str, tuple] = {}
        for s in VARIANTS:
            v = verify_query(lance, q, s)
            again = verify_query(lance, q, s)
            assert whole(v) == whole(again)
            outcome = whole(v)  # label, S+, S-, failure, relations, citations, evidence: all but search
            assert seen.setdefault(v.bundle_hash, outcome) == outcome, (q.id, s)
            assert "depths" not in orjson.dumps([e.model_dump() for e in v.evidence]).decode()


def test_search_metadata_never_enters_the_bundle(lance):
    q = QUERIES[0]
    s = Settings(notes=False, discovery="search")
    discovery = default_discover(s)(lance, q, s)
    bundle, _ = decide(lance, q, discovery)
    assert bundle.hash == bundle_hash(q, bundle.patient, bundle.items, coverage=bundle.coverage)
    fields = set(bundle.items[0].__dataclass_fields__)
    assert not fields & {"score", "rank", "R", "depth", "policy", "signals"}
    assert discovery.metadata["depths"] and discovery.metadata["depths"][0]["top"][0]["R"] > 0


def test_resource_order_changes_nothing(lance_raw):
    s = Settings(notes=False)
    entries = list(lance_raw["entry"])
    random.Random(7).shuffle(entries)
    shuffled = index_of({**lance_raw, "entry": entries}, s)
    original = index_of(lance_raw, s)
    for q in QUERIES:
        a, b = verify_query(original, q, s), verify_query(shuffled, q, s)
        assert a.bundle_hash == b.bundle_hash and whole(a) == whole(b)


def test_replanning_on_off_same_verdict_for_identical_bundles(aki):
    q = chain([("vancomycin", "medication"), ("creatinine rise", "derived"), ("acute kidney injury", "condition")])
    search = Settings(notes=False, discovery="search")
    on, off = verify_query(aki, q, search), verify_query(aki, q, search.model_copy(update={"r_max": 0}))
    if off.bundle_hash == on.bundle_hash:
        assert whole(off) == whole(on)


def test_removing_supporting_resources_never_keeps_support_on_them(lance_raw):
    s = Settings(notes=False)
    q = pair("vancomycin", "norepinephrine")
    entries = list(lance_raw["entry"])
    removed: set[str] = set()
    for _ in range(12):
        index = index_of({**lance_raw, "entry": entries}, s)
        v = verify_query(index, q, s)
        if v.verdict is not Label.SUPPORTED:
            assert v.verdict in (Label.INSUFFICIENT, Label.CONFLICTING, Label.REFUTED)
            break
        cited = {e.source.reference for e in v.evidence if e.polarity == "supports" and "e1" in e.events}
        assert not cited & removed, "support rests on a removed resource"
        removed |= cited
        entries = [e for e in entries if f"{e['resource']['resourceType']}/{e['resource'].get('id')}" not in removed]
    else:
        raise AssertionError("support never went away")
    assert removed


@hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), which=st.sampled_from(QUERIES))
def test_mixed_patients_never_cite_another_patient(lance_raw, clinosim, seed, which):
    others = [r for ref, r in clinosim.resources.items() if clinosim.owner.get(ref) in (AKI_PATIENT, "pt-104b2b36f19f")]
    mixed = [e["resource"] for e in lance_raw["entry"]] + others
    random.Random(seed).shuffle(mixed)
    s = Settings(notes=False)
    lance_id = next(e["resource"]["id"] for e in lance_raw["entry"] if e["resource"]["resourceType"] == "Patient")
    for pid in (lance_id, AKI_PATIENT):
        index = index_of(mixed, s, patient=pid)
        q = which if pid == lance_id else pair("vancomycin", "acute kidney injury", kb="condition")
        v = verify_query(index, q, s)
        for ev in v.evidence:
            assert ev.source.reference in index.record.resources
        for ref in v.citations:
            assert ref.split("#", 1)[0] in index.record.resources, ref
