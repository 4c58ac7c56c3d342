"""Time from text: temporal expressions normalised against the anchors the record states.

Anchors are the note's date, the encounter's admission and discharge, and dates the note
itself states in headers ("ADMISSION DATE: 04/02/2007", "DATE OF SURGERY: ..."). General
expressions (explicit dates in US and ISO forms, "2 days ago", "yesterday", "in May 2006")
are read by Duckling (pyduckling-native-phihos: chosen by measurement on MTSamples notes,
benchmarks/bench_temporal_libs.py); the clinical forms it lacks ("on hospital day 3",
"POD 2", "two days prior to admission", "the next morning", "at that time", parts of the
day, "6 weeks ago" as an approximate range) are rules in resources/temporal_rules.json.

No anchor, no time: an expression whose anchor the record does not state stays unresolved.
Times after the note's own day are plans, not occurrences: dropped, except one the text states as
ahead ("in 2 weeks", "tomorrow"), kept as `planned` so that what its clause tells reads as a plan.
Counts from the time the passage told last ("three days later", "two weeks earlier") are windows
as wide as that time's uncertainty and the count's.
"""

from __future__ import annotations

import calendar
import re
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path

from medeventgraph.model.occurrence import GRANULARITY_SPAN, EventTime, Granularity

from .dates import TimeMention
from .temporal_rules import TemporalRule, load_temporal_rules

__all__ = ["Anchors", "TimeFinder", "header_anchors", "stated_age"]

_FINE = (Granularity.SECOND, Granularity.MINUTE, Granularity.HOUR)
_ABSOLUTE = re.compile(r"\b(?:1[89]|20)\d{2}\b|\d{1,2}/\d{1,2}/\d{2,4}")
# A Duckling span is kept only when it holds a word that says "time": bare numbers ("K 6.1",
# "70s", "2.3") and durations are values, not times.
_CUE = re.compile(
    r"\d{1,4}[/-]\d{1,2}|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b|\bago\b|"
    r"\b(?:yesterday|today|tonight|morning|afternoon|evening|night)\b|\b(?:in|since|during)\s+(?:19|20)\d{2}\b",
    re.IGNORECASE,
)
_UNIT_AFTER = re.compile(r"\s*(?:mg|mcg|ml|units?|%|mmol|meq|g\b|kg|cc)", re.IGNORECASE)
_PREFILTER = re.compile(r"\d|yesterday|today|tonight|tomorrow|morning|afternoon|evening|night|ago|admission|arrival|"
                        r"discharge|past|last|history|other day|hospital day|hospitali[sz]ation|hospital stay|"
                        r"that time|that point|next|following|subsequent|presentation|visit|appointment|later|"
                        r"earlier|prior|previous|preceding|thereafter|before th|after th|day before|POD|post-?op|"
                        r"(?:after|following|of|before|to)\s+(?:(?:his|her|the|this)\s+)?(?:surgery|operation|procedure)|"
                        r"\b(?:in|within)\s+(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                        r"few|couple|about|approximately|around|roughly)\b|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
                        # a count in words of a complaint's units; not "a day", which every dosing sig holds
                        r"\bfor\s+(?:\w+\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|"
                        r"couple|several)\s+(?:hours?|days?|weeks?|months?|years?)|\b(?:one|two|three|four|five|six|"
                        r"seven|eight|nine|ten|eleven|twelve|few|couple|several)[-\s](?:hours?|days?|weeks?|months?)\s+of\b|"
                        # how long a complaint has lasted or how long ago an operation was, counted in words
                        r"\bduration\b|(?:hours?|days?|weeks?|months?|years?)\s+(?:status\s+post|s/p|out\s+from|post\s)",
                        re.IGNORECASE)
_NUMBER_INSIDE = re.compile(r"\b\d+\.\d+\b")
_CLOCK = re.compile(r"\d{1,2}:\d{2}|\d\s*(?:a\.?m\.?|p\.?m\.?)|o'clock|\bhours?\s+ago|\bminutes?\s+ago",
                    re.IGNORECASE)
