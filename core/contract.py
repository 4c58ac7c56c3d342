"""The evidence contract: admit only patient-consistent, occurrence-bound, source-resolvable,
not scope-invalid items, and freeze them with the query into a hashed EvidenceBundle.

The bundle holds no scores, ranks, search state or memory: whatever discovery did to find
a candidate, only what the candidate *is* reaches the assessor (paper Eq. 4-5).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import orjson
from medeventgraph.core.query import Scope, VerificationQuery
from medeventgraph.core.store import render_context
from medeventgraph.occurrence import (
    Assertion,
    EventTime,
    Kind,
    NoteDocument,
    Occurrence,
    Origin,
    SourceRef,
    Value,
)

__all__ = ["Candidate", "EvidenceBundle", "EvidenceItem", "contract", "scope_unit"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """Discovery's nomination: an occurrence and the query events it may ground."""

    occurrence: Occurrence
    events: tuple[str, ...]
    historical_display: bool = False


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    occurrence: str
    events: tuple[str, ...]
    patient: str
    kind: Kind
    origin: Origin
    concept: str
    codes: tuple[str, ...]
    context: str
    time: EventTime
    documented: EventTime | None
    open_end: bool
    encounter: str | None
    unit: str | None  # the scope unit (encounter, episode or patient key) or None if unknown
    scope: str  # "valid" | "unknown"
    assertion: Assertion
    status: str | None
    value: Value | None
    source: SourceRef
    derived_from: tuple[str, ...] = ()
    copied_from: str | None = None


@dataclass(frozen=True)
class EvidenceBundle:
    query: VerificationQuery
    patient: str
    items: tuple[EvidenceItem, ...]
    hash: str
    rejected: Mapping[str, int] = field(default_factory=dict, compare=False, hash=False)


def scope_unit(occ: Occurrence, scope: Scope, episodes: Mapping[str, str]) -> str | None:
    if scope is Scope.PATIENT:
        return f"Patient/{occ.patient}"
    if occ.encounter is None:
        return None
    if scope is Scope.ENCOUNTER:
        return occ.encounter
    return occ.episode or episodes.get(occ.encounter)


def _source_resolves(
    occ: Occurrence, resources: Mapping[str, object], documents: Mapping[str, NoteDocument]
) -> bool:
    src = occ.source
    if occ.origin is Origin.DERIVED:
        return bool(occ.derived_from) and all(ref.split("#", 1)[0] in resources for ref in occ.derived_from)
    if src.reference not in resources:
        return False
    if src.start is None:
        return True
    doc = documents.get(src.reference)
    if doc is None or src.end is None:
        return False
    text = next((t.text for t in doc.texts if t.attachment == (src.attachment or 0)), None)
    return text is not None and 0 <= src.start < src.end <= len(text)


def _item(cand: Candidate, unit: str | None) -> EvidenceItem:
    occ = cand.occurrence
    assertion = replace(occ.assertion, historical=True) if cand.historical_display else occ.assertion
    open_end = occ.kind is Kind.CONDITION and occ.origin is Origin.STRUCTURED and occ.time.end is None
    return EvidenceItem(
        occurrence=occ.id,
        events=tuple(sorted(set(cand.events))),
        patient=occ.patient,
        kind=occ.kind,
        origin=occ.origin,
        concept=occ.concept.text,
        codes=tuple(f"{c.system}|{c.code}" for c in occ.concept.codings if c.code),
        context=render_context(occ),
        time=occ.time,
        documented=occ.documented,
        open_end=open_end,
        encounter=occ.encounter,
        unit=unit,
        scope="valid" if unit else "unknown",
        assertion=assertion,
        status=occ.status,
        value=occ.value,
        source=occ.source,
        derived_from=occ.derived_from,
        copied_from=occ.extra_value("copied_from"),
    )


def contract(
    query: VerificationQuery,
    patient: str,
    candidates: Iterable[Candidate],
    resources: Mapping[str, object],
    documents: Mapping[str, NoteDocument],
    episodes: Mapping[str, str],
) -> EvidenceBundle:
    """Adm(z;c) = patient AND binding AND source AND scope != invalid, then freeze and hash."""
    rejected: Counter[str] = Counter()
    merged: dict[str, Candidate] = {}
    for cand in candidates:
        occ = cand.occurrence
        if occ.patient != patient:
            rejected["patient"] += 1
        elif not cand.events:
            rejected["binding"] += 1
        elif not _source_resolves(occ, resources, documents):
            rejected["source"] += 1
        else:
            prev = merged.get(occ.id)  # source-level dedup: one item per occurrence
            if prev is not None:
                cand = Candidate(occ, prev.events + cand.events, prev.historical_display or cand.historical_display)
            merged[occ.id] = cand
    items = [_item(c, scope_unit(c.occurrence, query.scope, episodes)) for c in merged.values()]
    items = _drop_scope_invalid(items, query, rejected)
    present = {i.occurrence for i in items}
    # Copied-forward text is not independent evidence: keep the origin when it is present.
    kept = [i for i in items if not (i.copied_from and i.copied_from in present)]
    rejected["copied_forward"] += len(items) - len(kept)
    kept.sort(key=lambda i: (i.occurrence, i.events))
    frozen = tuple(kept)
    return EvidenceBundle(query, patient, frozen, bundle_hash(query, patient, frozen), dict(+rejected))


def _drop_scope_invalid(
    items: list[EvidenceItem], query: VerificationQuery, rejected: Counter[str]
) -> list[EvidenceItem]:
    """An item whose scope unit holds no candidate of any other event cannot be used jointly."""
    if query.scope is Scope.PATIENT:
        return items
    units_by_event: dict[str, set[str]] = defaultdict(set)
    for i in items:
        if i.unit:
            for e in i.events:
                units_by_event[e].add(i.unit)
    out = []
    for i in items:
        others = {u for e, units in units_by_event.items() if e not in i.events for u in units}
        if i.unit and others and i.unit not in others:
            rejected["scope"] += 1
            continue
        out.append(i)
    return out


def bundle_hash(query: VerificationQuery, patient: str, items: tuple[EvidenceItem, ...]) -> str:
    payload = orjson.dumps(
        {"query": query.dump(), "patient": patient, "items": items},
        option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS,
        default=_encode,
    )
    return "sha256:" + hashlib.sha256(payload).hexdigest()


def _encode(obj: object) -> object:
    if hasattr(obj, "__dataclass_fields__"):
        return {k: getattr(obj, k) for k in obj.__dataclass_fields__}  # type: ignore[attr-defined]
    raise TypeError(type(obj).__name__)
