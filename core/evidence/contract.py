"""The evidence contract: admit only patient-consistent, occurrence-bound, source-resolvable,
not scope-invalid items, and freeze them with the query into a hashed EvidenceBundle.

Occurrence-bound means a binding basis that holds (core.binding): each candidate says why it
stands for each event, and the contract re-checks every basis from the item and the query
alone; a claim that does not hold is dropped and reported in the bundle (`unbound`). When the
caller passes the index's own occurrences (`known`), a candidate whose occurrence differs from
the record's is rejected too ("provenance"): discovery cannot rewrite what an item is.
A candidate is nothing but that occurrence and its bases: every field that changes how an item
reads (its assertion, including a "History of ..." display read as historical, core.reading;
its time, the result time when the query asks for it; its binding) is derived here from the
item and the query.

The bundle holds no scores, ranks, search state or memory: whatever discovery did to find
a candidate, only what the candidate *is* reaches the assessor (paper Eq. 4-5). What the
contract rejected is part of the hashed bundle, because failure typing reads it: the same
hash always comes with the same whole verdict.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

import orjson
from medeventgraph.core.evidence.binding import (
    BasisKind,
    BindingBasis,
    BindingContext,
    basis_holds,
    cited_words,
    following_words,
    preceding_words,
)
from medeventgraph.core.evidence.coverage import CoverageRow, coverage, is_complete
from medeventgraph.core.evidence.reading import HistoryReading
from medeventgraph.core.evidence.stated import StatedItem, check_stated, find_stated
from medeventgraph.core.index.store import render_context
from medeventgraph.core.query.lexicon import Lexicon, normalize_text
from medeventgraph.core.query.model import Scope, VerificationQuery
from medeventgraph.model.occurrence import (
    Assertion,
    EventTime,
    Kind,
    NoteDocument,
    Occurrence,
    Origin,
    SourceRef,
    Value,
)

__all__ = ["Candidate", "EvidenceBundle", "EvidenceItem", "bundle_hash", "contract", "scope_unit"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """Discovery's nomination: an occurrence and why it may ground each query event."""

    occurrence: Occurrence
    basis: tuple[BindingBasis, ...]

    @property
    def events(self) -> tuple[str, ...]:
        return tuple(sorted({b.event for b in self.basis}))


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
    displays: tuple[str, ...] = ()  # normalised display texts: what a text or lexicon basis is checked on
    basis: tuple[BindingBasis, ...] = ()  # why the item binds to each of `events` (each re-checked)
    action: str | None = None  # what happened (core.actions); "resulted": `time` is the result time
    time_words: str | None = None  # a note mention's time: the note's words it was read from ("three weeks ago")

    @property
    def has_issued(self) -> bool:
        """An item's time is already chosen: a collected lab item cannot stand for its result."""
        return False

    @property
    def cited(self) -> str | None:
        """An admitted item keeps no note words: the contract read them (its probe) when it admitted it."""
        return None

    @property
    def preceding(self) -> str | None:
        return None

    @property
    def following(self) -> str | None:
        return None


@dataclass(frozen=True)
class EvidenceBundle:
    """The frozen evidence. Everything here is hashed; the assessor reads nothing else."""

    query: VerificationQuery
    patient: str
    items: tuple[EvidenceItem, ...]
    hash: str
    rejected: tuple[tuple[str, int], ...] = ()  # (reason, count), sorted: what the contract refused
    unbound: tuple[tuple[str, str], ...] = ()  # (occurrence, basis) claims that did not hold
    stated: tuple[StatedItem, ...] = ()  # orders the notes state between admitted items (core.stated)
    coverage: tuple[CoverageRow, ...] = ()  # (event, unit, held, grounded): see core.coverage

    @property
    def rejected_counts(self) -> dict[str, int]:
        return dict(self.rejected)

    def complete(self, event: str, unit: str | None) -> bool:
        """Does the bundle hold every occurrence the record grounds for `event` in `unit`?"""
        return is_complete(self.coverage, event, unit)


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


def _action(occ: Occurrence) -> str | None:
    return occ.action.value if occ.action else None


def _result_time(
    basis: tuple[BindingBasis, ...], query: VerificationQuery
) -> tuple[tuple[BindingBasis, ...], bool, tuple[BindingBasis, ...]]:
    """(bases kept, whether the item's time is the result time, bases dropped). An item has one
    time: when its events differ on asking for the result time (`resulted`), the claims for
    the events asking it are the ones dropped."""
    resulted = tuple(b for b in basis if query.event(b.event).effective_action == "resulted")
    if resulted and len(resulted) < len(basis):
        return tuple(b for b in basis if b not in resulted), False, resulted
    return basis, bool(resulted), ()


