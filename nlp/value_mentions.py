"""Values a note states (nlp/values.py) -> lab and vital Occurrences with value, unit, span and time.

A value mention is a note mention like any other: its id and citation are its characters in the
note, its assertion comes from the note's ConText cues and section, and its time is the one the
sentence states (resolved against the note's anchors) — or none, with the note's date as the
"no later than" bound (`documented`). A value copied forward from an earlier note links to its
origin (`copied_from`): it is the same measurement, not a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from medeventgraph.model.occurrence import (
    Coding,
    Concept,
    Kind,
    NoteDocument,
    NoteText,
    Occurrence,
    Origin,
    Value,
)

from .analytes import load_analytes
from .cache import content_hash
from .context import assert_targets, assertion_from_flags
from .copies import MentionKey, link_copies, normalize_sentence
from .dates import TimeMention, nearest_time
from .mentions import (
    UNRESOLVED,
    documented_bound,
    mention_id,
    note_order,
    note_span_source,
    stated_time_extra,
)
from .processed import ProcessedNote, SentenceSpan
from .sections import section_flags_for
from .values import ValueFind, doc_values

__all__ = ["LOINC", "ValueDraft", "note_value_drafts", "value_occurrences"]

LOINC = "http://loinc.org"


@dataclass(frozen=True, slots=True)
class ValueDraft:
    document: NoteDocument
    note: NoteText
    found: ValueFind
    sentence: SentenceSpan
    sentence_text: str
    flags: frozenset[str]
    times: tuple[TimeMention, ...]
    text_hash: str
    rank: int  # index among this analyte's values in the sentence (copy detection)

    @property
    def occurrence_id(self) -> str:
        return mention_id(self.document.resource_type, self.document.resource_id, self.note.attachment,
                          self.found.start, self.found.end)


def note_value_drafts(
    document: NoteDocument,
    note: NoteText,
    processed: ProcessedNote,
    sentence_times: Callable[[SentenceSpan], tuple[TimeMention, ...]],
) -> list[ValueDraft]:
    """The values of one processed note text, with their ConText flags and sentence times."""
    found = [v for v in doc_values(processed.doc) if not processed.in_heading(v.start, v.end)]
    spans, kept = [], []
    for v in found:
        span = processed.doc.char_span(v.start, v.end, alignment_mode="expand")
        sentence = processed.sentence_of(span.start) if span is not None and len(span) else None
        if span is not None and sentence is not None and sentence.start <= v.start and v.end <= sentence.end:
            spans.append(span)
            kept.append((v, sentence))
    flags = assert_targets(processed.doc, processed.modifiers, spans, ["value"] * len(spans))  # measured
    text_hash = content_hash(processed.text)
    drafts: list[ValueDraft] = []
    ranks: dict[tuple[int, str], int] = {}
    for (v, sentence), flag in zip(kept, flags, strict=True):
        key = (sentence.start, v.analyte)
        ranks[key] = ranks.get(key, -1) + 1
        drafts.append(ValueDraft(document, note, v, sentence, processed.text[sentence.start:sentence.end],
                                 frozenset(flag), sentence_times(sentence), text_hash, ranks[key]))
    return drafts


def value_occurrences(drafts: list[ValueDraft], copy_min_words: int) -> list[Occurrence]:
    keys = [
        MentionKey(d.occurrence_id, d.document.patient, note_order(d.document, d.note.attachment),
                   f"{d.document.reference}#a{d.note.attachment}", d.text_hash,
                   normalize_sentence(d.sentence_text), d.found.analyte, d.rank)
        for d in drafts
    ]
    copies = link_copies(keys, copy_min_words)
    series: dict[tuple[str, int, int, int], dict[int, str]] = {}
    for d in drafts:
        if d.found.change:
            series.setdefault(_series_key(d), {})[d.found.time_rank] = d.occurrence_id
    segments = _segments(drafts)
    out = []
    for d in drafts:
        earlier = None
        if d.found.change and d.found.time_rank > 0:
            earlier = series[_series_key(d)].get(d.found.time_rank - 1)
        out.append(_build_value_occurrence(d, copies.get(d.occurrence_id), earlier, segments.get(d.occurrence_id)))
    return out


def _series_key(d: ValueDraft) -> tuple[str, int, int, int]:
    """Series are numbered per sentence: the note text, the sentence and the number name one."""
    return (d.document.reference, d.note.attachment, d.sentence.start, d.found.series)


def _segments(drafts: list[ValueDraft]) -> dict[str, tuple[tuple[int, int], ...]]:
    """A stated change's (or a timed list's) values each own the text from their number to the
    next one's: a time written there is theirs ("creatinine 1.5 up from 1.2 yesterday": yesterday
    is 1.2's; "1.2 on admission, 2.3 yesterday"). The
    words before the analyte belong to the latest value ("Today creatinine 1.5 up from 1.2").
    A time expression belongs where it ends (Duckling reads "from 1.2 yesterday" as one)."""
    by_series: dict[tuple[str, int, int, int], list[ValueDraft]] = {}
    for d in drafts:
        if d.found.series and (d.found.change or d.found.timed):
            by_series.setdefault(_series_key(d), []).append(d)
    out: dict[str, tuple[tuple[int, int], ...]] = {}
    for members in by_series.values():
        members.sort(key=lambda d: d.found.end)
        starts = [d.found.end - len(d.found.text) for d in members]
        latest = max(members, key=lambda d: d.found.time_rank)
        for i, d in enumerate(members):
            own = (starts[i], starts[i + 1] if i + 1 < len(members) else d.sentence.end)
            before = ((d.sentence.start, d.found.start),) if d is latest else ()
            out[d.occurrence_id] = (own, *before)
    return out


def _stated_time(draft: ValueDraft, segments: tuple[tuple[int, int], ...] | None) -> TimeMention | None:
    offset = draft.sentence.start
    if segments is None:
        return nearest_time(list(draft.times), draft.found.start - offset, draft.found.end - offset,
                            draft.sentence_text)
    return next((t for t in draft.times if any(lo < offset + t.end <= hi for lo, hi in segments)), None)


def _build_value_occurrence(
    draft: ValueDraft, copied_from: str | None, change_from: str | None,
    segments: tuple[tuple[int, int], ...] | None = None,
) -> Occurrence:
    document, note, sentence, v = draft.document, draft.note, draft.sentence, draft.found
    analyte = next(a for a in load_analytes().analytes if a.id == v.analyte)
    flags = set(draft.flags) | section_flags_for(sentence.section, sentence.section_flags, "value")
    stated = _stated_time(draft, segments)
    literal = note.text[v.start:v.end]
    extra: list[tuple[str, str]] = [
        ("sentence_start", str(sentence.start)),
        ("sentence_end", str(sentence.end)),
        ("section", sentence.section or ""),
        ("literal", literal),
        ("term_source", "value"),
        ("analyte", analyte.id),
        ("unit_stated", "true" if v.unit_stated else "false"),
    ]
    if v.quantity is None and v.low is not None and v.high is not None:
        extra += [("value_low", f"{v.low:g}"), ("value_high", f"{v.high:g}")]
    if v.series:
        extra.append(("value_series", f"{document.reference}#a{note.attachment}/s{sentence.start}/{v.series}"))
    if change_from is not None:
        extra.append(("change_from", change_from))
        if v.within_hours is not None:
            extra.append(("change_within_hours", f"{v.within_hours:g}"))
    if stated is not None:
        extra += stated_time_extra(stated)
    if copied_from is not None:
        extra.append(("copied_from", copied_from))
    return Occurrence(
        id=draft.occurrence_id,
        patient=document.patient,
        kind=Kind(analyte.kind),
        origin=Origin.NOTE,
        concept=Concept((Coding(LOINC, analyte.loinc, analyte.display),), analyte.concept),
        time=stated.time if stated is not None else UNRESOLVED,
        source=note_span_source(document, note, v.start, v.end, sentence.section),
        encounter=document.encounter,
        assertion=assertion_from_flags(flags),
        documented=documented_bound(document),
        value=Value(quantity=v.quantity, unit=v.unit, text=v.text),
        text=draft.sentence_text,
        extra=tuple(extra),
    )
