"""Pieces every mapper shares: choosing the time by DESIGN.md's order, status -> assertion."""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.elements import codes
from medeventgraph.fhir_adapters.times import choice_time, instant_time, period_time
from medeventgraph.occurrence import AFFIRMED, Assertion, EventTime, Granularity, TimeType

__all__ = [
    "HYPOTHETICAL",
    "NEGATED",
    "UNCERTAIN",
    "UNKNOWN",
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
) -> tuple[EventTime, str, EventTime | None]:
    """(time, json path, documented time).

    `occurrence` names a choice element (`effective` for effective[x]) read as occurrence time;
    `documentation` lists plain elements (`issued`, `recordedDate`, ...) with their time type,
    used as the time only when no occurrence time exists, and otherwise as `documented`.
    A resource with neither keeps an UNKNOWN time and a warning: it is never dropped.
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
