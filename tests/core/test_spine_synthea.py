"""Issue 2 acceptance over every shared Synthea bundle, with queries built from each record.

Rules for the generated queries (no labels are read from anywhere but the record):
  * ordered pairs: two concepts X, Y of the patient's structured record such that every
    occurrence grounding X (structured or note mention, by its recorded time or note date)
    is at least two days before every occurrence grounding Y. Then "X before Y" must be
    supported and "Y before X" must not be.
  * absent events: concepts the lexicon knows and the record has no occurrence of; a query
    naming one is never supported.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from medeventgraph.api import load, select_patient
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.exhaustive import ground_all, query_mentions
from medeventgraph.core.index.patient_index import PatientIndex, build_index
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.occurrence import Kind, Origin
from medeventgraph.model.settings import Settings

GAP = timedelta(days=2)
ABSENT = ["acute kidney injury", "hyperkalemia", "warfarin", "hemodialysis", "diabetic ketoacidosis"]


def _bundles(synthea_dir: Path) -> list[Path]:
    return sorted(p for p in synthea_dir.glob("*.json") if not p.name.startswith(("hospital", "practitioner")))


@pytest.fixture(scope="module")
def indexes(synthea_dir: Path, note_pipeline) -> list[PatientIndex]:
    settings = Settings()
    out = []
    for path in _bundles(synthea_dir):
        result = load(path, settings=settings)
        index = build_index(select_patient(result, None), settings, notes=note_pipeline)
        OWNERS[index.patient] = dict(result.owner)
        out.append(index)
    return out


OWNERS: dict[str, dict[str, str]] = {}


def _query(qid: str, a: str, b: str, kind_a: str, kind_b: str) -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": qid,
        "events": [{"id": "a", "text": a, "kind": kind_a}, {"id": "b", "text": b, "kind": kind_b}],
        "relations": [{"from": "a", "to": "b", "type": "before"}],
        "scope": "patient",
    })


def _times(index: PatientIndex, query: VerificationQuery, event: str):
    grounding = ground_all(index, query)[event]
    pool = {**index.occurrences, **{o.id: o for o in query_mentions(index, query)}}
    out = []
    for oid in grounding.occurrence_ids:
        occ = pool[oid]
        t = occ.time.start if occ.time.resolved else (occ.documented.start if occ.documented else None)
        if t is None:
            return None
        out.append(t)
    return out


_QUERY_KINDS = {Kind.MEDICATION: "medication", Kind.PROCEDURE: "procedure", Kind.CONDITION: "condition"}


def _ordered_pairs(index: PatientIndex, limit: int = 4) -> list[VerificationQuery]:
    firsts: dict[str, tuple] = {}
    for occ in index.record.occurrences:
        if occ.origin is Origin.STRUCTURED and occ.kind in _QUERY_KINDS and occ.time.resolved and occ.concept.text:
            key = occ.concept.text
            if key not in firsts or occ.time.start < firsts[key][0]:
                firsts[key] = (occ.time.start, _QUERY_KINDS[occ.kind])
    concepts = sorted(firsts.items(), key=lambda kv: (kv[1][0], kv[0]))
    out: list[VerificationQuery] = []
    step = max(1, len(concepts) // 12)
    for i in range(0, len(concepts), step):
        for j in range(i + 1, len(concepts), step):
            (x, (_, kx)), (y, (_, ky)) = concepts[i], concepts[j]
            q = _query(f"pair-{i}-{j}", x, y, kx, ky)
            tx, ty = _times(index, q, "a"), _times(index, q, "b")
            if tx and ty and max(tx) + GAP < min(ty):
                out.append(q)
                break
        if len(out) >= limit:
            break
    return out


def test_every_citation_resolves_to_the_queried_patient(indexes):
    checked = 0
    for index in indexes:
        for q in _ordered_pairs(index, limit=2):
            v = verify_query(index, q, Settings())
            assert v.citations, q.id
            for ref in v.citations:
                resource = ref.split("#", 1)[0]
                assert resource in index.record.resources, (q.id, ref)
                assert OWNERS[index.patient].get(resource) == index.patient, (q.id, ref)
            checked += 1
    assert checked >= min(8, len(indexes) + 2)  # 12 shared patients, or the 4 bundled ones


def test_strictly_ordered_pairs_are_supported_one_way_only(indexes):
    pairs = 0
    for index in indexes:
        for q in _ordered_pairs(index):
            forward = verify_query(index, q, Settings())
            assert forward.verdict is Label.SUPPORTED, (index.patient, q.id, forward.failure)
            backward = q.model_copy(update={"relations": [q.relations[0].model_copy(update={"source": "b", "target": "a"})]})
            reverse = verify_query(index, backward, Settings())
            assert reverse.verdict is not Label.SUPPORTED, (index.patient, q.id)
            assert reverse.verdict is Label.REFUTED, (index.patient, q.id, reverse.failure)
            pairs += 1
    assert pairs >= min(20, 3 * len(indexes))


def test_absent_events_are_never_supported(indexes):
    for index in indexes:
        present = {o.concept.normalized for o in index.record.occurrences}
        for absent in ABSENT:
            assert not any(absent in p for p in present)
            for other, kind in (("encounter for symptom", "procedure"), ("aspirin", "medication")):
                q = _query(f"{absent}-{other}", absent, other, None, kind)
                v = verify_query(index, q, Settings())
                assert v.verdict is not Label.SUPPORTED, (index.patient, q.id)
                assert v.failure is not None
