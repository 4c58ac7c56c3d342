"""FHIR date, dateTime and instant strings -> timezone-aware UTC datetimes with their precision.

Pure functions, no I/O. A value's granularity is what was written, not what it could mean:
"2015-02-03" is DAY, "2015-02-03T10:29:08+00:00" is SECOND. DESIGN.md relies on this: two
events on the same day with DAY granularity have unknown order.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from medeventgraph.model.occurrence import EventTime, Granularity, TimeType

__all__ = [
    "TimeChoice",
    "choice_time",
    "coarser",
    "encounter_bound",
    "instant_time",
    "parse_fhir_time",
    "period_time",
]


# FHIR's own dateTime grammar, loosened in two tolerated ways seen in the wild: time without
# seconds (MINUTE) or hour only (HOUR), and an offset written without the colon.
_FHIR_TIME = re.compile(
    r"(\d{4})(?:-(\d{2})(?:-(\d{2})"
    r"(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?"
    r"(Z|[+-]\d{2}:?\d{2})?)?)?)?"
)

_ORDER = {
    Granularity.SECOND: 0,
    Granularity.MINUTE: 1,
    Granularity.HOUR: 2,
    Granularity.DAY: 3,
    Granularity.WEEK: 3.5,
    Granularity.MONTH: 4,
    Granularity.YEAR: 5,
    Granularity.UNKNOWN: 6,
}

# Records repeat the same stamps many times (issued == effective, one encounter's start for
# all its items); a bounded cache keeps parsing off the ingest profile.
_CACHE: dict[str, tuple[datetime, Granularity] | None] = {}
_CACHE_MAX = 200_000
_TZ_CACHE: dict[str, timezone] = {"Z": UTC}


def _tz(text: str | None) -> timezone:
    if text is None:
        return UTC  # FHIR says a time without offset is local; we have no locale, so UTC
    tz = _TZ_CACHE.get(text)
    if tz is None:
        sign = -1 if text[0] == "-" else 1
        digits = text[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:4])
        if hours > 14 or minutes > 59:
            raise ValueError("offset out of range")
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
        _TZ_CACHE[text] = tz
    return tz


def _parse(value: str) -> tuple[datetime, Granularity] | None:
    m = _FHIR_TIME.fullmatch(value.strip())
    if m is None:
        return None
    year, month, day, hour, minute, second, frac, offset = m.groups()
    try:
        if month is None:
            return datetime(int(year), 1, 1, tzinfo=UTC), Granularity.YEAR
        if day is None:
            return datetime(int(year), int(month), 1, tzinfo=UTC), Granularity.MONTH
        if hour is None:
            return datetime(int(year), int(month), int(day), tzinfo=UTC), Granularity.DAY
        if minute is None:
            gran = Granularity.HOUR
        elif second is None:
            gran = Granularity.MINUTE
        else:
            gran = Granularity.SECOND
        micro = int((frac + "000000")[:6]) if frac else 0
        dt = datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute or 0),
            int(second or 0),
            micro,
            tzinfo=_tz(offset),
        )
        if dt.tzinfo is not UTC:
            dt = dt.astimezone(UTC)
        return dt, gran
    except (ValueError, OverflowError):
        return None


def parse_fhir_time(value: Any) -> tuple[datetime, Granularity] | None:
    """Parse a FHIR date/dateTime/instant (full or partial); None if it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return _CACHE[value]
    except KeyError:
        pass
    out = _parse(value)
    if len(_CACHE) < _CACHE_MAX:
        _CACHE[value] = out
    return out


def coarser(a: Granularity, b: Granularity) -> Granularity:
    return a if _ORDER[a] >= _ORDER[b] else b


# EventTime is immutable, so one object per (stamp, type) is shared by every resource carrying
# that stamp; building frozen dataclasses is a visible share of ingest time otherwise.
_INSTANTS: dict[tuple[str, TimeType], EventTime | None] = {}


def instant_time(value: Any, type_: TimeType = TimeType.OCCURRENCE) -> EventTime | None:
    if not isinstance(value, str):
        return None
    cache_key = (value, type_)
    try:
        return _INSTANTS[cache_key]
    except KeyError:
        pass
    parsed = parse_fhir_time(value)
    out = None if parsed is None else EventTime(start=parsed[0], end=None, type=type_, granularity=parsed[1])
    if len(_INSTANTS) < _CACHE_MAX:
        _INSTANTS[cache_key] = out
    return out


def period_time(period: Any, type_: TimeType = TimeType.OCCURRENCE) -> EventTime | None:
    """A Period with a start; an open end stays None. A Period with only an end is unusable:
    it says when something stopped, not when it happened."""
    if not isinstance(period, dict):
        return None
    start = parse_fhir_time(period.get("start"))
    if start is None:
        return None
    end = parse_fhir_time(period.get("end"))
    if end is None:
        return EventTime(start=start[0], end=None, type=type_, granularity=start[1])
    return EventTime(start=start[0], end=end[0], type=type_, granularity=coarser(start[1], end[1]))


def encounter_bound(period: Any) -> EventTime | None:
    """An Encounter.period as the time of something that happened somewhere within it (type
    ENCOUNTER_BOUNDED, the coarser granularity of its ends; an open period, `end` None,
    bounds it from below only). None without a start or with an end before the start."""
    t = period_time(period, TimeType.ENCOUNTER_BOUNDED)
    if t is None or t.start is None or (t.end is not None and t.end < t.start):
        return None
    return t


class TimeChoice:
    """Result of reading a choice-type time element such as effective[x]."""

    __slots__ = ("invalid", "path", "time")

    def __init__(self, time: EventTime | None, path: str, invalid: bool):
        self.time = time
        self.path = path  # the element the time came from, e.g. "effectiveDateTime"
        self.invalid = invalid  # an element was present but did not parse


_SUFFIXES = ("DateTime", "Period", "Instant", "Date")


def choice_time(raw: dict[str, Any], prefix: str, type_: TimeType = TimeType.OCCURRENCE) -> TimeChoice:
    """Read `<prefix>[x]` as a time. Age, Range, String and Timing variants give no instant, so
    they count as absent; a present but malformed dateTime/Period counts as invalid."""
    invalid = False
    for suffix in _SUFFIXES:
        key = prefix + suffix
        value = raw.get(key)
        if value is None:
            continue
        t = period_time(value, type_) if suffix == "Period" else instant_time(value, type_)
        if t is not None:
            return TimeChoice(t, key, False)
        invalid = True
    if prefix in raw:  # non-choice element of the same name (e.g. Encounter.period handled elsewhere)
        value = raw[prefix]
        t = period_time(value, type_) if isinstance(value, dict) else instant_time(value, type_)
        if t is not None:
            return TimeChoice(t, prefix, False)
        invalid = True
    return TimeChoice(None, "", invalid)
