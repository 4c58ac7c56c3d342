"""One note text after the expensive NLP part (tokens, sentences, sections): what the cache holds.

The cache keeps hundreds of these alive, so a note's sentences, sections and ConText cues are held
as rows of plain values (ints, strings, booleans), which Python's cyclic GC stops tracking, rather
than as one dataclass per sentence, section and cue, which every collection would walk again and
which made the cold run trigger full collections (issue #19). They are read back as the same
`SentenceSpan`, `SectionSpan` and `ScopedModifier` values, made when asked for.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Generic, TypeVar, overload

import numpy as np
from medspacy.context import ConTextRule
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc

from .abbreviations import AbbreviationUse, doc_abbreviations
from .context import ModifierFinder, ScopedModifier
from .doc_text import doc_text
from .sections import SectionSpan, doc_sections, sentence_section_flags
from .wordforms import KeyedDoc, WordForms

__all__ = ["ModifierTable", "ProcessedNote", "Rows", "SectionTable", "SentenceSpan", "SentenceTable", "process_doc"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SentenceSpan:
    """A sentence in character offsets, trimmed of surrounding white space."""

    start: int
    end: int
    section: str | None
    is_heading: bool
    section_flags: frozenset[str] = frozenset()  # ConText flags from the section (sections.sentence_section_flags)


class Rows(Sequence[T], Generic[T]):
    """An immutable sequence of `T` held as tuples of plain values (`rows`); `item(row)` is the
    item. Items are made when read: equal values, not the same objects, on each read."""

    __slots__ = ("rows",)

    def __init__(self, rows: tuple[tuple, ...]) -> None:
        self.rows = rows

    @abstractmethod
    def item(self, row: tuple) -> T:
        """The item a row holds (each table says how it is built)."""

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self.item(row) for row in self.rows[i]]
        return self.item(self.rows[i])

    def __iter__(self) -> Iterator[T]:
        item = self.item
        for row in self.rows:
            yield item(row)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rows) and type(other) is type(self) and list(other) == list(self)

    def __hash__(self) -> int:
        return hash(self.rows)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


def _rows(rows: list[tuple]) -> tuple[tuple, ...]:
    """The rows as one tuple made after them (`tuple(generator)` makes the tuple first): the GC
    untracks a tuple whose items it has already untracked, in one pass over the new objects."""
    return tuple(rows)


# Sentence section flags, numbered: a handful of distinct sets, shared by every note (a row holds
# the number, which the GC never tracks, rather than a set, which it always does).
_FLAG_SETS: list[frozenset[str]] = []
_FLAG_NUMBERS: dict[frozenset[str], int] = {}
_FLAG_LOCK = threading.Lock()


def _flag_number(flags: frozenset[str]) -> int:
    """The flags' number: `_FLAG_SETS[number] == flags`."""
    number = _FLAG_NUMBERS.get(flags)
    if number is None:
        with _FLAG_LOCK:
            number = _FLAG_NUMBERS.get(flags)
            if number is None:
                _FLAG_SETS.append(flags)
                number = _FLAG_NUMBERS[flags] = len(_FLAG_SETS) - 1
    return number


class SentenceTable(Rows[SentenceSpan]):
    """A note's sentences: rows (start, end, section, is_heading, number of the section flags)."""

    __slots__ = ()

    def item(self, row: tuple) -> SentenceSpan:
        start, end, section, is_heading, flags = row
        return SentenceSpan(start, end, section, is_heading, _FLAG_SETS[flags])

    @classmethod
    def of(cls, sentences: Sequence[SentenceSpan]) -> SentenceTable:
        return cls(_rows([(s.start, s.end, s.section, s.is_heading, _flag_number(s.section_flags)) for s in sentences]))


class SectionTable(Rows[SectionSpan]):
    """A note's sections in document order: rows (category, title_start, title_end, end)."""

    __slots__ = ()

    def item(self, row: tuple) -> SectionSpan:
        return SectionSpan(*row)

    @classmethod
    def of(cls, sections: Sequence[SectionSpan]) -> SectionTable:
        return cls(_rows([(s.category, s.title_start, s.title_end, s.end) for s in sections]))

    def row_at(self, char: int) -> tuple | None:
        """The row of the section whose heading starts last at or before `char` (bisect: no scan)."""
        i = bisect_right(self.rows, char, key=_TITLE_START) - 1
        return self.rows[i] if i >= 0 else None


_TITLE_START = itemgetter(1)


