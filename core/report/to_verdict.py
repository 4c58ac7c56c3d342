"""Turn a bundle and its assessment into the outgoing Verdict model (no decisions here)."""

from __future__ import annotations

from typing import Any

from medeventgraph.core.decide.assess import Assessment
from medeventgraph.core.evidence.contract import EvidenceBundle, EvidenceItem
from medeventgraph.core.evidence.stated import stated_evidence
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.index.store import format_time
from medeventgraph.core.query.verdict import (
    EvidenceOut,
    Label,
    RelationOut,
    SourceOut,
    TimeOut,
    Verdict,
)
from medeventgraph.model.occurrence import EventTime, TimeType

__all__ = ["to_verdict"]


def _time_out(t: EventTime, words: str | None = None) -> TimeOut:
    return TimeOut(
        start=format_time(t.start) if t.start else None,
        end=format_time(t.end) if t.end else None,
        type=t.type.value,
        granularity=t.granularity.value,
        words=words,
    )


def _evidence(item: EvidenceItem, polarity: str) -> EvidenceOut:
    a = item.assertion
    value = None
    if item.value is not None:
        value = {k: v for k, v in _vars_of(item.value).items() if v is not None}
    return EvidenceOut(
        occurrence=item.occurrence,
        events=list(item.events),
        kind=item.kind.value,
        origin=item.origin.value,
        concept=item.concept,
        codes=list(item.codes),
        context=item.context,
        time=_time_out(item.time, item.time_words),
        documented=_time_out(item.documented) if item.documented else None,
        encounter=item.encounter,
        scope=item.scope,
        assertion={
            "negated": a.negated,
            "uncertain": a.uncertain,
            "hypothetical": a.hypothetical,
            "historical": a.historical,
            "family": a.family,
        },
        value=value,
        source=SourceOut(
            reference=item.source.reference,
            json_path=item.source.json_path,
            attachment=item.source.attachment,
            start=item.source.start,
            end=item.source.end,
            section=item.source.section,
        ),
        derived_from=list(item.derived_from),
        basis=[b.describe() for b in item.basis],
        polarity=polarity,
        action=item.action,
    )


def _vars_of(obj: Any) -> dict[str, Any]:
    return {k: getattr(obj, k) for k in obj.__dataclass_fields__}


def _citations(items: list[EvidenceItem]) -> list[str]:
    refs: list[str] = []
    for i in items:
        refs.append(i.source.citation)
        refs.extend(ref for ref in i.derived_from)
    return list(dict.fromkeys(refs))


def to_verdict(
    index: PatientIndex,
    bundle: EvidenceBundle,
    assessment: Assessment,
    metadata: dict[str, Any],
) -> Verdict:
    supporting, countering = set(assessment.supporting), set(assessment.countering)

    def polarity(i: EvidenceItem) -> str:
        if i.occurrence in countering:
            return "counters"
        return "supports" if i.occurrence in supporting else "neutral"

    polar = [i for i in bundle.items if polarity(i) != "neutral"]
    citations = _citations(polar or list(bundle.items))
    # A placement (the order of telling) that decided nothing is not shown: a narrative places every
    # pair of its mentions, and the bundle (hashed) keeps them all.
    shown = [(s, "counters" if s.id in countering else "supports" if s.id in supporting else "neutral")
             for s in bundle.stated]
    shown = [(s, p) for s, p in shown if p != "neutral" or not s.placement]
    said = [stated_evidence(s, index.documents, p) for s, p in shown]
    citations += [c for (s, _), out in zip(shown, said, strict=True) if out.polarity != "neutral"
                  for c in (s.citation,) if c not in citations]
    issues = [iss.to_fhir() for iss in _validate_cited(index, citations)]
    return Verdict(
        id=bundle.query.id,
        patient=index.patient,
        verdict=assessment.label,
        binary="supported" if assessment.label is Label.SUPPORTED else "not_supported",
        s_plus=assessment.s_plus,
        s_minus=assessment.s_minus,
        citations=citations,
        evidence=[_evidence(i, polarity(i)) for i in bundle.items] + said,
        relations=[
            RelationOut(
                source=f.relation.source,
                target=f.relation.target,
                type=f.relation.type.value,
                within=f.relation.within,
                timing=f.timing.value,
                pair=list(f.pair),
                explanation=f.explanation + _qualifiers(bundle, f.pair),
                stated=f.stated,
            )
            for f in assessment.relations
        ],
        failure=assessment.failure,
        bundle_hash=bundle.hash,
        rejected=bundle.rejected_counts,
        unbound=[f"{occ} {basis}" for occ, basis in bundle.unbound],
        coverage=[f"{event} {unit} {held}/{total}" for event, unit, held, total in bundle.coverage],
        excluded=dict(index.record.excluded),
        issues=issues,
        search=metadata,
    )


def _qualifiers(bundle: EvidenceBundle, pair: tuple[str, ...]) -> str:
    """What the pair's times and actions mean: an action the query asked for, a result time,
    a time known only as its encounter's period."""
    items = {i.occurrence: i for i in bundle.items}
    notes = []
    for occ in pair:
        item = items.get(occ)
        if item is None:
            continue
        asked = {bundle.query.event(e).action for e in item.events} - {None, "any"}
        if asked and item.action:
            notes.append(f"{occ} {item.action}" + (" (time of the result)" if item.action == "resulted" else ""))
        if item.time.type is TimeType.ENCOUNTER_BOUNDED:
            end = format_time(item.time.end) if item.time.end else "an open end"
            notes.append(f"{occ} has no time of its own: within its encounter {format_time(item.time.start)}"
                         f" to {end}")
    return "; " + "; ".join(notes) if notes else ""


def _validate_cited(index: PatientIndex, citations: list[str]):
    """Validate with fhir.resources (R4B) exactly the resources cited; cached per index."""
    try:
        from medeventgraph.fhir_adapters import validate_resource
    except ImportError:
        return []
    cache = index.validation
    out = []
    for ref in citations:
        key = ref.split("#", 1)[0]
        if key not in cache:
            raw = index.record.resources.get(key)
            cache[key] = validate_resource(raw) if raw is not None else []
        out.extend(cache[key])
    return out
