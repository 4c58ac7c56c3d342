"""Typed model of nlp/resources/temporal_rules.json: the clinical time patterns Duckling lacks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from medeventgraph.model.packaged import packaged_built

__all__ = ["ANCHOR_KINDS", "HeaderRule", "TemporalRule", "TemporalRules", "load_temporal_rules"]

ANCHOR_KINDS = ("note", "admission", "discharge", "surgery", "previous", "stated", "birth")
Shift = Literal["ordinal_day_from_first", "days_after", "before", "same_day", "day_before", "next_day", "same",
                "month_of_year", "year_part", "later", "earlier", "previous_day", "ahead", "age"]
_SHIFTS = frozenset(Shift.__args__)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class HeaderRule:
    """A heading that states an anchor date ("ADMISSION DATE: 04/02/2007")."""

    anchor: str
    pattern: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class TemporalRule:
    id: str
    anchor: str
    shift: Shift
    pattern: re.Pattern[str]
    approximate: bool = False  # a range around the shifted day, not the day itself
    requires: re.Pattern[str] | None = None  # read only in a sentence that also holds this ("follow up" for "in 2 weeks")
    lead: re.Pattern[str] | None = None  # read only where this governs it ("has had" for "for 3 years"): temporal._led


@dataclass(frozen=True, slots=True)
class TemporalRules:
    numbers: dict[str, int]
    headers: tuple[HeaderRule, ...]
    rules: tuple[TemporalRule, ...]
    stated_age: re.Pattern[str] | None = None  # the patient's age as a note states it ("a 56-year-old"): group n

    def number(self, word: str | None) -> int | None:
        if word is None:
            return None
        w = word.lower().rstrip("stndrh") if word[:1].isdigit() else word.lower()
        return int(w) if w.isdigit() else self.numbers.get(w)


def _anchor(value: str, where: str) -> str:
    if value not in ANCHOR_KINDS:
        raise ValueError(f"temporal_rules.json {where}: unknown anchor {value!r} (known: {ANCHOR_KINDS})")
    return value


@cache
def load_temporal_rules() -> TemporalRules:
    return packaged_built("medeventgraph.nlp", "temporal_rules.json", _temporal_rules)


def _temporal_rules(raw: dict) -> TemporalRules:
    headers = tuple(HeaderRule(_anchor(h["anchor"], "header"), re.compile(h["pattern"], re.IGNORECASE))
                    for h in raw["headers"])
    rules = []
    for r in raw["rules"]:
        if r["shift"] not in _SHIFTS:
            raise ValueError(f"temporal rule {r['id']}: unknown shift {r['shift']!r}")
        requires, lead = (re.compile(r[k], re.IGNORECASE) if k in r else None for k in ("requires", "lead"))
        rules.append(TemporalRule(str(r["id"]), _anchor(r["anchor"], r["id"]), r["shift"],
                                  re.compile(r["pattern"], re.IGNORECASE), bool(r.get("approximate", False)),
                                  requires, lead))
    age = re.compile(raw["stated_age"], re.IGNORECASE) if "stated_age" in raw else None
    return TemporalRules({str(k): int(v) for k, v in raw["numbers"].items()}, headers, tuple(rules), age)
