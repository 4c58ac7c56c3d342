"""From one matched span to a note-mention Occurrence (ids, source refs, times, assertions)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from medeventgraph.model.occurrence import (
    Concept,
    EventTime,
    Granularity,
    Kind,
    NoteDocument,
    NoteText,
    Occurrence,
    Origin,
    SourceRef,
    TimeType,
)

from .context import assertion_from_flags
from .dates import TimeMention, in_other_clause, nearest_time, planned_time
from .phrases import PhraseFind
from .processed import SentenceSpan
from .targets import TargetTerm

__all__ = ["UNRESOLVED", "MentionDraft", "build_occurrence", "documented_bound", "json_path", "mention_id",
           "note_order", "note_span_source", "phrase_pieces", "stated_time_extra"]

UNRESOLVED = EventTime(start=None, type=TimeType.OCCURRENCE, granularity=Granularity.UNKNOWN)
_FAR_FUTURE = datetime.max.replace(tzinfo=UTC)
DEFAULT_KIND = Kind.OBSERVATION  # for terms the caller gave no kind


@dataclass(frozen=True, slots=True)
class MentionDraft:
    document: NoteDocument
    note: NoteText
    start: int
    end: int
    sentence: SentenceSpan
    sentence_text: str
    terms: tuple[TargetTerm, ...]  # the first one wins; the others are alternatives
    flags: frozenset[str]  # ConText flags
    text_hash: str
    rank: int
    times: tuple[TimeMention, ...] = ()  # the sentence's resolved times (offsets in the sentence)
    section_flags: frozenset[str] = frozenset()  # flags from the section (none if the target holds its heading)
    phrase: PhraseFind | None = None  # the term's words found split across the clause (nlp/phrases.py)
    plans: tuple[TimeMention, ...] = ()  # the sentence's times ahead of the note ("in 2 weeks")

    @property
    def occurrence_id(self) -> str:
        return mention_id(self.document.resource_type, self.document.resource_id,
                          self.note.attachment, self.start, self.end)


def mention_id(resource_type: str, resource_id: str, attachment: int, start: int, end: int) -> str:
    """'DocumentReference/9#s120-188'; attachment k > 0 adds 'a<k>': '...#a1s120-188'."""
    prefix = f"a{attachment}" if attachment else ""
    return f"{resource_type}/{resource_id}#{prefix}s{start}-{end}"


def json_path(resource_type: str, attachment: int) -> str:
    if resource_type == "DiagnosticReport":
        return f"presentedForm[{attachment}].data"
    return f"content[{attachment}].attachment.data"


def note_order(document: NoteDocument, attachment: int) -> tuple:
    """Earliest note first; same time: DocumentReference before other types; then by id."""
    start = document.date.start or _FAR_FUTURE
    if start.tzinfo is None:
        start = start.replace(tzinfo=UTC)
    rank = 0 if document.resource_type == "DocumentReference" else 1
    return (start, rank, document.resource_type, document.resource_id, attachment)


def documented_bound(document: NoteDocument) -> EventTime:
    """A note mention's "no later than": the note's own date."""
    d = document.date
    return EventTime(start=d.start, end=d.end, type=TimeType.DOCUMENTATION, granularity=d.granularity)


def note_span_source(document: NoteDocument, note: NoteText, start: int, end: int, section: str | None) -> SourceRef:
    """The citation of characters [start, end) of one note text."""
    return SourceRef(
        resource_type=document.resource_type,
        resource_id=document.resource_id,
        json_path=json_path(document.resource_type, note.attachment),
        attachment=note.attachment,
        start=start,
        end=end,
        section=section,
    )


def stated_time_extra(stated: TimeMention) -> list[tuple[str, str]]:
    """The `extra` fields that say which words of the sentence timed a mention."""
    extra = [("time_text", stated.text), ("time_anchor", stated.anchor)]
    if stated.part:
        extra.append(("time_part", stated.part))
    if stated.approximate:
        extra.append(("time_approximate", "true"))
    return extra


def phrase_pieces(found: PhraseFind) -> str:
    """'0-11,16-23': the words that fill the term's slots, relative to the mention's start."""
    return ",".join(f"{s - found.start}-{e - found.start}" for s, e in found.pieces)


_HISTORY_GAP = timedelta(days=14)  # ConText's historical: two weeks or more before the note (Harkema et al. 2009)


def _occurrence_time(draft: MentionDraft, historical: bool) -> tuple[EventTime, TimeMention | None]:
    """The sentence's time nearest the mention. A mention told as past history is not dated by a time
    in another clause that cannot lie two weeks before the note ("History of subdural hematoma, also
    on admission she noted headaches": the admission dates the headaches). In its own clause the time
    is its own, and says the act is recent ("status post transfusion earlier today")."""
    start, end = draft.start - draft.sentence.start, draft.end - draft.sentence.start
    best = nearest_time(list(draft.times), start, end, draft.sentence_text)
    if best is None or (historical and in_other_clause(best, start, end, draft.sentence_text)
                        and _within_history_gap(best.time, draft.document.date)):
        return UNRESOLVED, None
    return best.time, best


def _within_history_gap(time: EventTime, note: EventTime) -> bool:
    window, written = time.start_window(), note.start_window()
    return window is not None and written is not None and window[0] > written[0] - _HISTORY_GAP


def build_occurrence(draft: MentionDraft, copied_from: str | None) -> Occurrence:
    document, note, sentence = draft.document, draft.note, draft.sentence
    term = draft.terms[0]
    flags = set(draft.flags) | draft.section_flags
    time, stated = _occurrence_time(draft, "historical" in flags)
    plan = planned_time([*draft.times, *draft.plans], draft.start - sentence.start, draft.end - sentence.start,
                        draft.sentence_text) if draft.plans else None
    if plan is not None:
        flags.add("hypothetical")  # told at a time ahead of the note: a plan, whatever its verb
    literal = note.text[draft.start:draft.end]
    extra: list[tuple[str, str]] = [
        ("sentence_start", str(sentence.start)),
        ("sentence_end", str(sentence.end)),
        ("section", sentence.section or ""),
        ("literal", literal),
        ("term_source", term.source),
    ]
    concept = term.concept
    if draft.phrase is not None:
        # The mention names the note's own words ("gallbladder was removed"), not the term: only
        # the phrase basis, re-checked on those words, binds it to the term (core.binding).
        concept = " ".join(literal.split())
        extra += [("phrase_term", term.literal), ("phrase_pieces", phrase_pieces(draft.phrase))]
        if draft.phrase.dropped:
            extra.append(("phrase_without", " ".join(draft.phrase.dropped)))
        if draft.phrase.named is not None:
            extra.append(("phrase_named", "{}-{}".format(*draft.phrase.named)))
    if term.kind is None:
        extra.append(("kind", "unspecified"))
    extra.extend(("alt_concept", t.concept) for t in dict.fromkeys(draft.terms[1:]) if t.concept != term.concept)
    if stated is not None:
        extra += stated_time_extra(stated)
    if plan is not None:
        extra.append(("planned_at", plan.text))
    if copied_from is not None:
        extra.append(("copied_from", copied_from))
    return Occurrence(
        id=draft.occurrence_id,
        patient=document.patient,
        kind=term.kind or DEFAULT_KIND,
        origin=Origin.NOTE,
        concept=Concept(text=concept),
        time=time,
        source=note_span_source(document, note, draft.start, draft.end, sentence.section),
        encounter=document.encounter,
        assertion=assertion_from_flags(flags),
        documented=documented_bound(document),
        text=draft.sentence_text,
        extra=tuple(extra),
    )
