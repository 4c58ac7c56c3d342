"""A note's time anchors and each sentence's resolved times, read in passage order.

"The next morning" and "at that time" refer to the latest time stated before them in the
same passage (this sentence, or the two before it in the same section); nothing further
back, and never across sections.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import datetime

from medeventgraph.occurrence import EventTime, NoteDocument

from .dates import TimeMention
from .processed import ProcessedNote, SentenceSpan
from .temporal import Anchors, TimeFinder, header_anchors

__all__ = ["PASSAGE_SENTENCES", "note_anchors", "sentence_times"]

PASSAGE_SENTENCES = 2  # sentences before this one that can hold the time "at that time" means


def note_anchors(document: NoteDocument, text: str, period: EventTime | None, finder: TimeFinder) -> Anchors:
    """The note date, the encounter's admission and discharge, and header-stated dates (which
    win: the note's own words say when the stay began)."""
    date = document.date
    stated = header_anchors(text, finder)
    admission: datetime | None = period.start if period is not None and period.resolved else None
    discharge: datetime | None = period.end if period is not None and period.resolved else None
    return Anchors(
        note=date.start if date.resolved else None,
        note_granularity=date.granularity,
        admission=stated.get("admission", admission),
        discharge=stated.get("discharge", discharge),
        surgery=stated.get("surgery"),
    )


def sentence_times(
    processed: ProcessedNote, sentence: SentenceSpan, anchors: Anchors, finder: TimeFinder
) -> tuple[TimeMention, ...]:
    index = bisect_left([s.start for s in processed.sentences], sentence.start)
    previous: TimeMention | None = None
    first = index
    while first > 0 and index - first < PASSAGE_SENTENCES:
        prior = processed.sentences[first - 1]
        if prior.section != sentence.section or prior.is_heading:
            break
        first -= 1
    for s in processed.sentences[first:index]:
        times = finder.find(processed.text[s.start:s.end], anchors, previous)
        if times:
            previous = times[-1]
    return finder.find(processed.text[sentence.start:sentence.end], anchors, previous)
