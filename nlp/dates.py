"""Occurrence times a sentence states, resolved against the note's date (pure functions).

Only expressions that resolve to a definite window are returned: explicit dates
("on 2015-02-03", "on 02/03/2015", "on 2015-02-03 at 14:30", "in March 2019", "in 2019") and
relative ones anchored at the note date ("yesterday", "today", "last night", "2 days ago",
"3 hours ago", "4 months ago", "5 years ago"). "2 weeks ago" and vaguer phrases stay
unresolved: no granularity holds them honestly. The note date itself is never an
occurrence time; it is only the anchor.

Examples
--------
>>> from datetime import datetime, timezone
>>> anchor = datetime(2020, 5, 15, 9, 30, tzinfo=timezone.utc)
>>> resolve_relative("2 days ago", anchor).start.date().isoformat()
'2020-05-13'
>>> resolve_relative("yesterday", anchor).granularity.value
'day'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from medeventgraph.model.occurrence import EventTime, Granularity, TimeType

__all__ = ["TimeMention", "find_times", "in_other_clause", "nearest_time", "planned_time", "resolve_relative"]

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ]
    )
    for m in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_TIME = r"(?:\s+at\s+(?P<hh>\d{1,2}):(?P<mm>\d{2}))?"

_ISO = re.compile(rf"\b(?:on|dated)\s+(?P<y>\d{{4}})-(?P<m>\d{{2}})-(?P<d>\d{{2}})(?:[T ](?P<th>\d{{2}}):(?P<tm>\d{{2}}))?{_TIME}\b", re.IGNORECASE)
_US = re.compile(rf"\b(?:on|dated)\s+(?P<m>\d{{1,2}})/(?P<d>\d{{1,2}})/(?P<y>\d{{4}}){_TIME}\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\bin\s+(?P<mon>{_MONTH_RE})\.?\s+(?P<y>\d{{4}})\b", re.IGNORECASE)
_YEAR = re.compile(r"\bin\s+(?P<y>(?:19|20)\d{2})\b(?!\s*(?:mg|ml|units?|%))", re.IGNORECASE)
_AGO = re.compile(r"\b(?P<n>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                  r"(?P<unit>hours?|hrs?|days?|months?|years?|yrs?)\s+ago\b", re.IGNORECASE)
_WORDS = re.compile(r"\b(?P<w>yesterday|today|this morning|last night|tonight)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"\band\b|\bbut\b|[,;]", re.IGNORECASE)
# A time never crosses a word that orders two events: in "started on Augmentin, and then three
# days prior to admission was given Rocephin" the time is Rocephin's, not Augmentin's. Nor a word
# that sets its clause in the present ("cholecystectomy 10 days ago and now has a wound infection"),
# unless it leads into the time itself ("a cholecystectomy, now 3 weeks ago": the words searched end
# where the time starts), nor a clause of the presentation joined to it ("status post
# tonsillectomy one week ago and presents with bleeding").
_SEQUENCE = re.compile(r"\b(?:then|subsequently|later|afterwards?|thereafter|followed|after\s+which|currently|presently"
                       r"|now(?!\s*$)|and\s+(?:presents|presented|comes|came|returns|returned|complains))\b",
                       re.IGNORECASE)
# Nor does a time before a mention reach it when the mention is named as the cause of what the time
# dates, which began before it ("died 4 days into the admission from sepsis": the death's time).
_CAUSE_BEFORE = re.compile(r"\b(?:from|due\s+to|secondary\s+to|because\s+of)\s+(?:(?:his|her|the|an?)\s+)?$",
                           re.IGNORECASE)
# And a time after a mention, past "after / following / from" and an act ("bleeding from inserting a
# marble four days ago", "a rash after starting amoxicillin on 3/2"), dates that act, not the mention.
# Not "secondary to" / "due to": "status post knee replacement secondary to arthritis performed on
# 08/21/2007" dates the replacement.
_CAUSE_AFTER = re.compile(r"\b(?:after|following|from)\s+(?:(?:his|her|the|a|an)\s+)?\w+ing\b", re.IGNORECASE)
# A clause that opens on a new subject after the mention makes its own statement, and a time told in
# it is its own ("underwent biopsy (unremarkable), She received Prednisone for 2 days prior to
# presentation": the days are the Prednisone's). Not a clause that only says who told it ("the
# biopsy, she reported, was done 2 days ago").
_NEW_SUBJECT_AFTER = re.compile(r"(?:[,;]|\band\b|\bbut\b)\s*(?:and\s+|but\s+|so\s+)?(?:she|he|they|we|the\s+patient)\s+"
                                r"(?!(?:reported|stated|noted|said|recalled|explained)\s*,)(?:was|were|is|had|has|\w+ed)\b",
                                re.IGNORECASE)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10}


@dataclass(frozen=True, slots=True)
class TimeMention:
    """A resolved time expression at [start, end) of the sentence."""

    start: int
    end: int
    text: str
    time: EventTime
    part: str | None = None  # part of the day the text states ("night", "early morning")
    anchor: str = "stated"  # what it was resolved against: stated, note, admission, surgery, previous
    approximate: bool = False  # "about 3 weeks ago": the window holds a range
    rule_id: str | None = None  # the temporal rule that read it (None: an explicit or Duckling time)
    planned: bool = False  # a time ahead of the note ("in 2 weeks", "tomorrow"): what is told at it is a plan


def _day(d: datetime) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _instant(y: int, m: int, d: int, hh: str | None, mm: str | None) -> EventTime | None:
    try:
        if hh is not None and mm is not None:
            start = datetime(y, m, d, int(hh), int(mm), tzinfo=UTC)
            return EventTime(start=start, type=TimeType.OCCURRENCE, granularity=Granularity.MINUTE)
        return EventTime(start=datetime(y, m, d, tzinfo=UTC), granularity=Granularity.DAY)
    except ValueError:  # 2015-02-30, 13/45/2015
        return None


def _shift_months(anchor: datetime, months: int) -> datetime:
    total = anchor.year * 12 + anchor.month - 1 - months
    return datetime(total // 12, total % 12 + 1, 1, tzinfo=UTC)


_FINE = (Granularity.SECOND, Granularity.MINUTE, Granularity.HOUR)


def resolve_relative(
    expression: str, anchor: datetime | None, anchor_granularity: Granularity = Granularity.SECOND
) -> EventTime | None:
    """Resolve a relative expression ("yesterday", "3 days ago") against `anchor` (the note date).

    The anchor's own calendar day (in its own offset) is "today". Returns None when the
    expression is not one we resolve, when there is no anchor, or when the anchor is too coarse
    (a day-only note date cannot place "3 hours ago"; a month-only one cannot place "yesterday").
    """
    if anchor is None or anchor_granularity not in (*_FINE, Granularity.DAY):
        return None
    try:
        return _relative(expression, anchor, anchor_granularity)
    except (OverflowError, ValueError):
        return None  # before year 1 or after 9999: a time the calendar cannot hold is no time


def _relative(expression: str, anchor: datetime, anchor_granularity: Granularity) -> EventTime | None:
    local = anchor if anchor.tzinfo else anchor.replace(tzinfo=UTC)
    text = " ".join(expression.lower().split())
    day = Granularity.DAY
    if text in ("today", "this morning", "tonight"):
        return EventTime(start=_day(local), granularity=day)
    if text in ("yesterday", "last night"):
        return EventTime(start=_day(local - timedelta(days=1)), granularity=day)
    match = _AGO.fullmatch(text)
    if match is None:
        return None
    raw = match["n"].lower()
    n = int(raw) if raw.isdigit() else _NUMBERS[raw]
    unit = match["unit"].lower()
    if unit.startswith(("hour", "hr")):
        if anchor_granularity not in _FINE:
            return None
        hour = local.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        return EventTime(start=hour - timedelta(hours=n), granularity=Granularity.HOUR)
    if unit.startswith("day"):
        return EventTime(start=_day(local - timedelta(days=n)), granularity=day)
    if unit.startswith("month"):
        return EventTime(start=_shift_months(local, n), granularity=Granularity.MONTH)
    return EventTime(start=datetime(local.year - n, 1, 1, tzinfo=UTC), granularity=Granularity.YEAR)


def find_times(
    sentence: str, anchor: datetime | None, anchor_granularity: Granularity = Granularity.SECOND
) -> list[TimeMention]:
    """Every time expression of `sentence` that resolves, in text order (no overlaps)."""
    found: list[TimeMention] = []
    for rx in (_ISO, _US):
        for m in rx.finditer(sentence):
            hh = m.groupdict().get("th") or m["hh"]
            mm = m.groupdict().get("tm") or m["mm"]
            t = _instant(int(m["y"]), int(m["m"]), int(m["d"]), hh, mm)
            if t is not None:
                found.append(TimeMention(m.start(), m.end(), m.group(0), t))
    for m in _MONTH_YEAR.finditer(sentence):
        start = datetime(int(m["y"]), _MONTHS[m["mon"].lower()], 1, tzinfo=UTC)
        found.append(TimeMention(m.start(), m.end(), m.group(0), EventTime(start, granularity=Granularity.MONTH)))
    for m in _YEAR.finditer(sentence):
        start = datetime(int(m["y"]), 1, 1, tzinfo=UTC)
        found.append(TimeMention(m.start(), m.end(), m.group(0), EventTime(start, granularity=Granularity.YEAR)))
    for rx in (_AGO, _WORDS):
        for m in rx.finditer(sentence):
            t = resolve_relative(m.group(0), anchor, anchor_granularity)
            if t is not None:
                found.append(TimeMention(m.start(), m.end(), m.group(0), t))
    found.sort(key=lambda t: (t.start, -(t.end - t.start)))
    kept: list[TimeMention] = []
    for t in found:
        if not kept or t.start >= kept[-1].end:
            kept.append(t)
    return kept


def planned_time(times: list[TimeMention], start: int, end: int, sentence: str) -> TimeMention | None:
    """The time ahead of the note that the mention at [start, end) is told at, in its own clause
    ("repeat pyeloplasty in 2 to 3 weeks"), where no time that dates it is nearer; else None."""
    best = nearest_time(times, start, end, sentence)
    if best is None or not best.planned:
        return None
    return None if in_other_clause(best, start, end, sentence) else best


def _between(t: TimeMention, start: int, end: int, sentence: str) -> str:
    """The words between the time and the mention at [start, end) ("" when they overlap)."""
    return sentence[t.end:start] if t.end <= start else sentence[end:t.start] if t.start >= end else ""


def in_other_clause(t: TimeMention, start: int, end: int, sentence: str) -> bool:
    """Is a clause boundary ("and", "but", a comma) between the time and the mention at [start, end)?"""
    return _CLAUSE.search(_between(t, start, end, sentence)) is not None


def nearest_time(
    times: list[TimeMention], start: int, end: int, sentence: str | None = None
) -> TimeMention | None:
    """The time expression closest to the mention at [start, end) of the same sentence; with the
    sentence text, one in the mention's own clause wins ("placed on prednisone on 8/11/93 and
    Cytoxan was started on 8/16/93": Cytoxan's time is 8/16/93), and one across a sequence word
    ("then", "subsequently", "later" ...) is another event's."""
    if not times:
        return None

    def distance(t: TimeMention) -> tuple[int, int, int]:
        gap = t.start - end if t.start >= end else start - t.end if t.end <= start else 0
        return (int(sentence is not None and in_other_clause(t, start, end, sentence)), max(gap, 0), t.start)

    def _across_sequence(t: TimeMention) -> bool:
        if sentence is None:
            return False
        return _SEQUENCE.search(_between(t, start, end, sentence)) is not None

    def _past_cause(t: TimeMention) -> bool:
        if sentence is None or t.start < end:
            return False
        after = sentence[end:t.start]
        return _CAUSE_AFTER.search(after) is not None or _NEW_SUBJECT_AFTER.search(after) is not None

    # the cause's words may be the time's own ("2 weeks out from her repair"): only a time before them
    cause = _CAUSE_BEFORE.search(sentence[:start]) if sentence is not None else None
    usable = [t for t in times if not _across_sequence(t) and not (cause and t.end <= cause.start())
              and not _past_cause(t)]
    return min(usable, key=distance) if usable else None
