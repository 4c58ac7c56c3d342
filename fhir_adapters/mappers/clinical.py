"""Encounter, EpisodeOfCare, Condition, Observation, Procedure, Immunization, AllergyIntolerance."""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.elements import as_list, codes, concept, concepts, first_code, read_value
from medeventgraph.fhir_adapters.mappers.common import (
    NEGATED,
    UNKNOWN,
    did_not_happen,
    pick_time,
    status_of,
    verification_assertion,
)
from medeventgraph.fhir_adapters.times import choice_time, coarser, instant_time, period_time
from medeventgraph.model.occurrence import (
    AFFIRMED,
    Action,
    Concept,
    EventTime,
    Kind,
    Occurrence,
    Origin,
    SourceRef,
    TimeType,
)

__all__ = [
    "map_allergy",
    "map_condition",
    "map_encounter",
    "map_episode_of_care",
    "map_immunization",
    "map_observation",
    "map_procedure",
]

_STRUCTURED = Origin.STRUCTURED


def _enc_link(encounter: str | None, links: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    if encounter is not None:
        links.insert(0, ("encounter", encounter))
    return tuple(links)


def map_encounter(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    rid = key[10:]
    period = raw.get("period")
    time = period_time(period) if period is not None else None
    path = "period"
    if time is None:
        ctx.issue("warning", "invalid" if period is not None else "required",
                  "no usable period.start; time unknown", "Encounter.period")
        time, path = UNKNOWN, ""
    klass = raw.get("class")
    if isinstance(klass, list):  # R5 shape: list of CodeableConcept
        class_code = first_code(klass)
        class_concept = concept(klass[0]) if klass else Concept()
    else:
        class_concept = concept(klass)
        class_code = class_concept.codings[0].code if class_concept.codings else None
    c = concepts(raw.get("type"))
    if not c.codings and not c.text:
        c = class_concept
    status = status_of(raw)
    extra: list[tuple[str, str]] = [("resource", "Encounter")]
    if class_code:
        extra.append(("class", class_code))
    if status:
        extra.append(("status", status))
    links = ctx.links(raw, (("partOf", "partOf"), ("episodeOfCare", "episodeOfCare"),
                            ("reasonReference", "reasonReference")))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.ENCOUNTER, origin=_STRUCTURED, concept=c, time=time,
        source=SourceRef("Encounter", rid, path), encounter=key,
        episode=ctx.encounter_episode.get(key), status=status, links=tuple(links), extra=tuple(extra),
    ))


def map_episode_of_care(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    time, path, _ = pick_time(ctx, raw, None, (("period", TimeType.OCCURRENCE),), "period")
    status = status_of(raw)
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.EPISODE, origin=_STRUCTURED, concept=concepts(raw.get("type")),
        time=time, source=SourceRef("EpisodeOfCare", key[14:], path), episode=key, status=status,
        extra=(("resource", "EpisodeOfCare"),) + ((("status", status),) if status else ()),
    ))


def _abatement(raw: dict[str, Any]) -> EventTime | None:
    t = choice_time(raw, "abatement").time
    if t is not None and t.end is not None:  # a Period: the condition was over by its end
        return EventTime(t.end, None, t.type, t.granularity)
    return t


def map_condition(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    encounter, episode = ctx.context_of(raw, "encounter", "context")
    time, path, documented = pick_time(ctx, raw, "onset", (("recordedDate", TimeType.RECORDED),),
                                       "onset[x] or recordedDate", encounter)
    if time.type is TimeType.OCCURRENCE and time.start is not None:
        ab = _abatement(raw)
        if ab is not None and ab.start is not None and ab.start >= time.start:
            time = EventTime(time.start, ab.start, time.type, coarser(time.granularity, ab.granularity))
    assertion, status, ver = verification_assertion(raw)
    extra: list[tuple[str, str]] = [("resource", "Condition")]
    clinical = first_code(raw.get("clinicalStatus"))
    if clinical:
        extra.append(("clinicalStatus", clinical))
    if ver:
        extra.append(("verificationStatus", ver))
    for cat in codes(raw.get("category")):
        extra.append(("category", cat))
    links = ctx.links(raw, ())
    for ev in as_list(raw.get("evidence")):
        if isinstance(ev, dict) and ev.get("detail") is not None:
            links.extend(ctx.links(ev, (("detail", "evidence"),)))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.CONDITION, origin=_STRUCTURED, concept=concept(raw.get("code")),
        time=time, source=SourceRef("Condition", key[10:], path), encounter=encounter, episode=episode,
        assertion=assertion, status=status, documented=documented,
        links=_enc_link(encounter, links), extra=tuple(extra),
    ))