def _item(cand: Candidate, unit: str | None, reading: HistoryReading, resulted: bool = False) -> EvidenceItem:
    occ = cand.occurrence
    displays = _displays(occ)
    historical = reading.historical(displays, cand.events)
    assertion = replace(occ.assertion, historical=True) if historical else occ.assertion
    open_end = occ.kind is Kind.CONDITION and occ.origin is Origin.STRUCTURED and occ.time.end is None
    return EvidenceItem(
        occurrence=occ.id,
        events=cand.events,
        patient=occ.patient,
        kind=occ.kind,
        origin=occ.origin,
        concept=occ.concept.text,
        codes=_codes(occ),
        context=render_context(occ),
        time=occ.issued if resulted and occ.issued is not None else occ.time,
        documented=None if resulted else occ.documented,
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
        displays=displays,
        basis=tuple(sorted(set(cand.basis))),
        action="resulted" if resulted else _action(occ),
        time_words=occ.extra_value("time_text") if occ.origin is Origin.NOTE and occ.time.resolved else None,
    )


@dataclass(frozen=True, slots=True)
class _Probe:
    """The part of an item a binding check reads (core.binding.BoundItem)."""

    kind: Kind
    status: str | None
    displays: tuple[str, ...]
    codes: tuple[str, ...]
    action: str | None
    has_issued: bool
    derived_from: tuple[str, ...]
    value: Value | None
    cited: str | None = None  # the note's own characters at the item's span, read here (phrase bases)
    preceding: str | None = None  # the note's characters before them (a phrase basis naming earlier words)
    following: str | None = None  # the rest of the sentence after them (a drug asked with its dose)


def _codes(occ: Occurrence) -> tuple[str, ...]:
    return tuple(f"{c.system or ''}|{c.code}" for c in occ.concept.codings if c.code)


def _displays(occ: Occurrence) -> tuple[str, ...]:
    return tuple(normalize_text(d) for d in occ.concept.displays())


def contract(
    query: VerificationQuery,
    patient: str,
    candidates: Iterable[Candidate],
    resources: Mapping[str, object],
    documents: Mapping[str, NoteDocument],
    episodes: Mapping[str, str],
    lexicon: Lexicon,
    known: Mapping[str, Occurrence] | None = None,
    reference: Sequence[Candidate] | None = None,
) -> EvidenceBundle:
    """Adm(z;c) = patient AND provenance AND source AND binding AND scope != invalid, then
    freeze and hash. `reference`: every grounded occurrence of the query's events in the
    record (core.simple.grounded_candidates), which the bundle's `coverage` is measured
    against; without one, no (event, unit) counts as complete."""
    candidates = list(candidates)
    ctx = BindingContext.of(query, lexicon)
    checked: dict[tuple[_Probe, BindingBasis], bool] = {}
    bound, rejected, unbound = _bind(query, patient, candidates, resources, documents, known, ctx, checked)
    placed = _units(bound, query, episodes)
    if reference is None:
        cover: tuple[CoverageRow, ...] = ()
    else:
        same = reference is candidates or list(reference) == candidates
        expected = placed if same else _units(
            _bind(query, patient, reference, resources, documents, known, ctx, checked)[0], query, episodes)
        cover = coverage([(c.occurrence.id, c.events, u) for c, _, u in placed],
                         [(c.occurrence.id, c.events, u) for c, _, u in expected])
    scoped = _drop_scope_invalid(placed, query, rejected)
    present = {c.occurrence.id for c, _, _ in scoped}
    # Copied-forward text is not independent evidence: keep the origin when it is present.
    originals = [(c, resulted, unit) for c, resulted, unit in scoped
                 if not ((origin := c.occurrence.extra_value("copied_from")) and origin in present)]
    rejected["copied_forward"] += len(scoped) - len(originals)
    reading = HistoryReading(dict(ctx.events), ctx.expansion)
    kept = [_item(c, unit, reading, resulted) for c, resulted, unit in originals]
    kept.sort(key=lambda i: (i.occurrence, i.events))
    frozen = tuple(kept)
    refused = tuple(sorted((+rejected).items()))
    claims = tuple(sorted(unbound))
    by_id = {i.occurrence: i for i in frozen}
    stated = tuple(s for s in find_stated(query, frozen, documents) if check_stated(s, query, by_id, documents))
    digest = bundle_hash(query, patient, frozen, refused, claims, stated, cover)
    return EvidenceBundle(query, patient, frozen, digest, refused, claims, stated, cover)