class ModifierTable(Rows[ScopedModifier]):
    """A note's ConText cues with settled scopes: rows (rule index, start, end, scope_start,
    scope_end) and the rules they index (shared with the modifier finder)."""

    __slots__ = ("rules",)

    def __init__(self, rows: tuple[tuple, ...], rules: tuple[ConTextRule, ...]) -> None:
        super().__init__(rows)
        self.rules = rules

    def item(self, row: tuple) -> ScopedModifier:
        i, start, end, scope_start, scope_end = row
        return ScopedModifier(self.rules[i], start, end, scope_start, scope_end)

    @classmethod
    def of(cls, modifiers: Sequence[ScopedModifier]) -> ModifierTable:
        index: dict[int, int] = {}
        rules: list[ConTextRule] = []
        rows = []
        for m in modifiers:
            i = index.get(id(m.rule))
            if i is None:
                i = index[id(m.rule)] = len(rules)
                rules.append(m.rule)
            rows.append((i, m.start, m.end, m.scope_start, m.scope_end))
        return cls(_rows(rows), tuple(rules))


@dataclass(frozen=True, slots=True)
class ProcessedNote:
    doc: Doc  # never mutated after processing
    text: str
    sentences: Sequence[SentenceSpan]  # a SentenceTable from process_doc
    sections: Sequence[SectionSpan]  # a SectionTable from process_doc
    token_sentence: tuple[int, ...]  # token index -> index into `sentences` (-1: white space only)
    modifiers: Sequence[ScopedModifier]  # ConText cues with settled scopes (a ModifierTable from process_doc)
    keyed: KeyedDoc  # the words as match keys (targets are matched on these)
    abbreviations: tuple[AbbreviationUse, ...]  # uses of short forms the note defines

    def sentence_bounds(self) -> list[tuple[int, int]]:
        """(start, end) of each sentence that is not a heading, in order: read off the rows, without
        making a SentenceSpan per sentence."""
        sentences = self.sentences
        if isinstance(sentences, SentenceTable):
            return [(row[0], row[1]) for row in sentences.rows if not row[3]]
        return [(s.start, s.end) for s in sentences if not s.is_heading]

    def sentence_of(self, token_index: int) -> SentenceSpan | None:
        i = self.token_sentence[token_index]
        return self.sentences[i] if i >= 0 else None

    def _section_row(self, char: int) -> tuple | None:
        sections = self.sections
        if isinstance(sections, SectionTable):
            return sections.row_at(char)
        i = bisect_right(sections, char, key=attrgetter("title_start")) - 1  # no per-call list: linear notes
        if i < 0:
            return None
        s = sections[i]
        return (s.category, s.title_start, s.title_end, s.end)

    def section_at(self, char: int) -> SectionSpan | None:
        row = self._section_row(char)
        return SectionSpan(*row) if row is not None else None

    def holds_heading(self, start: int, end: int) -> bool:
        """Whether [start, end) takes in words of its section's heading ('ALLERGIES:  CODEINE' as
        one target): the heading is then part of the target's name, not its context."""
        row = self._section_row(start)
        return row is not None and row[1] <= start < row[2] < end

    def in_heading(self, start: int, end: int) -> bool:
        row = self._section_row(start)
        return row is not None and row[1] <= start and end <= row[2]


def process_doc(doc: Doc, modifier_finder: ModifierFinder, wordforms: WordForms) -> ProcessedNote:
    """Read sentences, sections and ConText cues out of a doc the cached pipeline has run on."""
    sections = doc_sections(doc)
    doc._.sections = []  # medspaCy's Section objects: read once, here (doc_sections); not kept with the note
    starts = [s.title_start for s in sections]
    text = doc_text(doc)
    sentences: list[tuple[int, int, str | None, bool]] = []
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
        sentences.append((start, end, section.category if section else None, heading))
        token_sentence[sent.start:sent.end] = index  # white space is set back to -1 below, in one step
        assert text[start:end] == stripped
    if len(doc):
        token_sentence[doc.to_array(IS_SPACE) == 1] = -1
    flags = sentence_section_flags([(section, heading, text[start:end]) for start, end, section, heading in sentences])
    table = SentenceTable(_rows([(*s, _flag_number(f)) for s, f in zip(sentences, flags, strict=True)]))
    return ProcessedNote(doc, text, table, SectionTable.of(sections), tuple(token_sentence.tolist()),
                         ModifierTable.of(modifier_finder.find(doc)), wordforms.keyed(doc, doc.vocab),
                         doc_abbreviations(doc))