_OBS_KIND = {"laboratory": Kind.LAB, "vital-signs": Kind.VITAL}
_OBS_LINKS = (("hasMember", "hasMember"), ("derivedFrom", "derivedFrom"), ("partOf", "partOf"),
              ("basedOn", "basedOn"))


def map_observation(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    rid = key[12:]
    cats = codes(raw.get("category"))
    kind = Kind.OBSERVATION
    for cat in cats:
        k = _OBS_KIND.get(cat)
        if k is not None:
            kind = k
            break
    encounter, episode = ctx.context_of(raw, "encounter", "context")
    time, tpath, documented = pick_time(ctx, raw, "effective", (("issued", TimeType.DOCUMENTATION),),
                                        "effective[x] or issued", encounter)
    issued = instant_time(raw.get("issued"), TimeType.DOCUMENTATION)
    value, vpath = read_value(raw)
    status = status_of(raw)
    extra = tuple([("resource", "Observation")] + [("category", c) for c in cats])
    links = _enc_link(encounter, ctx.links(raw, _OBS_LINKS))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=kind, origin=_STRUCTURED, concept=concept(raw.get("code")),
        time=time, source=SourceRef("Observation", rid, vpath if value is not None else tpath),
        encounter=encounter, episode=episode, value=value, status=status, documented=documented,
        links=links, extra=extra, action=Action.COLLECTED, issued=issued,
    ))
    components = raw.get("component")
    if not isinstance(components, list):
        return
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            ctx.issue("warning", "structure", f"component[{i}] is not an object; skipped")
            continue
        cvalue, cpath = read_value(comp)
        ctx.occurrences.append(Occurrence(
            id=f"{key}#component[{i}]", patient=patient, kind=kind, origin=_STRUCTURED,
            concept=concept(comp.get("code")), time=time,
            source=SourceRef("Observation", rid, f"component[{i}].{cpath}" if cpath else f"component[{i}]"),
            encounter=encounter, episode=episode, value=cvalue, status=status, documented=documented,
            links=(("componentOf", key),) + links, extra=extra, action=Action.COLLECTED, issued=issued,
        ))


def map_procedure(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "encounter", "context")
    time, path, documented = pick_time(ctx, raw, "performed", (), "performed[x]", encounter)
    links = ctx.links(raw, (("partOf", "partOf"), ("basedOn", "basedOn"), ("reasonReference", "reasonReference")))
    extra: list[tuple[str, str]] = [("resource", "Procedure")]
    if status:
        extra.append(("status", status))
    for cat in codes(raw.get("category")):
        extra.append(("category", cat))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.PROCEDURE, origin=_STRUCTURED, concept=concept(raw.get("code")),
        time=time, source=SourceRef("Procedure", key[10:], path), encounter=encounter, episode=episode,
        assertion=NEGATED if did_not_happen(status, path) else AFFIRMED, status=status, documented=documented,
        links=_enc_link(encounter, links), extra=tuple(extra), action=Action.PERFORMED,
    ))


def map_immunization(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    status = status_of(raw)
    encounter, episode = ctx.context_of(raw, "encounter")
    time, path, documented = pick_time(ctx, raw, "occurrence", (("recorded", TimeType.RECORDED),),
                                       "occurrence[x] or recorded", encounter)
    links = ctx.links(raw, (("reasonReference", "reasonReference"),))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.IMMUNIZATION, origin=_STRUCTURED,
        concept=concept(raw.get("vaccineCode")), time=time, source=SourceRef("Immunization", key[13:], path),
        encounter=encounter, episode=episode, assertion=NEGATED if status == "not-done" else AFFIRMED,
        status=status, documented=documented, links=_enc_link(encounter, links),
        extra=(("resource", "Immunization"),) + ((("status", status),) if status else ()),
    ))


def map_allergy(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    encounter, episode = ctx.context_of(raw, "encounter")
    time, path, documented = pick_time(ctx, raw, "onset", (("recordedDate", TimeType.RECORDED),),
                                       "onset[x] or recordedDate", encounter)
    assertion, status, ver = verification_assertion(raw)
    extra: list[tuple[str, str]] = [("resource", "AllergyIntolerance")]
    clinical = first_code(raw.get("clinicalStatus"))
    if clinical:
        extra.append(("clinicalStatus", clinical))
    if ver:
        extra.append(("verificationStatus", ver))
    for f in ("type", "criticality"):
        v = raw.get(f)
        if isinstance(v, str):
            extra.append((f, v))
    for cat in as_list(raw.get("category")):
        if isinstance(cat, str):
            extra.append(("category", cat))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.ALLERGY, origin=_STRUCTURED, concept=concept(raw.get("code")),
        time=time, source=SourceRef("AllergyIntolerance", key[19:], path), encounter=encounter,
        episode=episode, assertion=assertion, status=status, documented=documented,
        links=_enc_link(encounter, []), extra=tuple(extra),
    ))
