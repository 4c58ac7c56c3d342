"""Small readers for FHIR data types (CodeableConcept, Quantity, Reference lists, values).

Every reader accepts whatever JSON it is given and returns None/empty for the wrong shape, so a
malformed element degrades one field, never the whole ingest.
"""

from __future__ import annotations

import math
from typing import Any

from medeventgraph.model.occurrence import Coding, Concept, Value

__all__ = [
    "as_list",
    "codes",
    "concept",
    "concepts",
    "first_code",
    "quantity_value",
    "read_value",
]

_EMPTY = Concept()


def as_list(x: Any) -> list[Any]:
    if isinstance(x, list):
        return x
    if x is None:
        return []
    return [x]


def _codings(cc: dict[str, Any], out: list[Coding]) -> None:
    codings = cc.get("coding")
    if not isinstance(codings, list):
        return
    for c in codings:
        if isinstance(c, dict):
            code, system, display = c.get("code"), c.get("system"), c.get("display")
            out.append(
                Coding(
                    system if isinstance(system, str) else None,
                    str(code) if code is not None else None,
                    display if isinstance(display, str) else None,
                )
            )


def concept(cc: Any) -> Concept:
    """CodeableConcept (or a bare Coding) -> Concept; text is `text`, else the first display."""
    if not isinstance(cc, dict):
        return _EMPTY
    out: list[Coding] = []
    if "coding" in cc:
        _codings(cc, out)
    elif "code" in cc or "system" in cc:  # a Coding (e.g. Encounter.class)
        _codings({"coding": [cc]}, out)
    text = cc.get("text")
    if not isinstance(text, str) or not text:
        text = next((c.display for c in out if c.display), "")
    return Concept(tuple(out), text)


def concepts(ccs: Any) -> Concept:
    """Several CodeableConcepts (e.g. Encounter.type[]) merged into one Concept."""
    items = as_list(ccs)
    if len(items) == 1:
        return concept(items[0])
    out: list[Coding] = []
    text = ""
    for cc in items:
        c = concept(cc)
        out.extend(c.codings)
        if not text:
            text = c.text
    return Concept(tuple(out), text)


def codes(cc: Any) -> list[str]:
    """Every code in a CodeableConcept or a list of them."""
    found: list[str] = []
    for item in as_list(cc):
        if isinstance(item, dict):
            for c in as_list(item.get("coding")):
                if isinstance(c, dict) and isinstance(c.get("code"), str):
                    found.append(c["code"])
    return found


def first_code(cc: Any) -> str | None:
    found = codes(cc)
    return found[0] if found else None


def _number(x: Any) -> float | None:
    """A finite JSON number as float; anything else (a bool, NaN, an integer past float range) is no number."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    try:
        value = float(x)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def quantity_value(q: Any) -> tuple[float | None, str | None]:
    if not isinstance(q, dict):
        return None, None
    unit = q.get("unit")
    if not isinstance(unit, str):
        unit = q.get("code") if isinstance(q.get("code"), str) else None
    return _number(q.get("value")), unit


def read_value(raw: dict[str, Any]) -> tuple[Value | None, str]:
    """value[x] plus interpretation and the first referenceRange, and the path used."""
    quantity: float | None = None
    unit: str | None = None
    text: str | None = None
    path = ""
    if "valueQuantity" in raw:
        quantity, unit = quantity_value(raw["valueQuantity"])
        path = "valueQuantity"
    elif "valueCodeableConcept" in raw:
        text = concept(raw["valueCodeableConcept"]).text or None
        path = "valueCodeableConcept"
    elif "valueString" in raw:
        v = raw["valueString"]
        text = v if isinstance(v, str) else None
        path = "valueString"
    elif "valueInteger" in raw:
        quantity = _number(raw["valueInteger"])
        path = "valueInteger"
    elif "valueBoolean" in raw:
        v = raw["valueBoolean"]
        text = ("true" if v else "false") if isinstance(v, bool) else None
        path = "valueBoolean"
    elif "valueDateTime" in raw:
        v = raw["valueDateTime"]
        text = v if isinstance(v, str) else None
        path = "valueDateTime"
    interpretation = first_code(raw.get("interpretation"))
    low = high = None
    ranges = raw.get("referenceRange")
    if isinstance(ranges, list) and ranges and isinstance(ranges[0], dict):
        low = quantity_value(ranges[0].get("low"))[0]
        high = quantity_value(ranges[0].get("high"))[0]
    if quantity is None and text is None and interpretation is None and low is None and high is None:
        return None, path
    return Value(quantity, unit, text, interpretation, low, high), path
