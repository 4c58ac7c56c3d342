"""NotePipeline: note texts -> note-mention Occurrences with ConText attributes and exact spans.

The expensive part (tokenizer, sentence splitter, sectionizer) runs once per note text and is
cached; matching a new set of terms against cached notes runs only the TargetMatcher and,
on notes with matches, ConText.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import medspacy
from medeventgraph.model.occurrence import EventTime, NoteDocument, NoteText, Occurrence
from medspacy.context import ConTextRule
from spacy.tokens import Doc, Span

from .abbreviations import add_abbreviation_detector
from .cache import NoteCache, NoteKey, content_hash
from .context import ModifierFinder, assert_targets
from .copies import MentionKey, link_copies, normalize_sentence
from .doc_text import with_text
from .mentions import MentionDraft, build_occurrence, note_order
from .phrases import PhraseFind, Stems, load_phrase_rules
from .processed import ProcessedNote, process_doc
from .sections import add_sectionizer, section_flags_for
from .sentences import SPLITTERS, add_sentence_splitter
from .targets import TargetTerm, TermMatcher
from .temporal import Anchors, TimeFinder
from .timeline import SentenceTimes, note_anchors
from .value_mentions import ValueDraft, note_value_drafts, value_occurrences
from .values import add_value_finder, doc_values
from .wordforms import WordForms

# A note's term matches (span, its terms, the split words that found it) in text order, and each
# one's (ConText flags, section flags).
Matched = tuple[list[tuple[Span, tuple[TargetTerm, ...], PhraseFind | None]],
                list[tuple[frozenset[str], frozenset[str]]]]

__all__ = ["DEFAULT_SPLITTER", "NotePipeline", "NoteSentence", "matched_targets", "target_flags"]

# Measured on the 578 distinct Synthea note texts (benchmarks/bench_nlp.py, same runs): tokenizer +
# splitter + sectionizer takes ~10x less time with the rule splitter than with PyRuSH; 97.6% of
# PyRuSH's sentences are identical, and the rest are bullet lists PyRuSH keeps as one sentence
# while the rule splitter gives one sentence per item (better ConText scopes and copy detection).
DEFAULT_SPLITTER = "rule"
# What `NotePipeline.warm` runs: a heading, a negated and a dated mention, an abbreviation.
_WARM_TEXT = "HISTORY OF PRESENT ILLNESS:\nNo acute kidney injury (AKI) was seen 2 days ago.\nPLAN: Follow up.\n"
_WARM_TERM = TargetTerm("acute kidney injury", "acute kidney injury", None, "query")


@dataclass(frozen=True, slots=True)
class NoteSentence:
    """A sentence of a note (ConText-free text) for the context store to index."""

    reference: str  # "DocumentReference/9"
    attachment: int
    start: int
    end: int
    section: str | None
    text: str


def _text_chars(processed: ProcessedNote) -> int:
    return len(processed.text)


def _is_text(note: NoteText) -> bool:
    return not note.content_type or note.content_type.lower().startswith("text/")


class NotePipeline:
    """Build once (it holds the spaCy pipeline); `mentions` and `sentences` are thread-safe."""

    def __init__(
        self,
        *,
        max_note_chars: int = 200_000,
        sentence_splitter: str = DEFAULT_SPLITTER,
        cache_size: int = 2048,
        cache_chars: int | None = None,
        copy_min_words: int = 4,
        context_rules: Sequence[ConTextRule] | None = None,
    ) -> None:
        """`context_rules`: the ConText rules (default: medspaCy's and nlp/resources/context_rules.json;
        benchmarks give other rule files to measure them)."""
        if sentence_splitter not in SPLITTERS:
            raise ValueError(f"sentence_splitter must be one of {SPLITTERS}, not {sentence_splitter!r}")
        self.max_note_chars = max_note_chars
        self.sentence_splitter = sentence_splitter
        self.copy_min_words = copy_min_words
        self.nlp = medspacy.load(medspacy_enable=["medspacy_tokenizer"])
        self.nlp.max_length = max(self.nlp.max_length, max_note_chars + 1)
        add_sentence_splitter(self.nlp, sentence_splitter)
        add_sectionizer(self.nlp)
        add_abbreviation_detector(self.nlp)
        add_value_finder(self.nlp)
        self.wordforms = WordForms()
        self.stems = Stems(self.wordforms, load_phrase_rules())
        self.modifier_finder = ModifierFinder(self.nlp, context_rules)
        self.time_finder = TimeFinder()
        # cache_chars bounds the processed notes held by their text (~100-150 bytes per character)
        self.cache: NoteCache[ProcessedNote] = NoteCache(cache_size, max_chars=cache_chars, chars=_text_chars)
        self._matchers: OrderedDict[tuple[TargetTerm, ...], TermMatcher] = OrderedDict()
        self._lock = threading.RLock()

    def warm(self) -> None:
        """Run every part once on a short note, outside the cache, so that a service's first
        request does not pay the parts' first-use set-up (Duckling's first parse, spaCy's lazily
        built tables); no result depends on it."""
        with self._lock:
            processed = process_doc(self._doc(_WARM_TEXT), self.modifier_finder, self.wordforms)
            matcher = TermMatcher(self.nlp, (_WARM_TERM,), self.wordforms, self.stems)  # not kept: no LRU slot
            self._matched(processed, matcher)
            self.time_finder.warm()

    # -- the cached, expensive part ------------------------------------------------------------
    def process(self, document: NoteDocument, note: NoteText) -> ProcessedNote:
        text = note.text[: self.max_note_chars]
        key = NoteKey(document.reference, document.version, note.attachment, content_hash(text))
        with self._lock:
            return self.cache.get_or_compute(key, lambda: process_doc(self._doc(text), self.modifier_finder, self.wordforms))

    def _doc(self, text: str) -> Doc:
        """`self.nlp(text)`, its components given the text rather than joining it from the tokens."""
        return self.nlp(with_text(self.nlp.make_doc(text), text))

    def _matcher(self, terms: Sequence[TargetTerm]) -> TermMatcher:
        key = tuple(terms)
        matcher = self._matchers.get(key)
        if matcher is None:
            matcher = self._matchers[key] = TermMatcher(self.nlp, key, self.wordforms, self.stems)
            while len(self._matchers) > 8:
                self._matchers.popitem(last=False)
        else:
            self._matchers.move_to_end(key)
        return matcher

    # -- public API ----------------------------------------------------------------------------
    def sentences(self, document: NoteDocument) -> list[NoteSentence]:
        out: list[NoteSentence] = []
        for note in document.texts:
            if not _is_text(note):
                continue
            processed = self.process(document, note)
            for s in processed.sentences:
                if not s.is_heading:
                    out.append(NoteSentence(document.reference, note.attachment, s.start, s.end,
                                            s.section, processed.text[s.start:s.end]))
        return out

    def mentions(
        self,
        documents: Sequence[NoteDocument],
        terms: Sequence[TargetTerm],
        encounters: Mapping[str, EventTime] | None = None,
    ) -> list[Occurrence]:
        """Every mention of every term in the documents' texts, in document then text order.
        `encounters` (reference -> period) gives relative times their admission/discharge anchors."""
        return self.read(documents, terms, encounters, values=False)[1]

    def values(
        self, documents: Sequence[NoteDocument], encounters: Mapping[str, EventTime] | None = None
    ) -> list[Occurrence]:
        """Every lab or vital value the documents' texts state ("K 6.1", "SBP in the 70s"), as
        note mentions with value, unit, span, assertion and stated time (nlp/value_mentions.py)."""
        return self.read(documents, (), encounters, mentions=False)[0]

    def read(
        self,
        documents: Sequence[NoteDocument],
        terms: Sequence[TargetTerm],
        encounters: Mapping[str, EventTime] | None = None,
        *,
        values: bool = True,
        mentions: bool = True,
    ) -> tuple[list[Occurrence], list[Occurrence]]:
        """(values, mentions) of the documents in one pass over their texts: each note is
        processed (or taken from the cache) once for both."""
        with self._lock:
            matcher = self._matcher(terms) if mentions else None
            value_drafts: list[ValueDraft] = []
            drafts: list[MentionDraft] = []
            # One text in several resources (a DiagnosticReport's presentedForm repeating its
            # DocumentReference) is one processed note: its matches and their ConText flags are
            # found once per call and placed in each document (held here, so ids stay unique).
            matched: dict[int, tuple[ProcessedNote, Matched]] = {}
            # Its sentences' times too, where the documents give it the same anchors (the same date
            # and encounter): what SentenceTimes reads depends on the text and the anchors alone.
            timed: dict[tuple[int, Anchors], SentenceTimes] = {}
            for document in documents:
                period = (encounters or {}).get(document.encounter or "")
                for note in document.texts:
                    if not _is_text(note):
                        continue
                    processed = self.process(document, note)  # once for both, whatever the cache holds
                    if matcher is not None:
                        held = matched.get(id(processed))
                        if held is None:
                            held = matched[id(processed)] = (processed, self._matched(processed, matcher))
                        drafts.extend(self._note_mentions(document, note, processed, held[1], period, timed))
                    if values:
                        value_drafts.extend(self._note_values(document, note, processed, period, timed))
        normalized: dict[str, str] = {}  # a sentence holds several mentions, and copies repeat it
        keys = [
            MentionKey(d.occurrence_id, d.document.patient, note_order(d.document, d.note.attachment),
                       f"{d.document.reference}#a{d.note.attachment}", d.text_hash,
                       normalized.get(d.sentence_text) or normalized.setdefault(d.sentence_text,
                                                                                normalize_sentence(d.sentence_text)),
                       d.terms[0].concept, d.rank)
            for d in drafts
        ]
        copies = link_copies(keys, self.copy_min_words)
        return (value_occurrences(value_drafts, self.copy_min_words),
                [build_occurrence(d, copies.get(d.occurrence_id)) for d in drafts])

    def _sentence_times(self, document: NoteDocument, processed: ProcessedNote, period: EventTime | None,
                        timed: dict[tuple[int, Anchors], SentenceTimes]) -> SentenceTimes:
        """The note's sentence times under this document's anchors, shared by the documents of one
        read holding the same text under the same anchors (each SentenceTimes holds its note, so
        the id in the key stays its own while the read lasts)."""
        anchors = note_anchors(document, processed.text, period, self.time_finder)
        key = (id(processed), anchors)
        times = timed.get(key)
        if times is None:
            times = timed[key] = SentenceTimes(processed, anchors, self.time_finder)
        return times

    def _note_values(self, document: NoteDocument, note: NoteText, processed: ProcessedNote,
                     period: EventTime | None, timed: dict[tuple[int, Anchors], SentenceTimes]) -> list[ValueDraft]:
        if not doc_values(processed.doc):
            return []
        return note_value_drafts(document, note, processed, self._sentence_times(document, processed, period, timed))

    @staticmethod
    def _matched(processed: ProcessedNote, matcher: TermMatcher) -> Matched:
        """The note's term matches (whole, and split across a clause) in sentences, outside headings,
        in text order, with their flags: what depends on the text and the terms alone, not on the
        document holding it."""
        plain = matched_targets(processed, matcher)
        phrased = [m for m in NotePipeline._phrase_matches(processed, matcher, {(s.start, s.end) for s, _ in plain})
                   if processed.sentence_of(m[0].start) is not None
                   and not processed.in_heading(m[0].start_char, m[0].end_char)]
        matches = sorted([(s, t, None) for s, t in plain] + phrased, key=lambda m: (m[0].start, m[0].end))
        kinds = [terms[0].kind.value if terms[0].kind is not None else None for _, terms, _ in matches]
        return matches, target_flags(processed, [span for span, _, _ in matches], kinds)

    def _note_mentions(
        self, document: NoteDocument, note: NoteText, processed: ProcessedNote, matched: Matched,
        period: EventTime | None, timed: dict[tuple[int, Anchors], SentenceTimes],
    ) -> list[MentionDraft]:
        matches, flags = matched
        text_hash = content_hash(processed.text)
        drafts: list[MentionDraft] = []
        ranks: dict[tuple[int, str], int] = {}
        times_of = self._sentence_times(document, processed, period, timed) if matches else None
        for (span, terms, phrase), (flag, section_flag) in zip(matches, flags, strict=True):
            sentence = processed.sentence_of(span.start)
            assert sentence is not None
            rank_key = (sentence.start, terms[0].concept)
            rank = ranks[rank_key] = ranks.get(rank_key, -1) + 1
            assert times_of is not None
            drafts.append(MentionDraft(document, note, span.start_char, span.end_char, sentence,
                                       processed.text[sentence.start:sentence.end], terms,
                                       flag, text_hash, rank, times_of(sentence), section_flag, phrase,
                                       times_of.plans(sentence)))
        return drafts

    @staticmethod
    def _phrase_matches(processed: ProcessedNote, matcher: TermMatcher, taken: set[tuple[int, int]]
                        ) -> list[tuple[Span, tuple[TargetTerm, ...], PhraseFind | None]]:
        """Query terms told split across a clause, where no term's words already stand there."""
        sentences = processed.sentence_bounds()
        # the tokens the matches so far cover: an overlap test per phrase that does not grow with
        # the note's mentions (a note of thousands of mentions made the scan over them quadratic)
        covered = {i for s, e in taken for i in range(s, e)}
        out: list[tuple[Span, tuple[TargetTerm, ...], PhraseFind | None]] = []
        for term, found in matcher.phrases(processed.text, sentences):
            span = processed.doc.char_span(found.start, found.end, alignment_mode="expand")
            if span is None or any(i in covered for i in range(span.start, span.end)):
                continue
            if (span.start_char, span.end_char) != (found.start, found.end):
                continue  # the words do not end on token bounds: no citation of exactly them
            taken.add((span.start, span.end))
            covered.update(range(span.start, span.end))
            out.append((span, (term,), found))
        return out


