"""MedicationAdministration, -Request, -Statement, -Dispense -> Kind.MEDICATION.

All four share a kind; each carries its `action` (administered, ordered, reported, dispensed)
so core can tell an order (MedicationRequest, time = authoredOn) from a given dose.
"""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.elements import as_list, concept, first_code, quantity_value
from medeventgraph.fhir_adapters.mappers.common import (
    HYPOTHETICAL,
    NEGATED,
    did_not_happen,
    pick_time,
    status_of,
)
from medeventgraph.model.occurrence import (
    AFFIRMED,
    Action,
    Kind,
    Occurrence,
    Origin,
    SourceRef,
    TimeType,
    Value,
)

__all__ = [
    "map_medication_administration",
    "map_medication_dispense",
    "map_medication_request",
    "map_medication_statement",
]

_STRUCTURED = Origin.STRUCTURED


def _extra(rtype: str, raw: dict[str, Any], *fields: str) -> list[tuple[str, str]]:
    extra = [("resource", rtype)]
    for f in fields:
        v = raw.get(f)
        if isinstance(v, str):
            extra.append((f, v))
    return extra


def _with_encounter(encounter: str | None, links: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    if encounter is not None:
        links.insert(0, ("encounter", encounter))
    return tuple(links)


def map_medication_administration(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "context", "encounter")
    time, path, documented = pick_time(ctx, raw, "effective", (), "effective[x]", encounter)
    drug, _ = ctx.medication(raw)
    links = ctx.links(raw, (("request", "request"), ("partOf", "partOf"), ("reasonReference", "reasonReference")))
    value = None
    dosage = raw.get("dosage")
    extra = _extra("MedicationAdministration", raw, "status")
    if isinstance(dosage, dict):
        q, unit = quantity_value(dosage.get("dose"))
        if q is not None:
            value = Value(quantity=q, unit=unit)
        route = concept(dosage.get("route")).text
        if route:
            extra.append(("route", route))
    category = first_code(raw.get("category"))
    if category:
        extra.append(("category", category))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.MEDICATION, origin=_STRUCTURED, concept=drug, time=time,
        source=SourceRef("MedicationAdministration", key[25:], path), encounter=encounter, episode=episode,
        value=value, assertion=NEGATED if did_not_happen(status, path) else AFFIRMED, status=status,
        documented=documented, links=_with_encounter(encounter, links), extra=tuple(extra),
        action=Action.ADMINISTERED,
    ))


def map_medication_request(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "encounter", "context")
    time, path, documented = pick_time(ctx, raw, "authoredOn", (), "authoredOn", encounter)
    drug, _ = ctx.medication(raw)
    links = ctx.links(raw, (("basedOn", "basedOn"), ("priorPrescription", "priorPrescription"),
                            ("reasonReference", "reasonReference")))
    extra = _extra("MedicationRequest", raw, "intent", "status", "priority")
    for cat in as_list(raw.get("category")):
        code = first_code(cat)
        if code:
            extra.append(("category", code))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.MEDICATION, origin=_STRUCTURED, concept=drug, time=time,
        source=SourceRef("MedicationRequest", key[18:], path), encounter=encounter, episode=episode,
        assertion=NEGATED if raw.get("doNotPerform") is True else AFFIRMED, status=status,
        documented=documented, links=_with_encounter(encounter, links), extra=tuple(extra),
        action=Action.ORDERED,
    ))


def map_medication_statement(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "context", "encounter")
    time, path, documented = pick_time(ctx, raw, "effective", (("dateAsserted", TimeType.DOCUMENTATION),),
                                       "effective[x] or dateAsserted", encounter)
    drug, _ = ctx.medication(raw)
    links = ctx.links(raw, (("basedOn", "basedOn"), ("partOf", "partOf"), ("derivedFrom", "derivedFrom"),
                            ("reasonReference", "reasonReference")))
    if status == "not-taken":
        assertion = NEGATED
    elif status == "intended":
        assertion = HYPOTHETICAL
    else:
        assertion = AFFIRMED
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.MEDICATION, origin=_STRUCTURED, concept=drug, time=time,
        source=SourceRef("MedicationStatement", key[20:], path), encounter=encounter, episode=episode,
        assertion=assertion, status=status, documented=documented,
        links=_with_encounter(encounter, links), extra=tuple(_extra("MedicationStatement", raw, "status")),
        action=Action.REPORTED,
    ))


def map_medication_dispense(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    """A dispense is a supply event: handed over (else prepared), not proof of a dose taken."""
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "context", "encounter")
    time, path, documented = pick_time(ctx, raw, "whenHandedOver", (("whenPrepared", TimeType.RECORDED),),
                                       "whenHandedOver or whenPrepared", encounter)
    drug, _ = ctx.medication(raw)
    links = ctx.links(raw, (("authorizingPrescription", "request"), ("partOf", "partOf")))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.MEDICATION, origin=_STRUCTURED, concept=drug, time=time,
        source=SourceRef("MedicationDispense", key[19:], path), encounter=encounter, episode=episode,
        assertion=NEGATED if status == "declined" else AFFIRMED, status=status, documented=documented,
        links=_with_encounter(encounter, links), extra=tuple(_extra("MedicationDispense", raw, "status")),
        action=Action.DISPENSED,
    ))
