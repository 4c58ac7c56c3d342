"""A lab or vital event named by its value: "creatinine 3.2", "WBC 20,000", "heart rate in the 50s",
"BP 80/40", "temperature 38.9".

The query's words are read by the same value reader as the notes (nlp/values.py, the analyte
table nlp/resources/analytes.json), so "creatinine 3.2" names the creatinine analyte and the
value 3.2 mg/dL. Such an event binds only an item of that analyte (one of its LOINC codes)
whose value is the query's: equal within the stated precision of both numbers (after unit
conversion), inside the stated decade ("in the 50s": 50 to 59.x), or the same reading. Words of
the query outside the analyte and its value ("fasting glucose 94") are not checked: the binding
records them as left out (`ValueQuery.left_out`), so a reader sees that it is partial.

Pure functions of the query text and the item's codes and value: what the contract re-checks
(core.binding, basis `value`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from medeventgraph.core.query.lexicon import Lexicon
from medeventgraph.model.occurrence import Value
from medeventgraph.nlp.analytes import Analyte, UnitSpec, load_analytes
from medeventgraph.nlp.values import ValueFind, find_values

__all__ = ["LOINC", "ValueQuery", "parse_value_query", "value_matches"]

LOINC = "http://loinc.org"
_EPSILON = 1e-9
_READING = re.compile(r"(\d{2,3})\s*/\s*(\d{2,3})")
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_MAX_LEFT_OUT = 2  # more words outside the value than this: the text is not a value query


@dataclass(frozen=True, slots=True)
class ValueQuery:
    """The analyte and value a query event's text states, in the analyte's default unit."""

    analyte: str  # analyte id (nlp/resources/analytes.json)
    codes: frozenset[str]  # "system|code": the analyte's LOINC code and its lexicon concept's codes
    low: float  # a point: low == high
    high: float
    tolerance: float  # half the last stated digit, in the default unit (0 for a decade)
    diastolic: float | None  # a reading's second number ("80/40")
    text: str  # the value as written ("3.2", "in the 50s", "80/40")
    left_out: tuple[str, ...]  # query words the binding does not check ("fasting")

    @property
    def detail(self) -> str:
        """The binding basis detail: the analyte, the value, and what was left out."""
        out = f"{self.analyte}|{self.text}"
        return out + (f"|without:{' '.join(self.left_out)}" if self.left_out else "")


def _decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0


def _point_tolerance(number: str, factor: float) -> float:
    return 0.5 * 10 ** -_decimals(number) * abs(factor)


@lru_cache(maxsize=1024)
def parse_value_query(text: str, lexicon: Lexicon) -> ValueQuery | None:
    """The value query a text states, or None ("creatinine" alone, "urine creatinine 50": no
    blood value; "creatinine 3.2 after vancomycin": too many other words)."""
    table = load_analytes()
    found = [v for v in find_values(text, 0, table) if v.analyte in table.by_id]
    primary = next((v for v in found if not _is_diastolic_half(v, found)), None)
    if primary is None or primary.series:
        return None  # a stated change or range in the query itself is no one value
    analyte = table.analyte(primary.analyte)
    left_out = _left_out(text, primary)
    if left_out is None:
        return None
    unit = analyte.unit_for(primary.unit) or analyte.default_unit
    diastolic = next((v.quantity for v in found if v is not primary and v.start >= primary.start), None)
    codes = frozenset({f"{LOINC}|{analyte.loinc}"} | {
        f"{c.system}|{c.code}" for c in lexicon.concepts[analyte.concept].codes
        if analyte.concept in lexicon.concepts and c.system == LOINC})
    if primary.quantity is None:
        assert primary.low is not None and primary.high is not None
        return ValueQuery(analyte.id, codes, unit.to_default(primary.low), unit.to_default(primary.high + 1) - _EPSILON,
                          0.0, diastolic, primary.text, left_out)
    number = re.search(r"\d[\d,]*(?:\.\d+)?|\.\d+", primary.text)
    tolerance = _point_tolerance(number.group() if number else "0", unit.factor)
    point = unit.to_default(primary.quantity)
    return ValueQuery(analyte.id, codes, point, point, tolerance, diastolic, _value_text(primary), left_out)


def _is_diastolic_half(v: ValueFind, found: list[ValueFind]) -> bool:
    table = load_analytes()
    return any(table.analyte(o.analyte).diastolic == v.analyte and o.start <= v.start for o in found if o is not v)


def _value_text(v: ValueFind) -> str:
    return " ".join(v.text.split())


def _left_out(text: str, primary: ValueFind) -> tuple[str, ...] | None:
    """Words of the query before the analyte's alias or after its value (its own words and
    linking words such as "of", "was" are the value's)."""
    outside = text[:primary.start] + " " + text[primary.end:]
    if any(ch.isdigit() for ch in outside):
        return None  # "heart rate 115 to 150": a range or a second value, not one value
    words = tuple(w.lower() for w in _WORD.findall(outside))
    return words if len(words) <= _MAX_LEFT_OUT else None


def value_matches(query: ValueQuery, value: Value | None) -> bool:
    """Is an item's value the query's? `value.unit` is converted with the analyte's table; a
    unit the table does not know is never guessed. A stated decade matches a point inside it
    or a decade inside it; a point matches a point within the finer of the two precisions."""
    if value is None:
        return False
    analyte = load_analytes().analyte(query.analyte)
    unit = _unit_of(analyte, value.unit)
    if unit is None:
        return False
    if value.quantity is None:
        low, high = _stated_range(value)
        if low is None or high is None or query.tolerance:
            return False
        return query.low <= unit.to_default(low) and unit.to_default(high + 1) - _EPSILON <= query.high
    n = unit.to_default(value.quantity)
    if query.low != query.high:
        return query.low - _EPSILON <= n <= query.high
    number = re.search(r"\d[\d,]*(?:\.\d+)?|\.\d+", value.text or "")
    tolerance = min(query.tolerance, _point_tolerance(number.group(), unit.factor) if number else query.tolerance)
    if abs(n - query.low) > tolerance + _EPSILON:
        return False
    if query.diastolic is None:
        return True
    reading = _READING.search(value.text or "")
    return reading is not None and float(reading.group(2)) == query.diastolic


def _unit_of(analyte: Analyte, written: str | None) -> UnitSpec | None:
    """The unit a value is in; none written is the default only for a dimensionless analyte ("INR")."""
    if written:
        return analyte.unit_for(written)
    only = analyte.default_unit
    return only if len(analyte.units) == 1 and only.unit.startswith("{") else None


def _stated_range(value: Value) -> tuple[float | None, float | None]:
    """A note's decade ("in the 70s") as its Value states it: the text holds the decade."""
    m = re.search(r"(?:(low|lower|mid|middle|high|upper)[\s-]+)?([1-9]0|[12][1-9]0)'?s\b", value.text or "", re.IGNORECASE)
    if m is None:
        return None, None
    quarters = {None: (0, 9), "low": (0, 3), "lower": (0, 3), "mid": (3, 7), "middle": (3, 7), "high": (7, 9),
                "upper": (7, 9)}
    lo, hi = quarters[(m.group(1) or "").lower() or None]
    base = float(m.group(2))
    return base + lo, base + hi