def matched_targets(processed: ProcessedNote, matcher: TermMatcher) -> list[tuple[Span, tuple[TargetTerm, ...]]]:
    """The terms' mentions in a processed note, in text order: matched words, and short forms the
    note defines for a term; never a heading's own words."""
    found = matcher(processed.doc, processed.keyed)
    taken = {(span.start, span.end) for span, _ in found}
    # A short form the note defines counts as its long form unless a term already matched it.
    found += [(span, terms) for span, terms in matcher.abbreviated(processed.doc, processed.abbreviations)
              if not any(span.start < e and s < span.end for s, e in taken)]
    return sorted(
        ((span, terms) for span, terms in found
         if processed.sentence_of(span.start) is not None
         and not processed.in_heading(span.start_char, span.end_char)),
        key=lambda m: (m[0].start, m[0].end),
    )


def target_flags(processed: ProcessedNote, spans: Sequence[Span], kinds: Sequence[str | None]
                 ) -> list[tuple[frozenset[str], frozenset[str]]]:
    """(ConText flags, section flags) of target spans of the given types (rules.TARGET_TYPES, or
    None: unknown)."""
    flags = assert_targets(processed.doc, processed.modifiers, spans, kinds)
    out = []
    for span, kind, flag in zip(spans, kinds, flags, strict=True):
        sentence = processed.sentence_of(span.start)
        assert sentence is not None
        held = processed.holds_heading(span.start_char, span.end_char)
        out.append((flag, frozenset() if held else section_flags_for(sentence.section, sentence.section_flags, kind)))
    return out
