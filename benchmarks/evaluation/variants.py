"""Derive a case's input record from the patient's record: T5 masks, T6 distractors.

Masks remove what would establish the relation from the *input* (occurrences, their raw
resources, and every note that names the endpoint or belongs to its encounters), so the
index built from the result never sees it. Distractors add resources: other patients'
events, other patients' events and a note carrying the query's exact terms, or a copy of
an endpoint in a different encounter of the same patient. Nothing here reads a label.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from datetime import timedelta

from medeventgraph.core.query.model import RelationType, VerificationQuery
from medeventgraph.evaluation.cases import Case
from medeventgraph.evaluation.data import Corpus
from medeventgraph.evaluation.gold import gold_matches
from medeventgraph.evaluation.gold import norm as normalize_text
from medeventgraph.fhir_adapters.record import PatientRecord
from medeventgraph.model.occurrence import (
    UNKNOWN_TIME,
    EventTime,
    NoteDocument,
    NoteText,
    Occurrence,
    SourceRef,
)

__all__ = ["input_record"]

_NOTE_TYPES = ("DocumentReference", "DiagnosticReport", "Composition")


def input_record(case: Case, corpus: Corpus) -> PatientRecord:
    record = corpus.patients[case.patient].record
    v = case.variant
    if v is None:
        return record
    if v.kind in ("mask_event", "mask_time"):
        return _mask(record, v.get("text"), v.get("kind"), timing_only=v.kind == "mask_time")
    if v.kind == "distractor":
        return _distract(record, case.query, v.get("stratum"), corpus.patients[v.get("other")].record, v.get("seed"))
    raise ValueError(f"unknown variant {v.kind!r}")


def _mask(record: PatientRecord, text: str, kind: str, *, timing_only: bool) -> PatientRecord:
    targets = gold_matches(normalize_text(text), kind, record.occurrences)
    target_ids = {o.id for o in targets}
    encounters = {o.encounter for o in targets if o.encounter}
    term = normalize_text(text)
    dropped_docs = {
        d.reference for d in record.documents
        if d.encounter in encounters or any(term in normalize_text(t.text) for t in d.texts)
    }
    dropped = set(dropped_docs) if timing_only else dropped_docs | {o.source.reference for o in targets}
    occurrences = []
    for o in record.occurrences:
        if o.source.reference in dropped or (o.id in target_ids and not timing_only):
            continue
        if o.id in target_ids:  # timing masked: the event stays, its time does not
            o = replace(o, time=UNKNOWN_TIME, documented=None)
        occurrences.append(o)
    return PatientRecord(
        patient=record.patient,
        occurrences=occurrences,
        documents=[d for d in record.documents if d.reference not in dropped_docs],
        resources={k: r for k, r in record.resources.items() if k not in dropped},
        excluded=dict(record.excluded),
        issues=list(record.issues),
    )


def _claim(query: VerificationQuery):
    """The stated order of the first relation: (earlier event, later event)."""
    r = query.relations[0]
    src, tgt = query.event(r.source), query.event(r.target)
    return (tgt, src) if r.type is RelationType.AFTER else (src, tgt)


def _clone(occ: Occurrence, patient: str, tag: str, **changes) -> tuple[Occurrence, dict]:
    rid = "distractor-" + hashlib.sha1(f"{occ.id}|{patient}|{tag}".encode()).hexdigest()[:16]
    rtype = occ.source.resource_type
    source = SourceRef(rtype, rid, occ.source.json_path)
    raw = {"resourceType": rtype, "id": rid, "subject": {"reference": f"Patient/{patient}"}}
    return replace(occ, id=f"{rtype}/{rid}", patient=patient, source=source, **changes), raw


def _distract(record: PatientRecord, query: VerificationQuery, stratum: str, other: PatientRecord,
              seed: int) -> PatientRecord:
    rng = random.Random(seed)
    first, second = _claim(query)
    firsts = gold_matches(normalize_text(first.text or ""), first.kind, record.occurrences)
    seconds = gold_matches(normalize_text(second.text or ""), second.kind, record.occurrences)
    anchor_a, anchor_b = min(firsts, key=lambda o: o.time.start), max(seconds, key=lambda o: o.time.start)
    added: list[Occurrence] = []
    raws: dict[str, dict] = {}
    docs: list[NoteDocument] = []
    minute = timedelta(minutes=1)

    def add(occ: Occurrence, raw: dict) -> None:
        added.append(occ)
        raws[occ.source.reference] = raw

    if stratum == "other_patient_events":
        pool = [o for o in other.occurrences if o.time.resolved and o.source.reference in other.resources]
        for o in rng.sample(pool, min(40, len(pool))):
            add(o, other.resources[o.source.reference])
    elif stratum == "other_patient_same_name":
        # the other patient "has" both events, placed so that the stated order holds
        add(*_clone(anchor_b, other.patient, "b", time=_at(anchor_a, minute)))
        add(*_clone(anchor_a, other.patient, "a", time=_at(anchor_b, -minute)))
    elif stratum == "other_patient_context_terms":
        text = f"{first.text} was given, and after that {second.text} was recorded. {second.text} followed {first.text}."
        rid = "distractor-note-" + hashlib.sha1(f"{query.id}|{seed}".encode()).hexdigest()[:12]
        when = EventTime(anchor_a.time.start, None, granularity=anchor_a.time.granularity)
        docs.append(NoteDocument("DocumentReference", rid, other.patient, anchor_a.encounter, when,
                                 (NoteText(0, "text/plain", text),)))
        raws[f"DocumentReference/{rid}"] = {"resourceType": "DocumentReference", "id": rid,
                                            "subject": {"reference": f"Patient/{other.patient}"}}
    elif stratum == "same_patient_other_encounter":
        # a copy of the later event one minute after the earlier one, but in another encounter
        used = {o.encounter for o in firsts + seconds}
        encounters = sorted({o.encounter for o in record.occurrences if o.encounter and o.encounter not in used})
        if encounters:
            add(*_clone(anchor_b, record.patient, "enc", time=_at(anchor_a, minute), encounter=rng.choice(encounters)))
    return PatientRecord(
        patient=record.patient,
        occurrences=list(record.occurrences) + added,
        documents=list(record.documents) + docs,
        resources={**record.resources, **raws},
        excluded=dict(record.excluded),
        issues=list(record.issues),
    )


def _at(anchor: Occurrence, delta: timedelta) -> EventTime:
    t = anchor.time
    return EventTime(t.start + delta, None, t.type, t.granularity)
