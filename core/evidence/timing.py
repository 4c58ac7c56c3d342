"""Timing compatibility from recorded times and granularity (pure functions).

Every time becomes closed windows for its start and end: a value at day granularity can be
anywhere in that day, so two same-day events have unknown order, not "before". A note that
affirms a current event, documented at T, bounds the event's start to "no later than T":
that bound can make "A before B" compatible (T before B), but a bounded-only time never
counts as resolved, so it cannot refute.

Between two calendar dates (day granularity) a window stated in whole days counts whole days,
as CQL's Date arithmetic does ("days between 2008-07-09 and 2008-07-17" is 8): dates 8 days apart
are within P8D, though the instants inside those days could be up to 9 days apart.

An encounter-bounded time (no time of its own, only its encounter's period) is one window
for both ends, the whole period (open-ended while the encounter is): two such items in different, non-overlapping encounters are
ordered by them (and can refute), within one encounter their order stays unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum

from medeventgraph.core.query.model import RelationType
from medeventgraph.model.occurrence import EventTime, Granularity, TimeType

__all__ = ["Comparison", "Span", "Timing", "Window", "compare", "longest_gap", "shift", "span_of"]

_FLOOR = datetime.min.replace(tzinfo=UTC)
_CEILING = datetime.max.replace(tzinfo=UTC)
MIN_TIME = _FLOOR + timedelta(days=400)
MAX_TIME = _CEILING - timedelta(days=400)
_TICK = timedelta(microseconds=1)


def shift(dt: datetime, delta: timedelta) -> datetime:
    """`dt + delta`, saturating at the ends of the datetime range instead of raising
    OverflowError: records hold stamps such as 0001-01-01 and 9999-12-31 (placeholders for
    "unknown" and "no end"), and padding or widening them must not fail."""
    try:
        return dt + delta
    except OverflowError:
        return _CEILING if delta > timedelta(0) else _FLOOR


class Timing(str, Enum):
    COMPATIBLE = "compatible"
    INCOMPATIBLE = "incompatible"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Window:
    lo: datetime
    hi: datetime  # inclusive


@dataclass(frozen=True, slots=True)
class Span:
    start: Window
    end: Window
    resolved: bool  # False when only bounded by a note's documentation time
    date: bool = False  # the start is a calendar date (day granularity)


def _window(dt: datetime, t: EventTime) -> Window:
    return Window(dt, shift(dt, t.span - _TICK))


def span_of(time: EventTime, documented: EventTime | None = None, open_end: bool = False) -> Span | None:
    """The windows an item's interval can occupy, or None when nothing bounds it."""
    if time.type is TimeType.ENCOUNTER_BOUNDED and time.resolved and time.start is not None:
        inside = Window(time.start, MAX_TIME if time.end is None else _window(time.end, time).hi)
        return Span(inside, inside, True)
    if time.resolved and time.start is not None:
        start = _window(time.start, time)
        if time.end is not None:
            end = _window(time.end, time)
        elif open_end:
            end = Window(start.lo, MAX_TIME)
        else:
            end = start
        return Span(start, end, True, time.granularity is Granularity.DAY)
    if documented is not None and documented.resolved and documented.start is not None:
        bound = _window(documented.start, documented)
        return Span(Window(MIN_TIME, bound.hi), Window(MIN_TIME, MAX_TIME), False)
    return None


@dataclass(frozen=True, slots=True)
class Comparison:
    timing: Timing
    reason: str  # "order", "window", "overlap", "no time", "same granularity window", ...


def compare(a: Span | None, b: Span | None, relation: RelationType, within: timedelta | None) -> Comparison:
    """Does `a RELATION b` hold? (a is the relation's `from`, b its `to`.)"""
    if a is None or b is None:
        return Comparison(Timing.UNKNOWN, "no usable time")
    if relation is RelationType.AFTER:
        return _before(b, a, within)
    if relation is RelationType.BEFORE:
        return _before(a, b, within)
    return _overlaps(a, b)


def _before(a: Span, b: Span, within: timedelta | None) -> Comparison:
    both = a.resolved and b.resolved
    order_ok = a.start.hi < b.start.lo
    if both and b.start.hi <= a.start.lo:
        return Comparison(Timing.INCOMPATIBLE, "opposite order")
    if within is not None:
        if both and b.start.lo - a.start.hi > within:
            return Comparison(Timing.INCOMPATIBLE, "outside window")
        if order_ok and a.resolved and longest_gap(a, b, within) <= within:
            return Comparison(Timing.COMPATIBLE, "ordered within window")
        return Comparison(Timing.UNKNOWN, "order or window unresolved at recorded granularity")
    if order_ok:
        return Comparison(Timing.COMPATIBLE, "ordered" if both else "ordered by documentation bound")
    return Comparison(Timing.UNKNOWN, "order unresolved at recorded granularity")


_DAY = timedelta(days=1)


def longest_gap(earlier: Span, later: Span, within: timedelta) -> timedelta:
    """The longest `later` can start after `earlier` starts, as a window of `within` is judged:
    in whole days between two calendar dates when the window is whole days, else from the first
    instant `earlier` can start to the last `later` can."""
    if earlier.date and later.date and within % _DAY == timedelta(0):
        return later.start.lo - earlier.start.lo
    return later.start.hi - earlier.start.lo


def _overlaps(a: Span, b: Span) -> Comparison:
    if a.resolved and b.resolved:
        if a.end.hi < b.start.lo or b.end.hi < a.start.lo:
            return Comparison(Timing.INCOMPATIBLE, "disjoint intervals")
        if a.start.hi <= b.end.lo and b.start.hi <= a.end.lo:
            return Comparison(Timing.COMPATIBLE, "intervals intersect")
    return Comparison(Timing.UNKNOWN, "intersection unresolved")
