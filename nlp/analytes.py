"""The analytes whose values notes state (resources/analytes.json), as a typed, validated table."""

from __future__ import annotations

import re
from functools import cache, cached_property

from medeventgraph.model.packaged import packaged_model
from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["Alias", "Analyte", "AnalyteTable", "UnitSpec", "load_analytes"]

_PACKAGE = "medeventgraph.nlp"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Alias(_Frozen):
    text: str = Field(min_length=1)
    case_sensitive: bool = False
    strict: bool = False  # needs a decimal or a unit after it ("K 6.1"): a bare short form before an integer is ambiguous


class UnitSpec(_Frozen):
    unit: str  # the UCUM-like spelling derive rules convert from
    aliases: tuple[str, ...]
    low: float  # plausible range in this unit: outside it the number is something else
    high: float
    factor: float = 1.0  # value in the analyte's first (default) unit = value * factor + offset
    offset: float = 0.0
    bare: bool = False  # a number written without a unit is in this unit when the default's range excludes it

    @model_validator(mode="after")
    def _ordered(self) -> UnitSpec:
        if not 0 <= self.low < self.high:
            raise ValueError(f"unit {self.unit}: plausible range {self.low}-{self.high} is empty")
        return self

    def plausible(self, value: float) -> bool:
        return self.low <= value <= self.high

    def to_default(self, value: float) -> float:
        """The value in the analyte's default unit (a linear conversion: mg/dL, degF, 10*3/uL)."""
        return value * self.factor + self.offset


class Analyte(_Frozen):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    concept: str  # the lexicon concept id the mention stands for
    display: str
    kind: str = Field(pattern=r"^(lab|vital)$")
    loinc: str
    reading: bool = False  # "blood pressure 80/40": the systolic of an S/D reading
    diastolic: str | None = None  # a reading's other half ("/40"): the id of its diastolic analyte
    aliases: tuple[Alias, ...] = Field(min_length=1)
    excluded_after: tuple[str, ...] = ()  # words right after the alias that name something else
    excluded_before: tuple[str, ...] = ()
    units: tuple[UnitSpec, ...] = Field(min_length=1)

    @property
    def default_unit(self) -> UnitSpec:
        """The unit assumed when the text states none (the first one listed)."""
        return self.units[0]

    def bare_unit(self, value: float) -> UnitSpec | None:
        """The unit of a number written without one: the default where plausible, else the first
        unit marked `bare` whose range holds it ("WBC 20,000": cells/uL; "temperature 38.5": Cel)."""
        if self.default_unit.plausible(value):
            return self.default_unit
        return next((u for u in self.units[1:] if u.bare and u.plausible(value)), None)

    @property
    def in_percent(self) -> bool:
        """Its values are percentages ("SpO2 88%"): for other analytes a number before "%" is none."""
        return any(u.unit == "%" for u in self.units)

    def unit_for(self, written: str) -> UnitSpec | None:
        key = " ".join(written.lower().split())
        return next((u for u in self.units if key == u.unit.lower() or key in u.aliases), None)


class _NotMeasured(_Frozen):
    about: str = ""
    intent: tuple[str, ...]  # anywhere in the clause before the value: a goal or a condition
    limit: tuple[str, ...]  # between the analyte and the number: a threshold or a reference range
    dose_after: tuple[str, ...]  # right after the number: a dose, a count, a duration
    other_specimen: tuple[str, ...]  # earlier in the sentence: a value of CSF, urine, pleural fluid ...


