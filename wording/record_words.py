"""Who and which stay, in the words an EHR banner uses: the patient's name and birth date, the
encounter's type and dates, read from the FHIR resources themselves. Pure functions over FHIR
JSON; None when the resource does not say (the caller then uses the neutral words of
wording.json's `unnamed`), never a resource id.

Names are PHI: nothing here logs, and callers must not log what these return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from medeventgraph.wording.templates import Wording
from medeventgraph.wording.times import date_range, day_text

__all__ = ["PatientWords", "encounter_words", "patient_words", "person_name"]

# SNOMED CT displays end in a semantic tag ("Encounter for problem (procedure)"): not words for people.
_SEMANTIC_TAG = re.compile(r"\s*\((procedure|finding|disorder|situation|event|regime/therapy|qualifier value)\)\s*$")
_NAME_USES = ("official", "usual", None, "nickname")  # the order an EHR banner prefers


@dataclass(frozen=True, slots=True)
class PatientWords:
    name: str | None  # "Lance Padberg"
    born: str | None  # "23 Jun 1964"


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


def _one_name(name: dict[str, Any]) -> str | None:
    if text := _text(name.get("text")):
        return text
    given = name.get("given")
    parts = [g for g in given if isinstance(g, str)] if isinstance(given, list) else []
    family = _text(name.get("family"))
    joined = " ".join(p.strip() for p in [*parts, family or ""] if p and p.strip())
    return joined or None


def person_name(resource: dict[str, Any] | None) -> str | None:
    """The display name of a Patient, Practitioner, Person or RelatedPerson (its official name
    first), or None when it has none."""
    names = resource.get("name") if isinstance(resource, dict) else None
    if not isinstance(names, list):
        return None
    usable = [n for n in names if isinstance(n, dict) and n.get("use") not in ("old", "anonymous")]
    for use in _NAME_USES:
        for n in usable:
            if n.get("use") == use and (text := _one_name(n)):
                return text
    return next((t for n in usable if (t := _one_name(n))), None)


def _date(text: Any) -> tuple[datetime, str] | None:
    """A FHIR date or dateTime and its granularity ("1964" is a year, "1964-06" a month)."""
    if not isinstance(text, str):
        return None
    grain = {4: "year", 7: "month", 10: "day"}.get(len(text), "minute")
    padded = text + {"year": "-01-01", "month": "-01"}.get(grain, "")
    try:
        dt = datetime.fromisoformat(padded)
    except ValueError:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)), grain


def patient_words(resource: dict[str, Any] | None) -> PatientWords:
    born = _date(resource.get("birthDate")) if isinstance(resource, dict) else None
    return PatientWords(person_name(resource), day_text(*born) if born else None)


def _coded_text(value: Any) -> str | None:
    """A CodeableConcept's words: its text, else its first coding's display."""
    if not isinstance(value, dict):
        return None
    text = _text(value.get("text"))
    if text is None:
        codings = value.get("coding")
        for c in codings if isinstance(codings, list) else []:
            if isinstance(c, dict) and (text := _text(c.get("display"))):
                break
    return _SEMANTIC_TAG.sub("", text) if text else None


def encounter_words(resource: dict[str, Any] | None, w: Wording) -> str | None:
    """"Emergency visit · Encounter for problem · 3–9 Feb 2015"; None when the encounter says
    neither what it was nor when."""
    if not isinstance(resource, dict):
        return None
    cls = resource.get("class")
    code = str(cls.get("code") or "") if isinstance(cls, dict) else ""
    kind = w.encounter_classes.get(code)
    types = resource.get("type")
    what = next((t for t in map(_coded_text, types) if t), None) if isinstance(types, list) else None
    period = resource.get("period")
    period = period if isinstance(period, dict) else {}
    start, end = _date(period.get("start")), _date(period.get("end"))
    when = None
    if start and end:
        when = date_range(start[0], end[0], sep="–")
    elif start:
        when = f"from {day_text(start[0])}"
    parts = [p for p in (kind, what if what and what != kind else None, when) if p]
    return " · ".join(parts) or None
