"""Derived occurrences: deterministic rules over recorded values (resources/derive_rules.json).

A derived occurrence (KDIGO creatinine rise, high potassium, low glucose, elevated lactate,
low systolic pressure) is a *finding computed from values*, so it must cite every value it
was computed from (`derived_from`) and sit where its triggering value sits: same time,
encounter and source. Values are converted to the rule's canonical unit first; a value in an
unknown unit is skipped rather than guessed.

The values are recorded Observations and values notes state (nlp/values.py: "K 6.1", "SBP in
the 70s"). A note value counts when it is affirmed (not negated, hypothetical, family or
uncertain; historical only with a stated time) and is not a copy of an earlier note's; its
finding cites the note span and keeps the note's time rules — the time the sentence states,
else only "no later than the note date". A stated range ("in the 70s": 70-79) passes a limit
only with its whole range. A stated change ("Cr rose from 1.0 to 2.1") is a KDIGO rise by the
ratio criterion (1.5x, which KDIGO lets be "known or presumed" within 7 days) or, when its
sentence bounds the interval ("overnight"), by the absolute one (+0.3 within 48 h).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta
from functools import cache
from typing import Literal

from medeventgraph.model.occurrence import Coding, Concept, Kind, Occurrence, Origin, Value
from medeventgraph.model.packaged import packaged_model
from pydantic import BaseModel, Field

__all__ = ["DERIVE_SYSTEM", "DeriveRule", "Indication", "derive_occurrences", "load_rules", "rules_by_id"]

_LOINC = "http://loinc.org"
DERIVE_SYSTEM = "urn:medeventgraph:derive"  # the coding system of a derived occurrence: its code is the rule id
_VALUE_KINDS = frozenset({Kind.LAB, Kind.VITAL, Kind.OBSERVATION})


class _Conversion(BaseModel):
    unit: str
    multiply: float = 1.0
    divide: float = 1.0
    add: float = 0.0  # after multiplying: a scale with another zero (degrees Celsius to Fahrenheit)


class Indication(BaseModel):
    """A condition a finding stands for ("hyperkalemia" for K > 5.5): a lexicon condition
    concept id, and a stricter limit of its own when the rule's is not enough."""

    concept: str
    at_least: float | None = None
    about: str = ""


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
    indicates: list[Indication] = Field(default_factory=list)

    def holds_on(self, value: Value) -> bool:
        """Does a derived finding's own value pass this rule's test? Read from the value fields
        alone (`quantity`, and `reference`: the limit, or the lowest prior value for a rise), so
        a binding check can re-apply it. A rise's time window is not in the value: a KDIGO
        finding passes by its size (+abs_rise or ratio x)."""
        q, ref = value.quantity, value.reference
        if q is None or ref is None or (value.unit or "") != self.unit:
            return False
        if self.test == "kdigo_rise":
            assert self.abs_rise is not None and self.ratio is not None
            return q - ref >= self.abs_rise - 1e-9 or (ref > 0 and q / ref >= self.ratio - 1e-9)
        if self.threshold is None or ref != self.threshold:
            return False
        return q > self.threshold if self.test == "above" else q < self.threshold

    def indication(self, concepts: Iterable[str], value: Value) -> Indication | None:
        """The indication naming one of `concepts` that this finding's value meets, if any.

        >>> rule = rules_by_id()["elevated-lactate"]
        >>> rule.indication(["lactic acidosis"], Value(quantity=4.1, unit="mmol/L", reference=2.0)).concept
        'lactic acidosis'
        >>> rule.indication(["lactic acidosis"], Value(quantity=3.0, unit="mmol/L", reference=2.0)) is None
        True
        """
        wanted = set(concepts)
        if not self.holds_on(value):
            return None
        assert value.quantity is not None
        return next((i for i in self.indicates if i.concept in wanted
                     and (i.at_least is None or value.quantity >= i.at_least - 1e-9)), None)

    def applies_to(self, occ: Occurrence) -> bool:
        if occ.kind not in _VALUE_KINDS or occ.value is None or not _counts(occ):
            return False
        if occ.value.quantity is None and occ.extra_value("value_high") is None:
            return False
        if occ.status in ("entered-in-error", "cancelled", "preliminary"):
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


def _counts(occ: Occurrence) -> bool:
    """A timed structured value, or a note value that states a measurement (see the module doc)."""
    if occ.origin is not Origin.NOTE:
        return occ.time.resolved
    a = occ.assertion
    if a.negated or a.hypothetical or a.family or a.uncertain or occ.extra_value("copied_from"):
        return False
    if a.historical:
        return occ.time.resolved
    return occ.time.resolved or (occ.documented is not None and occ.documented.resolved)


@cache
def load_rules() -> tuple[DeriveRule, ...]:
    return tuple(packaged_model("medeventgraph.core", "derive_rules.json", _RuleFile).rules)


@cache
def rules_by_id() -> dict[str, DeriveRule]:
    return {r.id: r for r in load_rules()}


def _convert(rule: DeriveRule, quantity: float, unit: str | None) -> float | None:
    key = (unit or "").strip().lower().replace("µ", "u")
    for conv in rule.conversions:
        if conv.unit.lower() == key:
            return quantity * conv.multiply / conv.divide + conv.add
    return None