class _Change(_Frozen):
    about: str = ""
    forward: tuple[str, ...]
    reverse: tuple[str, ...]
    not_a_change: tuple[str, ...]
    timed_list: tuple[str, ...] = ()  # regular expressions of the times a list of values writes between them
    told_next: tuple[str, ...] = ()  # regular expressions of the words telling the series' next value, later

    @cached_property
    def next_later(self) -> re.Pattern[str]:
        """Words, after a value and perhaps its time, that tell the next value as a later one: "1.2 on
        admission and peaked at 3.4", "6.2 and on recheck was 4.8", "0.5, and six hours later 2.1"."""
        told = "|".join(self.told_next) or "(?!)"
        return re.compile(rf"\s*,?\s*(?:(?:{self._times})\s*,?\s*)?(?:and\s+|but\s+)?(?:{told})\s*(?=\d)",
                          re.IGNORECASE)

    @cached_property
    def timed_next(self) -> re.Pattern[str]:
        """A time, then the next value of the list: "17.3 yesterday 26.9", "1.2 on admission, 2.3"."""
        return re.compile(rf"\s*,?\s*(?:{self._times})\s*,?\s*(?:and\s+)?(?:(?:it\s+)?was\s+)?(?=\d)", re.IGNORECASE)

    @cached_property
    def timed_after(self) -> re.Pattern[str]:
        """A time right after a value: "(it was 3.1) on admission"."""
        return re.compile(rf"\s*,?\s*(?:{self._times})\b", re.IGNORECASE)

    @property
    def _times(self) -> str:
        return "|".join(self.timed_list) or "(?!)"


class _Intervals(_Frozen):
    about: str = ""
    words: dict[str, float]


class AnalyteTable(_Frozen):
    version: int
    about: str = ""
    analytes: tuple[Analyte, ...]
    not_a_measurement: _NotMeasured
    change_words: _Change
    rise_intervals: _Intervals

    @model_validator(mode="after")
    def _aliases_unique(self) -> AnalyteTable:
        seen: dict[tuple[str, bool], str] = {}
        for analyte in self.analytes:
            for alias in analyte.aliases:
                key = (alias.text if alias.case_sensitive else alias.text.lower(), alias.case_sensitive)
                if key in seen and seen[key] != analyte.id:
                    raise ValueError(f"alias {alias.text!r} names both {seen[key]} and {analyte.id}")
                seen[key] = analyte.id
        return self

    @model_validator(mode="after")
    def _diastolic_known(self) -> AnalyteTable:
        ids = {a.id for a in self.analytes}
        for analyte in self.analytes:
            if analyte.diastolic is not None and (not analyte.reading or analyte.diastolic not in ids):
                raise ValueError(f"analyte {analyte.id}: diastolic {analyte.diastolic!r} needs a reading and a known analyte")
        return self

    def analyte(self, analyte_id: str) -> Analyte:
        return self.by_id[analyte_id]

    @cached_property
    def by_id(self) -> dict[str, Analyte]:
        return {a.id: a for a in self.analytes}

    @cached_property
    def by_alias(self) -> dict[str, tuple[Analyte, Alias]]:
        """Lower-cased alias -> (analyte, alias); a case-sensitive alias keyed as written."""
        out: dict[str, tuple[Analyte, Alias]] = {}
        for analyte in self.analytes:
            for alias in analyte.aliases:
                out.setdefault(alias.text if alias.case_sensitive else alias.text.lower(), (analyte, alias))
        return out

    @cached_property
    def alias_pattern(self) -> re.Pattern[str]:
        """Every alias as a whole word, longest first (case is checked after matching)."""
        texts = sorted({a.text.lower() for an in self.analytes for a in an.aliases}, key=lambda t: (-len(t), t))
        body = "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in texts)
        return re.compile(rf"(?<![\w+/.-])(?:{body})(?![\w+])", re.IGNORECASE)

    @cached_property
    def first_words(self) -> frozenset[str]:
        """The lower-cased first word of every alias ("k" of "k+", "blood" of "blood pressure"):
        the tokens a note must hold for an alias to start there."""
        return frozenset(re.match(r"[a-z0-9]+", a.text.lower()).group()  # type: ignore[union-attr]
                         for an in self.analytes for a in an.aliases)

    def lookup(self, written: str) -> tuple[Analyte, Alias] | None:
        """The analyte an alias as written names: case-sensitive aliases only in their own case."""
        flat = " ".join(written.split())
        exact = self.by_alias.get(flat)
        if exact is not None and exact[1].case_sensitive:
            return exact
        found = self.by_alias.get(flat.lower())
        return found if found is not None and not found[1].case_sensitive else None


@cache
def load_analytes() -> AnalyteTable:
    return packaged_model(_PACKAGE, "analytes.json", AnalyteTable)
