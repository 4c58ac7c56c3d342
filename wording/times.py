"""Times and durations in the words a clinician reads: "3 Feb 2015 14:05", "3 → 5 Feb 2015",
"within 7 days", "+1 h 30 min". Pure functions over the verdict's TimeOut strings.

Times are shown as the record gives them after normalisation (UTC); a day-granularity time
shows as a date only, because the record does not say when in the day it happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from medeventgraph.core import EvidenceOut, TimeOut, parse_duration

__all__ = [
    "When",
    "date_range",
    "day_text",
    "duration_words",
    "gap_label",
    "gap_words",
    "interval",
    "item_when",
    "when_text",
]

_FINE = ("second", "minute", "hour")


@dataclass(frozen=True, slots=True)
class When:
    """An item's best-known time: `bound` means "no later than" (a note's documentation date)."""

    start: datetime
    end: datetime | None
    granularity: str
    bound: bool = False
    in_encounter: bool = False  # known only to lie within its encounter's period
    words: str | None = None  # the note's words the time was read from ("three weeks ago")

    @property
    def fine(self) -> bool:
        return self.granularity in _FINE and not self.in_encounter

    @property
    def exact(self) -> bool:
        """A time an interval can be measured from (not a bound, not a whole encounter)."""
        return not (self.bound or self.in_encounter)


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _from(t: TimeOut | None, bound: bool) -> When | None:
    if t is None or t.granularity == "unknown":
        return None
    start = _parse(t.start)
    if start is None:
        return None
    return When(start, _parse(t.end), t.granularity, bound, t.type == "encounter-bounded",
                None if bound else t.words)


def item_when(item: EvidenceOut) -> When | None:
    """The occurrence time when resolved, else the documentation bound, else None."""
    return _from(item.time, False) or _from(item.documented, True)


def day_text(dt: datetime, granularity: str = "day") -> str:
    if granularity == "year":
        return f"{dt.year}"
    if granularity == "month":
        return dt.strftime("%b %Y")
    return f"{dt.day} {dt.strftime('%b %Y')}"


def _clock(dt: datetime) -> str:
    return dt.strftime("%H:%M")


def when_text(w: When | None, *, with_time: bool = True) -> str:
    """"3 Feb 2015 14:05", "3–5 Feb 2015", "note of 5 Feb 2015" (known only to be no later than a
    note's date), "time unknown"."""
    if w is None:
        return "time unknown"
    text = day_text(w.start, w.granularity)
    if w.fine and with_time:
        text += f" {_clock(w.start)}"
    if w.end is not None and w.end != w.start:
        text = date_range(w.start, w.end, with_time=w.fine and with_time, sep="–")
    if w.bound:
        return f"note of {text}"
    if w.in_encounter:
        return f"during the encounter of {text}"
    if w.words:
        return f"{text} (stated: '{' '.join(w.words.split())}')"
    return text


def date_range(a: datetime, b: datetime, *, with_time: bool = False, sep: str = " → ") -> str:
    """The two dates sharing what they share: "3 → 5 Feb 2015", "3 Feb 2015 10:00 → 11:30"."""
    if a == b:
        return f"{day_text(a)} {_clock(a)}" if with_time else day_text(a)
    if with_time:
        if a.date() == b.date():
            return f"{day_text(a)} {_clock(a)}{sep}{_clock(b)}"
        return f"{day_text(a)} {_clock(a)}{sep}{day_text(b)} {_clock(b)}"
    if a.date() == b.date():
        return day_text(a)
    if (a.year, a.month) == (b.year, b.month):
        return f"{a.day}{sep}{day_text(b)}"
    if a.year == b.year:
        return f"{a.day} {a.strftime('%b')}{sep}{day_text(b)}"
    return f"{day_text(a)}{sep}{day_text(b)}"


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}" + ("" if n == 1 else "s")


def duration_words(iso: str) -> str:
    """"P7D" -> "7 days", "PT1H30M" -> "1 hour 30 minutes", "P2W" -> "2 weeks"."""
    d = parse_duration(iso)
    if iso.strip().upper().endswith("W") and d.days % 7 == 0 and not d.seconds:
        return _plural(d.days // 7, "week")
    return gap_words(d, coarse=False)


def gap_words(d: timedelta, *, coarse: bool) -> str:
    """A positive interval in words; `coarse` (a day-granularity end) counts whole days."""
    d = abs(d)
    if coarse:
        return _plural(round(d / timedelta(days=1)), "day")
    total = int(d.total_seconds())
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return _plural(days, "day") + (f" {_plural(hours, 'hour')}" if hours and days < 3 else "")
    if hours:
        return _plural(hours, "hour") + (f" {_plural(minutes, 'minute')}" if minutes else "")
    return _plural(max(minutes, 1), "minute") if total >= 60 else "less than a minute"


def gap_label(d: timedelta, *, coarse: bool) -> str:
    """The compact signed label drawn on a timeline: "+1 h 30 min", "+2 d", "−3 h"."""
    sign = "−" if d < timedelta(0) else "+"
    d = abs(d)
    if coarse:
        return f"{sign}{round(d / timedelta(days=1))} d"
    total = int(d.total_seconds())
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{days} d"] if days else []
    if hours and days < 3:
        parts.append(f"{hours} h")
    if minutes and not days:
        parts.append(f"{minutes} min")
    return sign + (" ".join(parts) or "0 min")


def interval(a: When, b: When) -> tuple[timedelta, bool]:
    """b - a, and whether it is only known to the day (either end at day granularity or coarser)."""
    coarse = not (a.fine and b.fine)
    if coarse:
        return timedelta(days=(b.start.date() - a.start.date()).days), True
    return b.start - a.start, False