def _bounds(rule: DeriveRule, occ: Occurrence) -> tuple[float, float] | None:
    """(lowest, highest) the value can be in the rule's unit: one point for a measured value,
    the stated range for "in the 70s"."""
    assert occ.value is not None
    if occ.value.quantity is not None:
        v = _convert(rule, occ.value.quantity, occ.value.unit)
        return None if v is None else (v, v)
    low, high = occ.extra_value("value_low"), occ.extra_value("value_high")
    if low is None or high is None:
        return None
    lo, hi = _convert(rule, float(low), occ.value.unit), _convert(rule, float(high), occ.value.unit)
    return None if lo is None or hi is None else (lo, hi)


def derive_occurrences(occurrences: Iterable[Occurrence], rules: Iterable[DeriveRule] | None = None) -> list[Occurrence]:
    """Every derived occurrence the rules produce, in a stable order (by rule, then time)."""
    occs = sorted(occurrences, key=lambda o: (o.patient, _sort_time(o), o.id))
    by_id = {o.id: o for o in occs}
    out: list[Occurrence] = []
    for rule in rules if rules is not None else load_rules():
        series: dict[str, list[tuple[Occurrence, tuple[float, float]]]] = {}
        for occ in occs:
            if rule.applies_to(occ):
                bounds = _bounds(rule, occ)
                if bounds is not None:
                    series.setdefault(occ.patient, []).append((occ, bounds))
        for patient in sorted(series):
            out.extend(_apply(rule, series[patient], by_id))
    return out


def _sort_time(o: Occurrence) -> float:
    t = o.time.start or (o.documented.start if o.documented is not None else None)
    return t.timestamp() if t else 0.0


def _apply(rule: DeriveRule, series: list[tuple[Occurrence, tuple[float, float]]],
           by_id: dict[str, Occurrence]) -> list[Occurrence]:
    if rule.test == "kdigo_rise":
        points = [(o, lo) for o, (lo, hi) in series if lo == hi]
        timed = _kdigo(rule, [(o, v) for o, v in points if o.time.resolved])
        done = {d.id for d in timed}
        return timed + [d for d in _stated_rises(rule, points, by_id) if d.id not in done]
    assert rule.threshold is not None
    hits = []
    for occ, (lo, hi) in series:
        # A range passes a limit only with its whole width: "in the 70s" is below 90, "in the 80s" is not.
        if rule.test == "above" and lo > rule.threshold:
            hits.append(_derived(rule, occ, lo, (occ.id,), f"{lo:g} {rule.unit} (above {rule.threshold:g})",
                                 rule.threshold))
        elif rule.test == "below" and hi < rule.threshold:
            hits.append(_derived(rule, occ, hi, (occ.id,), f"{hi:g} {rule.unit} (below {rule.threshold:g})",
                                 rule.threshold))
    return hits


def _stated_rises(rule: DeriveRule, points: list[tuple[Occurrence, float]],
                  by_id: dict[str, Occurrence]) -> list[Occurrence]:
    """Rises a note states in words ("has gone from 2.1 to 4.2 overnight"): the later value names
    the earlier one (`change_from`, same note sentence), whatever their times."""
    assert rule.abs_rise is not None and rule.abs_window_hours and rule.ratio and rule.ratio_window_days
    values = {o.id: v for o, v in points}
    hits = []
    for occ, v in points:
        base_id = occ.extra_value("change_from")
        base = by_id.get(base_id or "")
        if base is None or base.patient != occ.patient or base_id not in values:
            continue
        bv = values[base.id]
        hours = occ.extra_value("change_within_hours")
        reason = None
        if hours is not None and float(hours) <= rule.abs_window_hours and v - bv >= rule.abs_rise - 1e-9:
            reason = f"+{v - bv:.2f} {rule.unit} within {float(hours):g} h (stated)"
        elif bv > 0 and v / bv >= rule.ratio - 1e-9 and (hours is None or float(hours) <= rule.ratio_window_days * 24):
            when = f"within {float(hours):g} h (stated)" if hours is not None else "interval not stated, presumed"
            reason = f"{v / bv:.2f}x the earlier value, {when}"
        if reason is not None:
            hits.append(_derived(rule, occ, v, (base.id, occ.id), f"{bv:g} -> {v:g} {rule.unit}: {reason}", bv))
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
            hits.append(_derived(rule, occ, v, (base.id, occ.id), detail, bv))
    return hits


def _derived(
    rule: DeriveRule, trigger: Occurrence, value: float, sources: tuple[str, ...], detail: str, reference: float
) -> Occurrence:
    """`reference`: what `value` was compared with (the lowest prior value, or the limit): S_num reads it."""
    return Occurrence(
        id=f"derived/{rule.id}/{trigger.id}",
        patient=trigger.patient,
        kind=Kind.DERIVED,
        origin=Origin.DERIVED,
        concept=Concept((Coding(DERIVE_SYSTEM, rule.id, rule.display),), rule.display),
        time=trigger.time,
        source=replace(trigger.source),
        encounter=trigger.encounter,
        episode=trigger.episode,
        assertion=trigger.assertion,
        documented=trigger.documented if trigger.origin is Origin.NOTE else None,
        value=Value(quantity=round(value, 4), unit=rule.unit, text=detail, reference=round(reference, 4)),
        derived_from=tuple(dict.fromkeys(sources)),
        extra=(("rule", rule.id),),
    )
