"""One note text after the expensive NLP part (tokens, sentences, sections): what the cache holds."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from operator import attrgetter

import numpy as np
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

from .abbreviations import AbbreviationUse, doc_abbreviations
from .context import ModifierFinder, ScopedModifier
from .doc_text import doc_text
from .sections import SectionSpan, doc_sections, sentence_section_flags
from .wordforms import KeyedDoc, WordForms

__all__ = ["ProcessedNote", "SentenceSpan", "process_doc"]


@dataclass(frozen=True, slots=True)
class SentenceSpan:
    """A sentence in character offsets, trimmed of surrounding white space."""

    start: int
    end: int
    section: str | None
    is_heading: bool
    section_flags: frozenset[str] = frozenset()  # ConText flags from the section (sections.sentence_section_flags)


@dataclass(frozen=True, slots=True)
class ProcessedNote:
    doc: Doc  # never mutated after processing
    text: str
    sentences: tuple[SentenceSpan, ...]
    sections: tuple[SectionSpan, ...]
    token_sentence: tuple[int, ...]  # token index -> index into `sentences` (-1: white space only)
    modifiers: tuple[ScopedModifier, ...]  # ConText cues with settled scopes
    keyed: KeyedDoc  # the words as match keys (targets are matched on these)
    abbreviations: tuple[AbbreviationUse, ...]  # uses of short forms the note defines

    def sentence_of(self, token_index: int) -> SentenceSpan | None:
        i = self.token_sentence[token_index]
        return self.sentences[i] if i >= 0 else None

    def section_at(self, char: int) -> SectionSpan | None:
        i = bisect_right(self.sections, char, key=attrgetter("title_start")) - 1  # no per-call list: linear notes
        return self.sections[i] if i >= 0 else None

    def holds_heading(self, start: int, end: int) -> bool:
        """Whether [start, end) takes in words of its section's heading ('ALLERGIES:  CODEINE' as
        one target): the heading is then part of the target's name, not its context."""
        section = self.section_at(start)
        return section is not None and section.title_start <= start < section.title_end < end

    def in_heading(self, start: int, end: int) -> bool:
        section = self.section_at(start)
        return section is not None and section.title_start <= start and end <= section.title_end


def process_doc(doc: Doc, modifier_finder: ModifierFinder, wordforms: WordForms) -> ProcessedNote:
    """Read sentences, sections and ConText cues out of a doc the cached pipeline has run on."""
    sections = doc_sections(doc)
    starts = [s.title_start for s in sections]
    text = doc_text(doc)
    sentences: list[SentenceSpan] = []
    token_sentence = np.full(len(doc), -1, dtype=np.int64)
    for sent in doc.sents:
        raw = text[sent.start_char:sent.end_char]  # Span.text walks its tokens; the slice is the same
        stripped = raw.strip()
        if not stripped:
            continue
        start = sent.start_char + (len(raw) - len(raw.lstrip()))
        end = start + len(stripped)
        i = bisect_right(starts, start) - 1
        section = sections[i] if i >= 0 else None
        heading = section is not None and section.title_start <= start and end <= section.title_end
        index = len(sentences)
        sentences.append(SentenceSpan(start, end, section.category if section else None, heading))
        token_sentence[sent.start:sent.end] = index  # white space is set back to -1 below, in one step
        assert text[start:end] == stripped
    if len(doc):
        token_sentence[doc.to_array(IS_SPACE) == 1] = -1
    flags = sentence_section_flags([(s.section, s.is_heading, text[s.start:s.end]) for s in sentences])
    sentences = [replace(s, section_flags=f) for s, f in zip(sentences, flags, strict=True)]
    return ProcessedNote(doc, text, tuple(sentences), sections, tuple(token_sentence.tolist()), modifier_finder.find(doc),
                         wordforms.keyed(doc, doc.vocab), doc_abbreviations(doc))