_PART_WORDS = re.compile(r"\b(?:this|last|yesterday|today|earlier)\b\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Anchors:
    """The times a note's relative expressions can be resolved against (None: not stated)."""

    note: datetime | None = None
    note_granularity: Granularity = Granularity.SECOND
    admission: datetime | None = None
    discharge: datetime | None = None
    surgery: datetime | None = None
    birth: datetime | None = None  # the note date less the age it states: within a year of the birthday

    def of(self, kind: str) -> datetime | None:
        if kind == "note":
            ok = self.note_granularity in (*_FINE, Granularity.DAY)
            return self.note if ok else None
        return {"admission": self.admission, "discharge": self.discharge, "surgery": self.surgery,
                "birth": self.birth}.get(kind)


def _day(d: datetime) -> datetime:
    d = d if d.tzinfo else d.replace(tzinfo=UTC)
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _at(start: datetime, granularity: Granularity) -> EventTime:
    return EventTime(start=start, granularity=granularity)


class TimeFinder:
    """Finds and resolves time expressions in sentences; build once (it starts Duckling)."""

    def __init__(self, zoneinfo: Path = Path("/usr/share/zoneinfo")) -> None:
        import duckling  # pyduckling-native-phihos

        duckling.init()  # idempotent; starts the Haskell runtime the parser runs in
        self._duckling = duckling
        lang = duckling.parse_lang("EN")
        self._locale = duckling.parse_locale("EN_US", duckling.default_locale_lang(lang))
        self._zones = duckling.load_time_zones(str(zoneinfo))
        self._dims = duckling.parse_dimensions(["time"])
        self._rules = load_temporal_rules()
        self._ahead = frozenset(r.id for r in self._rules.rules if r.shift == "ahead")
        self._lock = threading.Lock()
        self.find_all = lru_cache(maxsize=8192)(self._find)
        # What the clinical rules match depends on the sentence alone, and one sentence is read
        # under many anchors and previous times (every note of a template repeats it; a sentence
        # is read again as the passage before each later one): scanned once per text.
        self._rule_matches = lru_cache(maxsize=8192)(self._scan)
        # A note's header dates, per text: a DiagnosticReport repeating its DocumentReference's text
        # comes next to it, and the header patterns search the whole text. Few kept: keys are notes.
        self._headers = lru_cache(maxsize=16)(self._header_items)

    def warm(self) -> None:
        """Parse one sentence, outside the cache: Duckling's first parse pays its own set-up, which
        a service pays at start-up rather than in its first request."""
        self._find("Seen 2 days ago, on 03/04/2020.", Anchors(note=datetime(2020, 3, 5, tzinfo=UTC)))

    def _header_items(self, text: str) -> tuple[tuple[str, datetime], ...]:
        return tuple(_header_anchors(text, self).items())

    # -- public --------------------------------------------------------------------------------
    def find(self, sentence: str, anchors: Anchors, previous: TimeMention | None = None) -> tuple[TimeMention, ...]:
        """Every time of `sentence` that dates what it tells, in text order, without overlaps."""
        return tuple(t for t in self.find_all(sentence, anchors, previous) if not t.planned)

    def plans(self, sentence: str, anchors: Anchors, previous: TimeMention | None = None) -> tuple[TimeMention, ...]:
        """The times ahead of the note a sentence states as such ("in 2 weeks", "tomorrow")."""
        return tuple(t for t in self.find_all(sentence, anchors, previous) if t.planned)

    def _find(self, sentence: str, anchors: Anchors, previous: TimeMention | None = None) -> tuple[TimeMention, ...]:
        """Every resolvable time of `sentence`, in text order, without overlaps."""
        if not _PREFILTER.search(sentence):
            return ()
        try:
            return self._resolve(sentence, anchors, previous)
        except (OverflowError, ValueError):
            # A time the calendar cannot hold (a note dated in year 1 saying "yesterday"): no time,
            # as with no anchor; the rest of the note is read as usual.
            return ()

    def _scan(self, sentence: str) -> tuple[tuple[TemporalRule, tuple[re.Match[str], ...]], ...]:
        """Each rule with its matches in `sentence`, in rule order; rules without one left out."""
        out = []
        for rule in self._rules.rules:
            if rule.requires is not None and not rule.requires.search(sentence):
                continue
            matches = tuple(m for m in rule.pattern.finditer(sentence)
                            if rule.lead is None or _led(rule.lead, sentence, m.start()))
            if matches:
                out.append((rule, matches))
        return tuple(out)

    def _resolve(self, sentence: str, anchors: Anchors, previous: TimeMention | None) -> tuple[TimeMention, ...]:
        found: list[TimeMention] = []
        for rule, matches in self._rule_matches(sentence):
            for m in matches:
                prior = _latest(found, before=m.start()) or previous
                t = self._rule_time(rule, m, anchors, prior)
                if t is not None:
                    found.append(t)
        taken = [(t.start, t.end) for t in found]
        for t in self._general(sentence, anchors, _latest(found, stated=True) or previous):
            if not any(t.start < e and s < t.end for s, e in taken):
                found.append(t)
        # "At that time" can point at a date the general resolver read earlier in the sentence.
        found = [self._refer(t, found, previous) if t.anchor == "previous-pending" else t for t in found]
        # Past the note's own day is a plan: kept (as planned) only where a rule reads the time as
        # ahead by its own words ("in 2 weeks"); a date Duckling put ahead may be a past one told
        # without its year, so it is dropped.
        found = [replace(t, planned=True) if t.rule_id in self._ahead else t for t in found
                 if t.time.resolved and (t.rule_id in self._ahead or not _after_note(t, anchors))]
        found.sort(key=lambda t: (t.start, -(t.end - t.start)))
        kept: list[TimeMention] = []
        for t in found:
            if not kept or t.start >= kept[-1].end:
                kept.append(t)
        return tuple(kept)

    # -- clinical rules -------------------------------------------------------------------------
    def _rule_time(self, rule: TemporalRule, m: re.Match[str], anchors: Anchors,
                   previous: TimeMention | None) -> TimeMention | None:
        groups = m.groupdict()
        text = m.group(0)
        part = _part(groups.get("part") or groups.get("part2"))
        if rule.anchor == "previous":
            pending = TimeMention(m.start(), m.end(), text, EventTime(start=None), part, "previous-pending",
                                  rule_id=rule.id)
            return pending if previous is None else self._from_previous(pending, rule, previous)
        base = _stated_day(groups, anchors) if rule.anchor == "stated" else anchors.of(rule.anchor)
        if base is None:
            return None
        day = _day(base)
        n = self._rules.number(groups.get("n") or groups.get("ord") or groups.get("ord2"))
        if n is None and "n" in groups and groups.get("unit"):
            n = 1  # a count the pattern leaves out: "over the past week"
        unit = (groups.get("unit") or "day").lower().rstrip("s")
        approximate = rule.approximate or _vague(m)
        time: EventTime | None
        if rule.shift == "ordinal_day_from_first" and n:
            time = _at(day + timedelta(days=n - 1), Granularity.DAY)
        elif rule.shift == "days_after" and n is not None:
            time = _at(day + timedelta(days=n), Granularity.DAY)
        elif rule.shift == "same_day":
            time = _at(day, Granularity.DAY)
        elif rule.shift == "day_before":
            time = _at(day - timedelta(days=1), Granularity.DAY)
        elif rule.shift == "before" and n:
            n2 = self._rules.number(groups.get("n2"))
            time = _before(base, n, n2, unit, approximate)
        elif rule.shift == "ahead":
            if _PAST_BEFORE.search(m.string, _clause_start(m.string, m.start()), m.start()):
                return None  # "it resolved in 2 days": a past course, not a plan
            n2 = self._rules.number(groups.get("n2")) or n or 1
            time = _shifted((day, day + timedelta(days=1)), n or 1, n2, unit, True, approximate)
        elif rule.shift == "age" and n is not None and n <= 120:
            time = _at(datetime(base.year + n, 1, 1, tzinfo=UTC), Granularity.YEAR)
            approximate = True
        elif rule.shift == "year_part":  # "early 2019", "the spring of 2018": somewhere in that calendar year
            year = datetime(int(groups["year"]), 1, 1, tzinfo=UTC)
            return TimeMention(m.start(), m.end(), text, _at(year, Granularity.YEAR), None, "stated", False, rule.id)
        elif rule.shift == "month_of_year":
            time = _month_of_year(int(groups["month"]), int(groups["year"]), day)
            if time is not None:  # a calendar month the text states: the note's date only picks the century
                return TimeMention(m.start(), m.end(), text, time, None, "stated", False, rule.id)
        else:
            time = None
        if time is None:
            return None
        return TimeMention(m.start(), m.end(), text, time, part, rule.anchor, approximate or unit == "week", rule.id)

    def _refer(self, pending: TimeMention, found: list[TimeMention], previous: TimeMention | None) -> TimeMention:
        prior = _latest(found, before=pending.start) or previous
        if prior is None:
            return pending
        rule = next(r for r in self._rules.rules if r.id == pending.rule_id)
        return self._from_previous(pending, rule, prior) or pending

    def _from_previous(self, pending: TimeMention, rule: TemporalRule, previous: TimeMention) -> TimeMention | None:
        prior = previous.time
        window = prior.start_window()
        if window is None:
            return None
        approximate = previous.approximate
        if rule.shift == "next_day" or rule.shift == "previous_day":
            if prior.granularity not in (*_FINE, Granularity.DAY):
                return None
            step = 1 if rule.shift == "next_day" else -1
            time = _at(_day(window[0]) + timedelta(days=step), Granularity.DAY)
        elif rule.shift in ("later", "earlier"):
            m = rule.pattern.match(pending.text)
            if m is None:
                return None
            groups = m.groupdict()
            n = self._rules.number(groups.get("n")) or 1
            n2 = self._rules.number(groups.get("n2")) or n
            unit = groups["unit"].lower().rstrip("s")
            # a count left out ("the following week") or of weeks ("3 weeks ago") is told loosely
            vague = _vague(m) or groups.get("n") is None or unit == "week"
            time = _shifted(window, n, n2, unit, rule.shift == "later", vague)
            approximate = approximate or vague
        else:
            time = prior
        if time is None:
            return None
        return replace(pending, time=time, anchor="previous", approximate=approximate)

    # -- Duckling -------------------------------------------------------------------------------
    def _general(self, sentence: str, anchors: Anchors, previous: TimeMention | None = None) -> list[TimeMention]:
        masked = _NUMBER_INSIDE.sub(lambda m: " " * len(m.group(0)), sentence)
        if not _CUE.search(sentence) and not _CUE.search(masked):
            # Every span Duckling reads is dropped below unless it holds a time word: a sentence
            # without one is not worth the parse (most sentences with a number hold none).
            return []
        note = anchors.of("note")
        reference = note or datetime(2000, 1, 1, tzinfo=UTC)
        d = self._duckling
        with self._lock:
            ref = d.parse_ref_time(self._zones, "UTC", int(reference.timestamp()))
            context = d.Context(ref, self._locale)
            results = d.parse(sentence, context, self._dims, False)
            # "creatinine of 1.8 in May 2006" reads "8 in May 2006": blank decimal values
            # (offsets kept) and read the sentence again.
            if masked != sentence and any(_starts_in_number(sentence, int(r["start"])) for r in results):
                results = d.parse(masked, context, self._dims, False)
        out = []
        for r in results:
            start, end, body = int(r["start"]), int(r["end"]), str(r["body"])
            if _starts_in_number(sentence, start):
                continue
            if not _CUE.search(body) or _UNIT_AFTER.match(sentence, end):
                continue
            if sentence.strip(" ,.:;") == body.strip(" ,.:;") and _ABSOLUTE.search(body):
                continue  # a bare date line (a header stamp) dates the note, not an event
            absolute = bool(_ABSOLUTE.search(body))
            # Duckling gives "two days ago" an hour grain: keep hours only where the text states a clock time
            fine = _CLOCK.search(body) is not None and (absolute or anchors.note_granularity in _FINE)
            time = _duckling_time(r["value"], fine_anchor=fine)
            if time is None or (not absolute and note is None):
                continue
            if previous is not None and previous.anchor == "stated" and _YEARLESS.search(body) \
                    and not _AHEAD.search(body) and not absolute:
                time = _nearest_year(time, previous.time)
            elif _YEARLESS.search(body) and not _AHEAD.search(body) and not absolute \
                    and _TOLD_PAST.search(sentence) and not _PLANS.search(sentence):
                time = _year_before(time, note)
            part = next((p for p in ("morning", "afternoon", "evening", "night") if p in body.lower()), None)
            out.append(TimeMention(start, end, body, time, part, "stated" if absolute else "note"))
        return out


# A date written without its year ("on 12/28", "on March 3") after a passage that stated a full
# date ("On 12/22/08 ...") is in that date's year, or the one next to it nearest it: Duckling takes
# the next instance after the note's own date, which in a note written years later is a plan.
_YEARLESS = re.compile(r"\b\d{1,2}/\d{1,2}\b(?!/)|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
                       re.IGNORECASE)
_AHEAD = re.compile(r"\b(?:next|coming|upcoming|following|tomorrow)\b", re.IGNORECASE)


# A clause told in the past ("she received vancomycin on 3/1") with a date past the note's day and
# no year: the latest such day before the note, last year's, not a plan (none of _PLANS' words).
_TOLD_PAST = re.compile(r"\b(?:was|were|had|did|underwent|received|developed|became|began|went|came|took|"
                        r"gave|got|fell|saw|[a-z]{3,}ed)\b", re.IGNORECASE)
_PLANS = re.compile(r"\b(?:will|would|shall|plan(?:s|ned)?|scheduled|follow(?:\s|-)?up|return|appointment|"
                    r"due|expected|anticipated|next|to\s+(?:be|have|start|undergo|see|return))\b", re.IGNORECASE)


def _year_before(time: EventTime, note: datetime | None) -> EventTime:
    """The same month and day a year earlier, where the general resolver put it past the note's day."""
    start = time.start
    if start is None or note is None or time.granularity is not Granularity.DAY or start < _day(note) + timedelta(days=1):
        return time
    try:
        return replace(time, start=start.replace(year=start.year - 1))
    except ValueError:  # 29 February
        return time


def _nearest_year(time: EventTime, told: EventTime) -> EventTime:
    """The same month and day in the year nearest the date the passage last stated."""
    start, near = time.start, told.start
    if start is None or near is None or time.granularity is not Granularity.DAY:
        return time
    options = []
    for year in (near.year - 1, near.year, near.year + 1):
        try:
            options.append(start.replace(year=year))
        except ValueError:  # 29 February
            continue
    return replace(time, start=min(options, key=lambda d: abs(d - near))) if options else time


def _starts_in_number(sentence: str, start: int) -> bool:
    return start > 0 and (sentence[start - 1].isdigit() or sentence[start - 1] == ".")


def _part(text: str | None) -> str | None:
    """"early this morning" -> "early morning"; "last night" -> "night"; "earlier today" -> None."""
    if not text:
        return None
    return " ".join(_PART_WORDS.sub("", text.lower()).split()) or None


def _duckling_time(value: dict, *, fine_anchor: bool) -> EventTime | None:
    v = value.get("value")
    grain = value.get("grain")
    if v is None and value.get("type") == "interval":
        frm = value.get("from") or value.get("to") or {}
        v, grain = frm.get("value"), "day"  # parts of the day: keep the day
    if not isinstance(v, str):
        return None
    start = datetime.fromisoformat(v).astimezone(UTC)
    if grain in ("hour", "minute", "second") and not fine_anchor:
        grain = "day"
    if grain == "day" or grain == "week":  # Duckling's week grain starts on a Monday: keep the day
        return _at(_day(start), Granularity.DAY)
    if grain in ("hour", "minute"):
        return _at(start, Granularity(grain))
    if grain == "month":
        return _at(datetime(start.year, start.month, 1, tzinfo=UTC), Granularity.MONTH)
    if grain == "year":
        return _at(datetime(start.year, 1, 1, tzinfo=UTC), Granularity.YEAR)
    return None


def _stated_day(groups: dict, anchors: Anchors) -> datetime | None:
    """The month/day/year a rule's match writes ("3/11/96"); a two-digit year in the latest century
    that does not put it after the note (or 19xx/20xx by itself without a note date)."""
    try:
        year, month, day = int(groups["year"]), int(groups["month"]), int(groups["dom"])
        if year < 100:
            note = anchors.of("note")
            latest = note.year if note is not None else 2099
            year = latest - latest % 100 + year if latest - latest % 100 + year <= latest else latest - latest % 100 - 100 + year
        return datetime(year, month, day, tzinfo=UTC)
    except (KeyError, TypeError, ValueError):
        return None


def _month_of_year(month: int, year: int, note_day: datetime) -> EventTime | None:
    """"in 04/02": April 2002, in the latest century that does not put it after the note."""
    if not 1 <= month <= 12:
        return None
    century = note_day.year - note_day.year % 100
    full = century + year if century + year <= note_day.year else century - 100 + year
    return _at(datetime(full, month, 1, tzinfo=UTC), Granularity.MONTH)


def _before(anchor: datetime, n: int, n2: int | None, unit: str, approximate: bool) -> EventTime | None:
    """`n` (or `n`-`n2`) units before `anchor`; weeks and approximate counts become ranges."""
    day = _day(anchor)
    if unit == "hour":  # counted from the anchor's own hour: "12 hours prior to arrival" at 8 am is the day before
        slack = timedelta(hours=2 if approximate else 0)
        lo, hi = _day(anchor - timedelta(hours=n2 or n) - slack), _day(anchor - timedelta(hours=n) + slack)
        return _at(lo, Granularity.DAY if lo == hi else Granularity.WEEK)
    if unit == "year":
        return _at(datetime(day.year - n, 1, 1, tzinfo=UTC), Granularity.YEAR)
    if unit == "month":
        total = day.year * 12 + day.month - 1 - n
        return _at(datetime(total // 12, total % 12 + 1, 1, tzinfo=UTC), Granularity.MONTH)
    days = {"day": 1, "week": 7}.get(unit)
    if days is None:
        return None
    lo, hi = day - timedelta(days=days * (n2 or n)), day - timedelta(days=days * n)
    if unit == "day" and not approximate and n2 is None:
        return _at(lo, Granularity.DAY)
    half = timedelta(days=3) if unit == "week" else timedelta(days=1)
    lo, hi = lo - half, hi + half  # "about 3 weeks ago": the window holds the stated range
    width = (hi - lo).days
    granularity = Granularity.DAY if width <= 1 else Granularity.WEEK if width <= 7 else Granularity.MONTH
    # the range itself, not the unit's span from `lo`: "for the past 2 days" would otherwise reach
    # into the note's own day and order nothing against what happened there
    return EventTime(start=lo, granularity=granularity, width=hi - lo)


# How long a unit is (months and years are counted on the calendar), the finest granularity a
# count of it is told at ("two months later" is a month, not a day), and how far a vague or
# approximate count ("a few days later", "about 2 weeks earlier") may stray either way.
_UNITS = {"hour": (timedelta(hours=1), Granularity.DAY, timedelta(0)),
          "day": (timedelta(days=1), Granularity.DAY, timedelta(days=1)),
          "week": (timedelta(days=7), Granularity.WEEK, timedelta(days=3)),
          "month": (None, Granularity.MONTH, timedelta(days=15)),
          "year": (None, Granularity.YEAR, timedelta(days=182))}
_COARSER = (Granularity.DAY, Granularity.WEEK, Granularity.MONTH, Granularity.YEAR)


# A finite past or perfect verb before a time "in N days" in its clause: a course told, not a plan
# ("she improved in 2 days", "has lost 10 pounds in 3 months"). Verbs of planning are no such verb.
_PAST_BEFORE = re.compile(r"\b(?:was|were|had|has|have|did)\b|\b(?!(?:scheduled|planned|recommended|advised|"
                          r"instructed|asked|arranged|booked|requested|ordered|needed|followed)\b)\w{3,}ed\b",
                          re.IGNORECASE)
_CLAUSE_MARK = re.compile(r"[,;:]|\band\b|\bbut\b", re.IGNORECASE)


def _clause_start(sentence: str, before: int) -> int:
    marks = list(_CLAUSE_MARK.finditer(sentence, 0, before))
    return marks[-1].end() if marks else 0


def _led(lead: re.Pattern[str], sentence: str, at: int) -> bool:
    """Does `lead` govern the time at `at`: its last match before it in the sentence part (up to a
    ';' or ':'), with no verb of another clause between ("has had dyspnea for 2 months and edema
    for 2 weeks": both; "has had diabetes and was treated with insulin for 2 years": not the
    course)?"""
    part = max(sentence.rfind(";", 0, at), sentence.rfind(":", 0, at)) + 1
    leads = [m.end() for m in lead.finditer(sentence, part, at)]
    return bool(leads) and _PAST_BEFORE.search(sentence, leads[-1], at) is None


def _vague(m: re.Match[str]) -> bool:
    """A count told loosely ("a few", "several", "about 2"): a range, not a day."""
    n = (m.groupdict().get("n") or "").lower()
    return n in ("couple", "few", "several", "other") or _ABOUT.match(m.group(0)) is not None


_ABOUT = re.compile(r"(?:approximately|about|around|roughly)\b", re.IGNORECASE)


def _shifted(window: tuple[datetime, datetime], n: int, n2: int, unit: str, later: bool,
             vague: bool) -> EventTime | None:
    """The window `n` (to `n2`) units after (or before) the previous time's window: as wide as
    the previous time's own uncertainty and the count's, or no time where that is wider than a year."""
    if unit not in _UNITS:
        return None
    length, finest, slack = _UNITS[unit]
    lo, hi = window
    first, last = (n, n2) if later else (-n2, -n)
    if length is None:
        months = 12 if unit == "year" else 1
        lo, hi = _add_months(lo, first * months), _add_months(hi, last * months)
    else:
        lo, hi = lo + length * first, hi + length * last
    if vague:
        lo, hi = lo - slack, hi + slack
    for granularity in _COARSER[_COARSER.index(finest):]:
        start = _calendar_start(lo, granularity)
        if granularity is Granularity.DAY and lo != start:
            continue
        if hi - start <= GRANULARITY_SPAN[granularity]:
            return _at(start, granularity)
    return None


def _calendar_start(d: datetime, granularity: Granularity) -> datetime:
    """The start of the calendar day, month or year holding `d`; a week starts where it is."""
    if granularity is Granularity.MONTH:
        return datetime(d.year, d.month, 1, tzinfo=UTC)
    if granularity is Granularity.YEAR:
        return datetime(d.year, 1, 1, tzinfo=UTC)
    return _day(d) if granularity is Granularity.DAY else d


def _add_months(d: datetime, months: int) -> datetime:
    total = d.year * 12 + d.month - 1 + months
    year, month = divmod(total, 12)
    return d.replace(year=year, month=month + 1, day=min(d.day, calendar.monthrange(year, month + 1)[1]))


def _latest(found: list[TimeMention], *, before: int | None = None, stated: bool = False) -> TimeMention | None:
    """The resolved time told last (ending by `before`; only a stated date if `stated`)."""
    kept = [t for t in found if t.time.resolved and (before is None or t.end <= before)
            and (not stated or t.anchor == "stated")]
    return max(kept, key=lambda t: t.end) if kept else None


def _after_note(t: TimeMention, anchors: Anchors) -> bool:
    if anchors.note is None or t.time.start is None:
        return False
    return t.time.start >= _day(anchors.note) + timedelta(days=1)


def stated_age(text: str) -> int | None:
    """The age the note states first ("This is a 56-year-old female"), taken as the patient's."""
    pattern = load_temporal_rules().stated_age
    m = pattern.search(text) if pattern is not None else None
    return int(m.group("n")) if m is not None and int(m.group("n")) <= 120 else None


def header_anchors(text: str, finder: TimeFinder) -> dict[str, datetime]:
    """Anchor dates a note states in its headers ("ADMISSION DATE: 04/02/2007")."""
    return dict(finder._headers(text))


def _header_anchors(text: str, finder: TimeFinder) -> dict[str, datetime]:
    out: dict[str, datetime] = {}
    for rule in load_temporal_rules().headers:
        m = rule.pattern.search(text)
        if m is None:
            continue
        window = text[m.end(): m.end() + 40]
        for t in finder.find("seen on " + window, Anchors()):
            if t.start == 5 and t.time.granularity is Granularity.DAY and t.time.start is not None:
                out[rule.anchor] = t.time.start
                break
    return out
