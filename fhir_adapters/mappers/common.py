"""Pieces every mapper shares: choosing the time by DESIGN.md's order, status -> assertion."""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.elements import codes
from medeventgraph.fhir_adapters.times import choice_time, instant_time, period_time
from medeventgraph.model.occurrence import AFFIRMED, Assertion, EventTime, Granularity, TimeType

__all__ = [
    "DID_NOT_HAPPEN",
    "HYPOTHETICAL",
    "NEGATED",
    "UNCERTAIN",
    "UNKNOWN",
    "did_not_happen",
    "pick_time",
    "status_of",
    "verification_assertion",
]

UNKNOWN = EventTime(start=None, end=None, type=TimeType.OCCURRENCE, granularity=Granularity.UNKNOWN)
NEGATED = Assertion(negated=True)
UNCERTAIN = Assertion(uncertain=True)
HYPOTHETICAL = Assertion(hypothetical=True)


def pick_time(
    ctx: MapContext,
    raw: dict[str, Any],
    occurrence: str | None,
    documentation: tuple[tuple[str, TimeType], ...],
    describe: str,
    encounter: str | None = None,
) -> tuple[EventTime, str, EventTime | None]:
    """(time, json path, documented time).

    `occurrence` names a choice element (`effective` for effective[x]) read as occurrence time;
    `documentation` lists plain elements (`issued`, `recordedDate`, ...) with their time type,
    used as the time only when no occurrence time exists, and otherwise as `documented`.
    With neither, a resource referencing an `encounter` with a period start gets an
    ENCOUNTER_BOUNDED time (to the period's end, or open while it has none) (it happened somewhere in that stay: real EHRs send billing
    diagnoses this way); otherwise it keeps an UNKNOWN time and a warning. Never dropped.
    """
    invalid = False
    if occurrence is not None:
        chosen = choice_time(raw, occurrence, TimeType.OCCURRENCE)
        invalid = chosen.invalid
        if chosen.time is not None:
            return chosen.time, chosen.path, _documented(raw, documentation)
    for field, ttype in documentation:
        value = raw.get(field)
        if value is None:
            continue
        t = period_time(value, ttype) if isinstance(value, dict) else instant_time(value, ttype)
        if t is not None:
            return t, field, None
        invalid = True
    bound = ctx.encounter_bounds.get(encounter) if encounter is not None else None
    if bound is not None:
        if invalid:
            ctx.issue("warning", "invalid", f"{describe} is not a valid FHIR date/time; bounded by its encounter")
        return bound, "encounter", None
    if invalid:
        ctx.issue("warning", "invalid", f"{describe} is not a valid FHIR date/time; time unknown")
    else:
        ctx.issue("warning", "required", f"no {describe} time; time unknown")
    return UNKNOWN, "", None


def _documented(raw: dict[str, Any], documentation: tuple[tuple[str, TimeType], ...]) -> EventTime | None:
    for field, ttype in documentation:
        value = raw.get(field)
        if value is None:
            continue
        t = period_time(value, ttype) if isinstance(value, dict) else instant_time(value, ttype)
        if t is not None:
            return t
    return None


# A dose or procedure with one of these statuses was not given / not done.
DID_NOT_HAPPEN = frozenset({"not-done", "entered-in-error", "cancelled"})


def did_not_happen(status: str | None, own_time_path: str) -> bool:
    """Administration / procedure statuses saying it did not take place; `stopped` counts
    only when no time of its own says it began (stopped before it started)."""
    return status in DID_NOT_HAPPEN or (status == "stopped" and own_time_path in ("", "encounter"))


def verification_assertion(raw: dict[str, Any]) -> tuple[Assertion, str | None, str | None]:
    """Condition/AllergyIntolerance verificationStatus -> (assertion, status, verification code)."""
    ver = codes(raw.get("verificationStatus"))
    v = ver[0] if ver else None
    if v == "refuted":
        return NEGATED, None, v
    if v == "entered-in-error":
        return AFFIRMED, "entered-in-error", v
    if v in ("provisional", "differential", "unconfirmed"):
        return UNCERTAIN, None, v
    return AFFIRMED, None, v


def status_of(raw: dict[str, Any]) -> str | None:
    s = raw.get("status")
    return s if isinstance(s, str) else None
