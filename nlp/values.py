"""Values stated in note text: "creatinine 2.3", "K 6.1", "Cr rose from 1.0 to 2.1", "SBP in the 70s",
"BP 80/40" (systolic 80 and diastolic 40), "lactate of 4", "potassium was 6.1 mmol/L" -> `ValueFind`s
with the exact characters.

A spaCy component (`medeventgraph_values`) reads them sentence by sentence with bounded regular
expressions (linear in the note) from the analyte table (resources/analytes.json): an alias, a
short gap, then a number, a decade ("in the 70s") or a reading ("80/40"), and the unit written
after it or the analyte's default. A number is no measurement when its clause states a goal or
a condition ("goal K > 4", "if Cr rises above 2"), when a limit word sits between the analyte and
the number ("systolic greater than 160", "normal 0.6-1.2"), when a dose unit follows it
("potassium 10 mEq daily"), when it is a date or a time, a range, or outside the unit's
plausible range. Assertions (negated, historical, ...) and times are settled later, from the
note's ConText cues and time expressions, as for every other mention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy
from spacy.attrs import LOWER
from spacy.language import Language
from spacy.tokens import Doc

from .analytes import Alias, Analyte, AnalyteTable, UnitSpec, load_analytes
from .doc_text import doc_text

__all__ = ["ValueFind", "add_value_finder", "doc_values", "find_values"]

_EXTENSION = "meg_values"
_GAP_CHARS = 45  # analyte to value: "creatinine on admission to the hospital was 0.9" fits
_GAP_WORDS = 7
# "20,000": thousands grouped by commas (exactly three digits after each comma) are one number.
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?![\d,])|\d{1,4}(?:\.\d{1,3})?|\.\d{1,3})(?![\d])")
_DATE_OR_TIME = re.compile(
    r"(?<![\w.])(?:\d{1,4}[/-]\d{1,2}(?:[/-]\d{2,4})?|\d{1,2}:\d{2}(?::\d{2})?|\d{4}\s*(?:hours|hrs|h)\b)"
    # a month and year ("in November 2003") before a month and day ("March 3, 2019")
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+(?:19|20)\d{2}(?!\d)"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?!\d)"
    r"(?:,?\s+\d{4})?"
    r"|\b(?:in|since|of|from)\s+(?:19|20)\d{2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    # a duration ("over the past 24 hours is 102.1"): the value is the number after it
    r"|(?:\b(?:over|in|during|within|for)\s+the\s+(?:past|last|previous|prior)\s+)?"
    r"(?<![\w.])\d{1,3}\s*(?:hours?|hrs?|days?|weeks?|months?|years?|minutes?)\b",
    re.IGNORECASE,
)
_DECADE = re.compile(r"(?:the\s+)?(?:(?P<q>low|lower|mid|middle|high|upper)[\s-]+)?(?P<dec>[1-9]0|[12][1-9]0)'?s\b",
                     re.IGNORECASE)
_READING = re.compile(r"(?P<s>\d{2,3})\s*/\s*(?P<d>\d{2,3})(?![\d/])")
_POSTFIX_DECADE = re.compile(
    r"\b(?:in|into|to)\s+the\s+(?:(?P<q>low|lower|mid|middle|high|upper)[\s-]+)?(?P<dec>[1-9]0|[12][1-9]0)'?s\s+"
    r"(?P<alias>systolic|sbp)\b(?!\s+(?:ejection|murmur|function))",
    re.IGNORECASE,
)
# "a 104.4 degrees Fahrenheit temperature", "a 102-degree fever": the reading before what it measures
_POSTFIX_DEGREES = re.compile(
    r"(?<![\w.])(?P<num>\d{2,3}(?:\.\d{1,2})?)\s*-?\s*(?:degrees?|deg|°)(?:\s*(?P<unit>fahrenheit|celsius|f|c)\b)?"
    r"\s+(?P<alias>temperature|temp|fever)\b",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
_STATED_NORMAL = re.compile(r"\b(?:within\s+)?normal(?:\s+limits|\s+range)?\s+at\s*$", re.IGNORECASE)
_REACH = 60  # an alias with no digit this near (after it, or before it: "in the 60s systolic") states no value
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]]|\bbut\b|\bwhich\b|\band\b", re.IGNORECASE)
_QUARTERS = {None: (0, 9), "low": (0, 3), "lower": (0, 3), "mid": (3, 7), "middle": (3, 7), "high": (7, 9), "upper": (7, 9)}


@dataclass(frozen=True, slots=True)
class ValueFind:
    """One stated value at characters [start, end) of the note (alias through number and unit)."""

    start: int
    end: int
    analyte: str  # analyte id in the table
    quantity: float | None  # None: a stated range only ("in the 70s": low 70, high 79)
    low: float | None
    high: float | None
    unit: str
    unit_stated: bool
    text: str  # the value as written: "6.1", "in the 70s", "80/40"
    series: int = 0  # values of one stated change or range share a series number (>0)
    time_rank: int = 0  # a stated change's values in time order (0 = earliest)
    change: bool = False  # the series states a change over time ("rose from 1.0 to 2.1")
    within_hours: float | None = None  # the interval a stated change's sentence bounds it to
    timed: bool = False  # the series lists values with a time written between them: each has its own


@lru_cache(maxsize=64)
def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for a word list, longest first; a word starting with a letter or digit must
    stand alone ("range" is not in "ranges"), a symbol ("<") need not."""
    parts = [rf"(?<!\w){re.escape(w)}(?!\w)" if w[0].isalnum() else re.escape(w)
             for w in sorted(words, key=len, reverse=True)]
    return re.compile("|".join(parts) or "(?!)")


