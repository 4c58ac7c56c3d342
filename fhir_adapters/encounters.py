"""What encounters say about everything in them: the period that bounds an item with no time
of its own, the admission a stay is part of, and the end that bounds a start-of-stay note."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from medeventgraph.fhir_adapters.references import ReferenceIndex
from medeventgraph.fhir_adapters.times import encounter_bound
from medeventgraph.model.occurrence import EventTime, Kind, NoteDocument, Occurrence, TimeType

__all__ = ["admissions", "bound_by_encounter_end", "encounter_bounds", "within_admission"]


def encounter_bounds(resources: dict[str, dict[str, Any]], owner: dict[str, str]) -> dict[str, EventTime]:
    """Encounter key -> its period as an ENCOUNTER_BOUNDED time (open-ended while the
    encounter is), for whatever in it has no time of its own."""
    out: dict[str, EventTime] = {}
    for key, res in resources.items():
        if key.startswith("Encounter/") and key in owner:
            bound = encounter_bound(res.get("period"))
            if bound is not None:
                out[key] = bound
    return out


def admissions(resources: dict[str, dict[str, Any]], index: ReferenceIndex,
                bounds: dict[str, EventTime]) -> dict[str, str]:
    """Stay -> the encounter it is part of (an ICU stay's `partOf` its hospital admission).

    FHIR's partOf is "administratively or in time"; a stay is taken as part of its parent for
    encounter scope when their periods overlap (real ICU stays may begin in the ED before the
    admission is recorded, or end minutes after discharge). A partOf that points at a separate
    visit which merely ends where this one starts (an ED visit before the admission) keeps its
    own encounter scope and is joined with it by episode scope only (core.index.episodes_of).
    """
    parent: dict[str, str] = {}
    for key, bound in bounds.items():
        part = index.resolve(resources[key].get("partOf"))
        outer = bounds.get(part) if part is not None else None
        if outer is not None and _overlap(bound, outer):
            parent[key] = part  # type: ignore[assignment]
    out: dict[str, str] = {}
    for key in parent:
        root, seen = key, {key}
        while root in parent and parent[root] not in seen:
            root = parent[root]
            seen.add(root)
        out[key] = root
    return out


def _overlap(a: EventTime, b: EventTime) -> bool:
    """Strict overlap of two periods; an open end runs on."""
    assert a.start is not None and b.start is not None
    return (b.end is None or a.start < b.end) and (a.end is None or b.start < a.end)


def within_admission(occurrences: list[Occurrence], admission: dict[str, str]) -> list[Occurrence]:
    """Whatever happened in a stay belongs to the admission it lies within, for encounter
    scope; the stay itself stays in `links` ("encounter", stay) and bounds its times."""
    if not admission:
        return occurrences
    return [
        replace(o, encounter=admission[o.encounter]) if o.encounter in admission else o  # type: ignore[index]
        for o in occurrences
    ]


_START_STAMP = timedelta(minutes=1)


def bound_by_encounter_end(documents: list[NoteDocument], occurrences: list[Occurrence]) -> list[NoteDocument]:
    """A note stamped with its encounter's start time is bounded by the encounter's end.

    Synthea stamps every note with the start of its encounter while the note lists what was
    given or done later in the stay; taking that stamp as "documented no later than" would
    place later events before earlier ones. A stamp within a minute of the encounter start
    is read as a start-of-stay stamp, and the note's documentation bound becomes the
    encounter's end. Notes dated later in the stay keep their own date.
    """
    periods = {o.id: o.time for o in occurrences if o.kind is Kind.ENCOUNTER and o.time.end is not None}
    out = []
    for doc in documents:
        period = periods.get(doc.encounter) if doc.encounter else None
        stamp = doc.date.start
        if (
            period is not None and period.start is not None and period.end is not None
            and (stamp is None or (abs(stamp - period.start) <= _START_STAMP and period.end > stamp))
        ):
            doc = replace(doc, date=EventTime(period.end, None, TimeType.DOCUMENTATION, period.granularity))
        out.append(doc)
    return out