def _bind(
    query: VerificationQuery,
    patient: str,
    candidates: Iterable[Candidate],
    resources: Mapping[str, object],
    documents: Mapping[str, NoteDocument],
    known: Mapping[str, Occurrence] | None,
    ctx: BindingContext,
    checked: dict[tuple[_Probe, BindingBasis], bool],
) -> tuple[list[tuple[Candidate, bool]], Counter[str], set[tuple[str, str]]]:
    """Patient, provenance, source and binding: (candidate with the bases that hold, whether
    its time is the result time) per admitted occurrence, what was refused, and the claims
    that did not hold. `checked` memoises basis checks across calls on one query, keyed by
    what the check reads (the probe), never by an id a forged occurrence could share."""
    rejected: Counter[str] = Counter()
    unbound: set[tuple[str, str]] = set()
    merged: dict[str, Candidate] = {}
    for cand in candidates:
        occ = cand.occurrence
        if occ.patient != patient:
            rejected["patient"] += 1
        elif known is not None and known.get(occ.id) is not occ and known.get(occ.id) != occ:
            rejected["provenance"] += 1
        elif not _source_resolves(occ, resources, documents):
            rejected["source"] += 1
        else:
            prev = merged.get(occ.id)  # source-level dedup: one item per occurrence
            if prev is not None:
                cand = Candidate(occ, prev.basis + cand.basis)
            merged[occ.id] = cand
    bound: list[tuple[Candidate, bool]] = []
    for cand in merged.values():
        occ = cand.occurrence
        probe = _Probe(occ.kind, occ.status, _displays(occ), _codes(occ), _action(occ), occ.issued is not None,
                       occ.derived_from, occ.value, cited_words(occ.source, documents),
                       _preceding(cand, occ.source, documents), _following(cand, occ, ctx, documents))
        claimed = sorted(set(cand.basis))
        holding = tuple(b for b in claimed if _holds(b, probe, ctx, checked))
        for b in set(claimed) - set(holding):
            unbound.add((cand.occurrence.id, b.describe()))
        if not holding:
            rejected["binding"] += 1
            continue
        holding, resulted, dropped = _result_time(holding, query)
        for b in dropped:
            unbound.add((cand.occurrence.id, b.describe()))
        bound.append((Candidate(cand.occurrence, holding), resulted))
    return bound, rejected, unbound


def _preceding(cand: Candidate, source: SourceRef, documents: Mapping[str, NoteDocument]) -> str | None:
    """The note before the item, read only for a phrase basis that names earlier words."""
    if not any(b.kind is BasisKind.PHRASE and "|named:" in b.detail for b in cand.basis):
        return None
    return preceding_words(source, documents)


def _following(cand: Candidate, occ: Occurrence, ctx: BindingContext,
               documents: Mapping[str, NoteDocument]) -> str | None:
    """The rest of the item's sentence, read only for a drug event asked with its dose."""
    if not any(ctx.dose(e) for e in ctx.events.values() if e.id in {b.event for b in cand.basis}):
        return None
    return following_words(occ.source, documents)


def _holds(basis: BindingBasis, probe: _Probe, ctx: BindingContext,
           checked: dict[tuple[_Probe, BindingBasis], bool]) -> bool:
    key = (probe, basis)
    if key not in checked:
        checked[key] = basis_holds(basis, probe, ctx)
    return checked[key]


Placed = tuple[Candidate, bool, str | None]  # a bound candidate, whether resulted, its scope unit


def _units(bound: list[tuple[Candidate, bool]], query: VerificationQuery, episodes: Mapping[str, str]) -> list[Placed]:
    return [(c, resulted, scope_unit(c.occurrence, query.scope, episodes)) for c, resulted in bound]


def _drop_scope_invalid(placed: list[Placed], query: VerificationQuery, rejected: Counter[str]) -> list[Placed]:
    """An item whose scope unit holds no candidate of any other event cannot be used jointly
    (decided before items are built: most of a long record's rows fall here)."""
    if query.scope is Scope.PATIENT:
        return placed
    units_by_event: dict[str, set[str]] = defaultdict(set)
    for c, _, unit in placed:
        if unit:
            for e in c.events:
                units_by_event[e].add(unit)
    out = []
    for c, resulted, unit in placed:
        others = {u for e, units in units_by_event.items() if e not in c.events for u in units}
        if unit and others and unit not in others:
            rejected["scope"] += 1
            continue
        out.append((c, resulted, unit))
    return out


def bundle_hash(
    query: VerificationQuery,
    patient: str,
    items: tuple[EvidenceItem, ...],
    rejected: tuple[tuple[str, int], ...] = (),
    unbound: tuple[tuple[str, str], ...] = (),
    stated: tuple[StatedItem, ...] = (),
    coverage: tuple[CoverageRow, ...] = (),
) -> str:
    content: dict[str, object] = {"query": query.dump(), "patient": patient, "items": items, "rejected": rejected,
                                  "unbound": unbound, "coverage": coverage}
    if stated:  # bundles without a stated order keep the hash they had
        content["stated"] = stated
    payload = orjson.dumps(
        content,
        option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS,
        default=_encode,
    )
    return "sha256:" + hashlib.sha256(payload).hexdigest()


def _encode(obj: object) -> object:
    if isinstance(obj, EventTime) and obj.width is None:  # a time without a told range keeps the hash it had
        return {k: getattr(obj, k) for k in obj.__dataclass_fields__ if k != "width"}
    if hasattr(obj, "__dataclass_fields__"):
        return {k: getattr(obj, k) for k in obj.__dataclass_fields__}  # type: ignore[attr-defined]
    if isinstance(obj, timedelta):
        return obj.total_seconds()
    raise TypeError(type(obj).__name__)