def _has_word(text: str, words: tuple[str, ...]) -> str | None:
    m = _words_pattern(words).search(" ".join(text.lower().split()))
    return m.group() if m else None


def _quantity(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass(frozen=True, slots=True)
class _Raw:
    start: int  # value start in the sentence
    end: int  # value (and unit) end
    quantity: float | None
    low: float | None
    high: float | None
    unit: UnitSpec
    unit_stated: bool
    text: str
    diastolic: tuple[int, int, float] | None = None  # a reading's diastolic digits (start, end) and value


class _SentenceReader:
    def __init__(self, table: AnalyteTable, sentence: str) -> None:
        self.table = table
        self.text = sentence
        self.masked = _DATE_OR_TIME.sub(lambda m: " " * len(m.group()), sentence)
        self.aliases = [(m.start(), m.end()) for m in table.alias_pattern.finditer(sentence)]

    def _alias_between(self, start: int, end: int) -> bool:
        return any(start <= s and e <= end for s, e in self.aliases)

    def _unit_after(self, analyte: Analyte, pos: int) -> tuple[UnitSpec, bool, int] | None:
        """(unit, stated, end) after a number; None when a dose or count unit follows it."""
        rest = self.text[pos:pos + 24]
        m = re.match(r"\s*([^\s,;()\[\]]+(?:\s+(?:hg|per\s+\w+))?)", rest)
        if m:
            written = m.group(1).rstrip(".")
            for spec in analyte.units:
                for alias in sorted((spec.unit.lower(), *spec.aliases), key=len, reverse=True):
                    if re.match(rf"\s*{re.escape(alias)}(?![\w/])", rest, re.IGNORECASE):
                        length = re.match(rf"\s*{re.escape(alias)}", rest, re.IGNORECASE).end()  # type: ignore[union-attr]
                        return spec, True, pos + length
            first = re.match(r"[^\w%]*([\w%.]+)", rest[:m.end()])
            if (first and first.group(1).lower().rstrip(".") in self.table.not_a_measurement.dose_after) or \
                    written.startswith("%"):
                return None
        return analyte.default_unit, False, pos

    def value_at(self, analyte: Analyte, alias: Alias, digit: int, start: int) -> _Raw | None:
        """The value whose digits start at `digit` (a decade may start earlier, at "the low"), if
        it is a plausible measurement."""
        m = _DECADE.match(self.text, start)
        if m and m.end() > digit and self.text[m.end():m.end() + 1] not in ("-", "/") or (
                m and analyte.reading and m.end() > digit):
            low_off, high_off = _QUARTERS[(m.group("q") or "").lower() or None]
            base = int(m.group("dec"))
            low, high = float(base + low_off), float(base + high_off)
            unit = analyte.default_unit
            if unit.plausible(low) and unit.plausible(high):
                return _Raw(start, m.end(), None, low, high, unit, False, m.group())
            return None
        if analyte.reading:
            r = _READING.match(self.text, digit)
            if r is None:
                return None  # a bare number after "blood pressure" may be a mean pressure
            s, d = int(r.group("s")), int(r.group("d"))
            unit, stated, end = self._unit_after(analyte, r.end()) or (analyte.default_unit, False, r.end())
            if s > d and unit.plausible(s) and 15 <= d <= 200:
                return _Raw(digit, end, float(s), None, None, unit, stated, self.text[digit:end],
                            (r.start("d"), r.end("d"), float(d)))
            return None
        n = _NUMBER.match(self.text, digit)
        if n is None or self.masked[n.start():n.end()] != n.group():
            return None
        after = self.text[n.end():n.end() + 3]
        if re.match(r"\s?[-\u2013]\s?\d|/\d", after) or (re.match(r"\s?%", after) and not analyte.in_percent):
            return None  # a range ("0.6-1.2"), a fraction or a percentage (unless the analyte is one: "SpO2 88%")
        found = self._unit_after(analyte, n.end())
        if found is None:
            return None
        unit, stated, end = found
        if alias.strict and "." not in n.group() and not stated:
            return None
        value = _quantity(n.group())
        if not stated:
            unit = analyte.bare_unit(value) or unit
        if not unit.plausible(value):
            return None
        return _Raw(digit, end, value, None, None, unit, stated, self.text[digit:end])

    def first_value(self, analyte: Analyte, alias: Alias, alias_end: int) -> _Raw | None:
        """The first value in the short gap after the alias (dates and times skipped); None when
        the gap breaks the clause, names another analyte, or states a limit or an intent."""
        # A reading ("80/40") looks like a date to the mask; a date is no plausible reading.
        # a date in the gap ("glucose in November 2003 was 94") counts as one word, not its characters
        reach = alias_end + _GAP_CHARS
        reach += sum(a != b for a, b in zip(self.text[alias_end:reach], self.masked[alias_end:reach], strict=True))
        window = (self.text if analyte.reading else self.masked)[alias_end:reach]
        m = re.search(r"[\d,;()\[\]]", window)
        if m is None or not m.group().isdigit():
            return None
        digit = alias_end + m.start()
        gap = self.text[alias_end:digit]
        if len(self.masked[alias_end:digit].split()) > _GAP_WORDS or self._alias_between(alias_end, digit):
            return None
        words = self.table.not_a_measurement
        # "was within normal limits at 94" states the value, and that it is normal: no limit
        stated_normal = _STATED_NORMAL.search(gap) is not None
        if (not stated_normal and _has_word(self.masked[alias_end:digit], words.limit)) or _has_word(gap, words.intent):
            return None
        lead = re.search(r"(?:the\s+)?(?:(?:low|lower|mid|middle|high|upper)[\s-]+)?$", gap, re.IGNORECASE)
        start = alias_end + lead.start() if lead else digit
        return self.value_at(analyte, alias, digit, start)

    def follow(self, analyte: Analyte, alias: Alias, raw: _Raw, forward: bool) -> tuple[_Raw, bool] | None:
        """The next value of a series: "to Y" after "from X", or "from Y" after X (reverse); or,
        after a time written between them, the next value of a list ("17.3 yesterday 26.9 on
        admission"). With it, whether it was a list's (True: its own time orders it)."""
        tail = self.text[raw.end:raw.end + 40]
        cue = (r"\s*(?:to|->|\u2192)\s+(?:about\s+|like\s+about\s+|approximately\s+)?" if forward else
               r"\s*[,;]?\s*(?:(?:(?:this|which|it)\s+(?:is|was|has|has\s+(?:come|gone))\s+)?"
               r"(?:up|down|increased|decreased|improved|worsened|rising|falling)\s+)?from\s+")
        m = re.match(cue, tail, re.IGNORECASE)
        if m is None:
            return self.told_later(analyte, alias, raw) if forward else self._listed(analyte, alias, raw.end, tail)
        digit = raw.end + m.end()
        if digit >= len(self.text) or not (self.text[digit].isdigit() or self.text[digit:digit + 4].lower() == "the "):
            return None
        lead = re.match(r"the\s+(?:(?:low|lower|mid|middle|high|upper)[\s-]+)?", self.text[digit:], re.IGNORECASE)
        first_digit = digit + (lead.end() if lead else 0)
        found = self.value_at(analyte, alias, first_digit, digit)
        return (found, False) if found is not None else None

    def told_later(self, analyte: Analyte, alias: Alias, raw: _Raw) -> tuple[_Raw, bool] | None:
        """The next value told as a later one ("1.2 on admission and peaked at 3.4")."""
        found = self.table.change_words.next_later.match(self.text, raw.end)
        nxt = None if found is None else self.value_at(analyte, alias, found.end(), found.end())
        return None if nxt is None else (nxt, False)

    def _listed(self, analyte: Analyte, alias: Alias, end: int, tail: str) -> tuple[_Raw, bool] | None:
        """The next value of a list of one analyte's values, each with its time: after a time written
        between them ("17.3 yesterday 26.9"), or told in a clause of its own with its time right
        after it ("potassium 3.7, it was 3.1 on admission")."""
        words = self.table.change_words
        found = words.timed_next.match(tail) or _OWN_CLAUSE.match(tail)
        if found is None:
            return None
        nxt = self.value_at(analyte, alias, end + found.end(), end + found.end())
        if nxt is None or (found.re is _OWN_CLAUSE and not words.timed_after.match(self.text, nxt.end)):
            return None
        return nxt, True


# "potassium 3.7, it was 3.1 on admission": the clause tells an earlier value of the same analyte
_OWN_CLAUSE = re.compile(r"\s*[,;]\s*(?:it|which|this)\s+(?:was|had\s+been)\s+(?=\d)", re.IGNORECASE)


def _clause_before(sentence: str, start: int) -> str:
    before = sentence[:start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    return before[breaks[-1].end():] if breaks else before


def _excluded(table: AnalyteTable, analyte: Analyte, alias: Alias, sentence: str, start: int, end: int) -> bool:
    if re.match(r"-[a-z]", sentence[end:end + 2].lower()):
        return True  # "K-Dur", "Cr-51": a word of its own
    after = sentence[end:end + 24].lower().lstrip()
    if any(after.startswith(w) for w in analyte.excluded_after):
        return True
    before = " ".join(sentence[max(0, start - 30):start].lower().split())
    if any(re.search(rf"(?<![\w]){re.escape(w)}\s*$", before) for w in analyte.excluded_before):
        return True
    if alias.strict and re.search(r"\d\s*$", sentence[:start]):
        return True  # "WBC 12 K": a thousand, not potassium
    # "BUN and creatinine are 5 and 0.3": values listed jointly, paired by position.
    joint = re.compile(rf"(?:{table.alias_pattern.pattern})\s+(?:and|&)\s*$", re.IGNORECASE)
    return bool(joint.search(sentence[max(0, start - 40):start])) or bool(
        re.match(rf"\s+(?:and|&)\s+(?:{table.alias_pattern.pattern})", sentence[end:end + 40], re.IGNORECASE))


def _within_hours(table: AnalyteTable, sentence: str) -> float | None:
    hits = [hours for word, hours in table.rise_intervals.words.items() if _has_word(sentence, (word,))]
    return min(hits) if hits else None


def find_values(sentence: str, offset: int = 0, table: AnalyteTable | None = None) -> list[ValueFind]:
    """Every value the sentence states, in text order; offsets are `offset` + sentence position.

    >>> [(v.analyte, v.quantity, v.unit) for v in find_values("Sodium 138, potassium 6.1, BUN 111.")]
    [('potassium', 6.1, 'mmol/L'), ('urea-nitrogen', 111.0, 'mg/dL')]
    >>> [(v.quantity, v.time_rank) for v in find_values("His creatinine has gone from 2.1 to 4.2 overnight.")]
    [(2.1, 0), (4.2, 1)]
    >>> [(v.analyte, v.quantity, v.text) for v in find_values("Blood pressure 90/50 mmHg.")]
    [('blood-pressure', 90.0, '90/50 mmHg'), ('diastolic-blood-pressure', 50.0, '50')]
    """
    table = table or load_analytes()
    if _DIGIT.search(sentence) is None:
        return []
    reader = _SentenceReader(table, sentence)
    out: list[ValueFind] = []
    series = 0
    consumed = 0
    for m in table.alias_pattern.finditer(sentence):
        if m.start() < consumed:
            continue
        found = table.lookup(m.group())
        if found is None:
            continue
        analyte, alias = found
        if _excluded(table, analyte, alias, sentence, m.start(), m.end()):
            continue
        if _has_word(_clause_before(sentence, m.start()), table.not_a_measurement.intent) or \
                _has_word(sentence[:m.start()], table.not_a_measurement.other_specimen):
            continue
        raw = reader.first_value(analyte, alias, m.end())
        if raw is None:
            continue
        gap = " ".join(sentence[m.end():raw.start].lower().split())
        chain = [raw]
        change = gap.endswith("from") and not _has_word(gap, table.change_words.not_a_change)
        readings = _has_word(gap, table.change_words.not_a_change) is not None
        forward = change or readings
        timed = False
        while len(chain) < 4:
            step = reader.follow(analyte, alias, chain[-1], forward)
            if step is None and len(chain) == 1 and not forward:
                step = reader.told_later(analyte, alias, raw)
                forward = change = step is not None  # told in time order: a change, as "from X to Y"
            if step is None:
                break
            chain.append(step[0])
            timed = timed or step[1]
            change = change or not (forward or step[1])
        if len(chain) > 1:
            series += 1
        within = _within_hours(table, sentence) if change and len(chain) > 1 else None
        for i, r in enumerate(chain):
            rank = i if forward else len(chain) - 1 - i
            out.append(ValueFind(offset + m.start(), offset + r.end, analyte.id, r.quantity, r.low, r.high,
                                 r.unit.unit, r.unit_stated, r.text.strip(), series if len(chain) > 1 else 0,
                                 rank if change else 0, change and len(chain) > 1, within, timed))
        if analyte.diastolic is not None:  # "BP 80/40": the diastolic too, cited by its own digits
            out.extend(ValueFind(offset + ds, offset + de, analyte.diastolic, d, None, None, r.unit.unit,
                                 r.unit_stated, sentence[ds:de])
                       for r in chain if r.diastolic is not None for ds, de, d in (r.diastolic,))
        consumed = chain[-1].end
    taken = {(v.start, v.end) for v in out}
    out.extend(_postfix_decades(table, sentence, offset, taken))
    out.extend(_postfix_degrees(table, sentence, offset, taken))
    return sorted(out, key=lambda v: (v.start, v.end))


def _postfix_matches(pattern: re.Pattern[str], table: AnalyteTable, sentence: str):
    """Each reading told before the word naming what it measures, with that analyte; not in a clause
    that says the value is no measurement (a goal or a condition: "goal", "if")."""
    for m in pattern.finditer(sentence):
        found = table.lookup(m.group("alias"))
        if found is not None and not _has_word(_clause_before(sentence, m.start()), table.not_a_measurement.intent):
            yield m, found[0]


def _postfix_decades(table: AnalyteTable, sentence: str, offset: int, taken: set[tuple[int, int]]) -> list[ValueFind]:
    """"dipped down into the 60s systolic": the decade before the analyte."""
    out = []
    for m, analyte in _postfix_matches(_POSTFIX_DECADE, table, sentence):
        low_off, high_off = _QUARTERS[(m.group("q") or "").lower() or None]
        base = int(m.group("dec"))
        unit = analyte.default_unit
        span = (offset + m.start(), offset + m.end())
        if span not in taken and unit.plausible(base + low_off) and unit.plausible(base + high_off):
            out.append(ValueFind(span[0], span[1], analyte.id, None, float(base + low_off), float(base + high_off),
                                 unit.unit, False, sentence[m.start():m.start("alias")].strip()))
    return out


def _postfix_degrees(table: AnalyteTable, sentence: str, offset: int, taken: set[tuple[int, int]]) -> list[ValueFind]:
    """"a 104.4 degrees Fahrenheit temperature": the reading, in degrees, before the word it measures."""
    out = []
    for m, analyte in _postfix_matches(_POSTFIX_DEGREES, table, sentence):
        value = _quantity(m.group("num"))
        written = (m.group("unit") or "").lower()
        unit = next((u for u in analyte.units if written and written in (u.unit.lower(), *u.aliases)), None) \
            or analyte.bare_unit(value)
        span = (offset + m.start(), offset + m.end())
        if unit is not None and unit.plausible(value) and span not in taken:
            out.append(ValueFind(span[0], span[1], analyte.id, value, None, None, unit.unit, bool(written),
                                 sentence[m.start():m.start("alias")].strip()))
    return out


@Language.factory("medeventgraph_values")
def make_value_finder(nlp, name):
    """Reads the values each sentence states into `doc._.meg_values` (a tuple of ValueFind in
    text order). One scan of the note for analyte words with a digit after them; only their
    sentences are read (most sentences name no analyte)."""
    if not Doc.has_extension(_EXTENSION):
        Doc.set_extension(_EXTENSION, default=())
    table = load_analytes()

    first_words = numpy.array(sorted({nlp.vocab.strings.add(w) for w in table.first_words}), dtype=numpy.uint64)

    # A sentence's values, kept per text for this component: notes written from a template, or
    # copied forward, state the same sentences again (1,001 reads of 210 on the Synthea notes),
    # and where a sentence stands only shifts the offsets (`find_values` adds its `offset`).
    @lru_cache(maxsize=4096)
    def sentence_values(sentence: str) -> tuple[ValueFind, ...]:
        return tuple(find_values(sentence, 0, table))

    def find(doc: Doc) -> Doc:
        if not len(doc):
            return doc
        # Tokens that can start an alias, found on the token array (no Python loop over tokens).
        hits = numpy.nonzero(numpy.isin(doc.to_array(LOWER), first_words))[0]
        if not len(hits):
            return doc
        text = doc_text(doc)  # doc.text joins every token again
        sentences: dict[int, int] = {}
        for i in hits.tolist():
            token = doc[i]
            if token.idx < max(sentences.values(), default=-1):
                continue  # in a sentence already taken
            if _DIGIT.search(text, token.idx, token.idx + _REACH) is None and \
                    _DIGIT.search(text, max(0, token.idx - _REACH), token.idx) is None:
                continue
            sent = token.sent
            sentences[sent.start_char] = sent.end_char
        found: list[ValueFind] = []
        for start, end in sorted(sentences.items()):
            found.extend(replace(v, start=v.start + start, end=v.end + start) if start else v
                         for v in sentence_values(text[start:end]))
        doc._.set(_EXTENSION, tuple(found))
        return doc

    return find


def add_value_finder(nlp: Language) -> None:
    nlp.add_pipe("medeventgraph_values")


def doc_values(doc: Doc) -> tuple[ValueFind, ...]:
    return doc._.get(_EXTENSION) if doc.has_extension(_EXTENSION) else ()
