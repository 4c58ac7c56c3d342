"""ServiceRequest -> Kind.PROCEDURE with action ORDERED: a lab draw, an imaging study or a
procedure asked for. An order is not the thing done, so it grounds only events that ask for
what was ordered (query `action: ordered`); a Procedure is what was performed."""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.elements import codes, concept
from medeventgraph.fhir_adapters.mappers.common import NEGATED, pick_time, status_of
from medeventgraph.model.occurrence import AFFIRMED, Action, Kind, Occurrence, Origin, SourceRef

__all__ = ["map_service_request"]

_LINKS = (("basedOn", "basedOn"), ("replaces", "replaces"), ("reasonReference", "reasonReference"))


def map_service_request(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "encounter", "context")
    # authoredOn is when it was ordered; occurrence[x] is when it was meant to happen.
    time, path, documented = pick_time(ctx, raw, "authoredOn", (), "authoredOn", encounter)
    links = ctx.links(raw, _LINKS)
    if encounter is not None:
        links.insert(0, ("encounter", encounter))
    extra: list[tuple[str, str]] = [("resource", "ServiceRequest")]
    for field in ("status", "intent", "priority"):
        value = raw.get(field)
        if isinstance(value, str):
            extra.append((field, value))
    for cat in codes(raw.get("category")):
        extra.append(("category", cat))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.PROCEDURE, origin=Origin.STRUCTURED, concept=concept(raw.get("code")),
        time=time, source=SourceRef("ServiceRequest", key[15:], path), encounter=encounter, episode=episode,
        assertion=NEGATED if raw.get("doNotPerform") is True else AFFIRMED, status=status,
        documented=documented, links=tuple(links), extra=tuple(extra), action=Action.ORDERED,
    ))
