"""A note's time anchors and each sentence's resolved times, read in passage order.

"The next morning", "at that time" and "three days later" refer to the latest time stated before
them in the same passage (this sentence, or the two before it in the same section); nothing further
back, and never across sections.
"""

from __future__ import annotations

from datetime import datetime

from medeventgraph.model.occurrence import EventTime, NoteDocument

from .dates import TimeMention
from .processed import ProcessedNote, SentenceSpan
from .temporal import Anchors, TimeFinder, header_anchors, stated_age

__all__ = ["PASSAGE_SENTENCES", "SentenceTimes", "note_anchors"]

PASSAGE_SENTENCES = 2  # sentences before this one that can hold the time "at that time" means


def note_anchors(document: NoteDocument, text: str, period: EventTime | None, finder: TimeFinder) -> Anchors:
    """The note date, the encounter's admission and discharge, and header-stated dates (which
    win: the note's own words say when the stay began)."""
    date = document.date
    stated = header_anchors(text, finder)
    admission: datetime | None = period.start if period is not None and period.resolved else None
    discharge: datetime | None = period.end if period is not None and period.resolved else None
    note = date.start if date.resolved else None
    age = stated_age(text)
    return Anchors(
        note=note,
        note_granularity=date.granularity,
        admission=stated.get("admission", admission),
        discharge=stated.get("discharge", discharge),
        surgery=stated.get("surgery"),
        birth=_years_before(note, age) if note is not None and age is not None else None,
    )


def _years_before(day: datetime, years: int) -> datetime | None:
    try:
        return day.replace(year=day.year - years, day=28) if (day.month, day.day) == (2, 29) else \
            day.replace(year=day.year - years)
    except ValueError:  # before year 1
        return None


class SentenceTimes:
    """The resolved times of a note's sentences, for one note and its anchors: built once per
    note (the sentence index and each sentence's times are computed once, however many
    mentions the note has)."""

    def __init__(self, processed: ProcessedNote, anchors: Anchors, finder: TimeFinder) -> None:
        self._processed = processed
        self._anchors = anchors
        self._finder = finder
        self._index = {s.start: i for i, s in enumerate(processed.sentences)}
        # per sentence: (the times that date what it tells, the times ahead of the note it states)
        self._times: dict[int, tuple[tuple[TimeMention, ...], tuple[TimeMention, ...]]] = {}

    def __call__(self, sentence: SentenceSpan) -> tuple[TimeMention, ...]:
        """The times that date what the sentence tells."""
        return self._split(sentence)[0]

    def plans(self, sentence: SentenceSpan) -> tuple[TimeMention, ...]:
        """The times ahead of the note the sentence states ("in 2 weeks"): what is told at them is planned."""
        return self._split(sentence)[1]

    def _split(self, sentence: SentenceSpan) -> tuple[tuple[TimeMention, ...], tuple[TimeMention, ...]]:
        index = self._index[sentence.start]
        if index not in self._times:
            found = self._read(index)
            self._times[index] = (tuple(t for t in found if not t.planned), tuple(t for t in found if t.planned))
        return self._times[index]

    def _read(self, index: int) -> tuple[TimeMention, ...]:
        sentences, text = self._processed.sentences, self._processed.text
        sentence = sentences[index]
        previous: TimeMention | None = None
        first = index
        while first > 0 and index - first < PASSAGE_SENTENCES:
            prior = sentences[first - 1]
            if prior.section != sentence.section or prior.is_heading:
                break
            first -= 1
        for s in sentences[first:index]:
            times = self._finder.find(text[s.start:s.end], self._anchors, previous)
            if times:
                previous = times[-1]
        return self._finder.find_all(text[sentence.start:sentence.end], self._anchors, previous)

