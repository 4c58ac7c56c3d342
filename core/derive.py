"""Derived occurrences: deterministic rules over recorded Observations (resources/derive_rules.json).

A derived occurrence (KDIGO creatinine rise, high potassium, low glucose, elevated lactate,
low systolic pressure) is a *finding computed from values*, so it must cite every
Observation it was computed from (`derived_from`) and sit where its triggering Observation
sits: same time, encounter and source. Values are converted to the rule's canonical unit
first; a value in an unknown unit is skipped rather than guessed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta
from functools import cache
from importlib import resources
from typing import Literal

import orjson
from medeventgraph.occurrence import Coding, Concept, Kind, Occurrence, Origin, Value
from pydantic import BaseModel, Field

__all__ = ["DeriveRule", "derive_occurrences", "load_rules", "to_canonical"]

_LOINC = "http://loinc.org"
_VALUE_KINDS = frozenset({Kind.LAB, Kind.VITAL, Kind.OBSERVATION})


class _Conversion(BaseModel):
    unit: str
    multiply: float = 1.0
    divide: float = 1.0


class DeriveRule(BaseModel):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    concept: str  # the lexicon "derived" concept this rule produces
    display: str
    loinc: list[str]
    words: list[str]
    exclude_words: list[str] = Field(default_factory=list)
    unit: str
    conversions: list[_Conversion]
    test: Literal["above", "below", "kdigo_rise"]
    threshold: float | None = None
    abs_rise: float | None = None
    abs_window_hours: float | None = None
    ratio: float | None = None
    ratio_window_days: float | None = None

    def applies_to(self, occ: Occurrence) -> bool:
        if occ.kind not in _VALUE_KINDS or occ.value is None or occ.value.quantity is None:
            return False
        if not occ.time.resolved or occ.status in ("entered-in-error", "cancelled", "preliminary"):
            return False
        codes = {c.code for c in occ.concept.codings if c.system == _LOINC}
        if codes:
            return bool(codes & set(self.loinc))
        text = occ.concept.normalized
        return any(w in text for w in self.words) and not any(w in text for w in self.exclude_words)


class _RuleFile(BaseModel):
    version: int
    about: str = ""
    rules: list[DeriveRule]


@cache
def load_rules() -> tuple[DeriveRule, ...]:
    raw = resources.files("medeventgraph.core").joinpath("resources/derive_rules.json").read_bytes()
    return tuple(_RuleFile.model_validate(orjson.loads(raw)).rules)


def to_canonical(rule: DeriveRule, value: Value) -> float | None:
    """The value in the rule's unit, or None when its unit is not one the rule knows."""
    if value.quantity is None:
        return None
    unit = (value.unit or "").strip().lower().replace("µ", "u")
    for conv in rule.conversions:
        if conv.unit.lower() == unit:
            return value.quantity * conv.multiply / conv.divide
    return None


def derive_occurrences(occurrences: Iterable[Occurrence], rules: Iterable[DeriveRule] | None = None) -> list[Occurrence]:
    """Every derived occurrence the rules produce, in a stable order (by rule, then time)."""
    occs = sorted(occurrences, key=lambda o: (o.patient, o.time.start.timestamp() if o.time.start else 0.0, o.id))
    out: list[Occurrence] = []
    for rule in rules if rules is not None else load_rules():
        series: dict[str, list[tuple[Occurrence, float]]] = {}
        for occ in occs:
            if rule.applies_to(occ) and occ.value is not None:
                v = to_canonical(rule, occ.value)
                if v is not None:
                    series.setdefault(occ.patient, []).append((occ, v))
        for patient in sorted(series):
            out.extend(_apply(rule, series[patient]))
    return out


def _apply(rule: DeriveRule, series: list[tuple[Occurrence, float]]) -> list[Occurrence]:
    if rule.test == "kdigo_rise":
        return _kdigo(rule, series)
    assert rule.threshold is not None
    hits = []
    for occ, v in series:
        if (rule.test == "above" and v > rule.threshold) or (rule.test == "below" and v < rule.threshold):
            hits.append(_derived(rule, occ, v, (occ.id,), f"{v:g} {rule.unit} ({rule.test} {rule.threshold:g})"))
    return hits


def _kdigo(rule: DeriveRule, series: list[tuple[Occurrence, float]]) -> list[Occurrence]:
    """KDIGO: +abs_rise within abs_window_hours, or >= ratio x the lowest value of the prior
    ratio_window_days. The comparison value is the lowest prior value in the window, so the
    derivation cites it and the triggering value."""
    assert rule.abs_rise is not None and rule.abs_window_hours and rule.ratio and rule.ratio_window_days
    short, long = timedelta(hours=rule.abs_window_hours), timedelta(days=rule.ratio_window_days)
    hits = []
    for k, (occ, v) in enumerate(series):
        t = occ.time.start
        assert t is not None
        prior = [(o, pv) for o, pv in series[:k] if o.time.start is not None and timedelta(0) < t - o.time.start]
        in_short = [(o, pv) for o, pv in prior if t - o.time.start <= short]  # type: ignore[operator]
        in_long = [(o, pv) for o, pv in prior if t - o.time.start <= long]  # type: ignore[operator]
        reason = None
        if in_short:
            base, bv = min(in_short, key=lambda x: (x[1], x[0].id))
            if v - bv >= rule.abs_rise - 1e-9:
                reason = (base, bv, f"+{v - bv:.2f} {rule.unit} within {rule.abs_window_hours:g} h")
        if reason is None and in_long:
            base, bv = min(in_long, key=lambda x: (x[1], x[0].id))
            if bv > 0 and v / bv >= rule.ratio - 1e-9:
                reason = (base, bv, f"{v / bv:.2f}x lowest of prior {rule.ratio_window_days:g} days")
        if reason is not None:
            base, bv, why = reason
            detail = f"{bv:g} -> {v:g} {rule.unit}: {why}"
            hits.append(_derived(rule, occ, v, (base.id, occ.id), detail))
    return hits


def _derived(rule: DeriveRule, trigger: Occurrence, value: float, sources: tuple[str, ...], detail: str) -> Occurrence:
    return Occurrence(
        id=f"derived/{rule.id}/{trigger.id}",
        patient=trigger.patient,
        kind=Kind.DERIVED,
        origin=Origin.DERIVED,
        concept=Concept((Coding("urn:medeventgraph:derive", rule.id, rule.display),), rule.display),
        time=trigger.time,
        source=replace(trigger.source),
        encounter=trigger.encounter,
        episode=trigger.episode,
        value=Value(quantity=round(value, 4), unit=rule.unit, text=detail),
        derived_from=tuple(dict.fromkeys(sources)),
        extra=(("rule", rule.id),),
    )
