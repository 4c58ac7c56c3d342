"""Lab values a note repeats from the record: the recorded result, not a new measurement.

Notes routinely paste results in ("Notable labs today: ... glucose 102.0 mg/dL"), and the day
the note calls "today" is the day it was written, not the day the blood was drawn. A note value
equal, at the precision the note writes it, to a recorded Observation of the same patient, code
and unit that resulted in the week before the note was written is that Observation copied forward: it
gets `copied_from` (so the contract keeps the recorded result and derivations skip the copy),
exactly as text copied from an earlier note does (nlp/copies.py).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

from medeventgraph.model.occurrence import Occurrence, Origin

__all__ = ["link_recorded_copies"]

# How far back a pasted result is looked for: notes carry forward the week's labs.
_LOOKBACK = timedelta(days=7)
_NUMBER = re.compile(r"\d+(?:\.(\d+))?")


def _codes(occ: Occurrence) -> frozenset[str]:
    return frozenset(f"{c.system}|{c.code}" for c in occ.concept.codings if c.code)


def _precision(occ: Occurrence, quantity: float) -> float:
    """Half a unit of the last digit the note writes the value with ("102.0" -> 0.05)."""
    for m in _NUMBER.finditer(occ.extra_value("literal") or ""):
        if float(m.group(0)) == quantity:
            return 0.5 * 10 ** -len(m.group(1) or "")
    return 0.0


def _same_unit(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a.strip().lower() == b.strip().lower()


def link_recorded_copies(values: list[Occurrence], record: list[Occurrence]) -> list[Occurrence]:
    """`values` (note value mentions) with each copy of a recorded result marked `copied_from`
    the latest such result; values already marked, or with nothing to match, come back as they are.

    >>> from datetime import datetime, timezone
    >>> from medeventgraph.model.occurrence import (Coding, Concept, EventTime, Granularity, Kind,
    ...     SourceRef, Value)
    >>> day = lambda d, h=0: EventTime(datetime(2024, 6, d, h, tzinfo=timezone.utc), granularity=Granularity.SECOND)
    >>> glucose = Concept((Coding("http://loinc.org", "2345-7", "Glucose"),), "glucose")
    >>> lab = Occurrence("Observation/g", "p", Kind.LAB, Origin.STRUCTURED, glucose, day(15, 15),
    ...     SourceRef("Observation", "g"), value=Value(102.0, "mg/dL"))
    >>> note = Occurrence("DocumentReference/d#s1-20", "p", Kind.LAB, Origin.NOTE, glucose, day(18),
    ...     SourceRef("DocumentReference", "d", start=1, end=20), value=Value(102.0, "mg/dL"),
    ...     documented=day(18, 11), extra=(("literal", "glucose 102.0 mg/dL"),))
    >>> [v.extra_value("copied_from") for v in link_recorded_copies([note], [lab])]
    ['Observation/g']
    >>> other = replace(note, value=Value(140.0, "mg/dL"), extra=(("literal", "glucose 140.0 mg/dL"),))
    >>> [v.extra_value("copied_from") for v in link_recorded_copies([other], [lab])]
    [None]
    >>> [v.extra_value("copied_from") for v in link_recorded_copies([note], [replace(lab, patient="q")])]
    [None]
    """
    results: dict[str, list[Occurrence]] = {}
    for occ in record:
        if occ.origin is not Origin.STRUCTURED or occ.value is None or occ.value.quantity is None:
            continue
        if occ.time.start is None:
            continue
        for code in _codes(occ):
            results.setdefault(code, []).append(occ)
    if not results:
        return values
    out: list[Occurrence] = []
    for v in values:
        written = (v.documented or v.time).start
        if v.extra_value("copied_from") or v.value is None or v.value.quantity is None or written is None:
            out.append(v)
            continue
        quantity, unit, tolerance = v.value.quantity, v.value.unit, _precision(v, v.value.quantity)
        matches = [o for code in _codes(v) for o in results.get(code, ())
                   if o.patient == v.patient and written - _LOOKBACK <= o.time.start <= written  # type: ignore[operator]
                   and abs(o.value.quantity - quantity) <= tolerance + 1e-9  # type: ignore[union-attr,operator]
                   and _same_unit(o.value.unit, unit)]  # type: ignore[union-attr]
        if not matches:
            out.append(v)
            continue
        origin = max(matches, key=lambda o: (o.time.start, o.id))
        out.append(replace(v, extra=(*v.extra, ("copied_from", origin.id))))
    return out
