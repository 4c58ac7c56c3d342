"""Target terms supplied by the caller, and the medspaCy TargetMatcher built from them.

Terms come from three places (the caller decides; nlp never imports core): lexicon entries,
displays of concepts in the patient's structured record, and the query's event texts. Terms
with the same normalised literal share one matcher rule; when several terms claim one span,
the first in the caller's order wins and the others are reported as alternatives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from medeventgraph.model.occurrence import Kind
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .abbreviations import AbbreviationUse
from .phrases import (
    NamedSlots,
    PhraseFind,
    PhraseSlots,
    Stems,
    find_phrases,
    named_at,
    named_splits,
    phrase_slots,
)
from .wordforms import KeyedDoc, WordForms

__all__ = ["TargetTerm", "TermMatcher", "terms_from_display"]

SOURCES = ("lexicon", "record", "query")
_SEMANTIC_TAG = re.compile(r"\s*\((?:disorder|finding|procedure|situation|regime/therapy|observable entity|"
                           r"morphologic abnormality|qualifier value|substance|product|event)\)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class TargetTerm:
    """A phrase to find in notes and the concept it stands for."""

    literal: str
    concept: str
    kind: Kind | None = None
    source: str = "lexicon"  # lexicon | record | query

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"TargetTerm.source must be one of {SOURCES}, not {self.source!r}")


def _normalize_literal(text: str) -> str:
    return " ".join(text.lower().split())


def terms_from_display(display: str, kind: Kind | None, source: str = "record") -> list[TargetTerm]:
    """Terms for a record display: the display itself and, for SNOMED-style displays, the display
    without its semantic tag ("Acute kidney injury (disorder)" -> also "Acute kidney injury")."""
    concept = display.strip()
    out = [TargetTerm(concept, concept, kind, source)]
    bare = _SEMANTIC_TAG.sub("", concept)
    if bare and bare != concept:
        out.append(TargetTerm(bare, concept, kind, source))
    return out


def _usable(literal: str) -> bool:
    return len(literal) >= 2 and any(ch.isalnum() for ch in literal)


def _crosses_a_period(doc: Doc, first: int, last: int) -> bool:
    """A lone "." is a joiner for keys ("p.o ." = "P.O."), but not where it ends a sentence."""
    return any(doc[i].text == "." and doc[i + 1].is_sent_start for i in range(first + 1, last))


class TermMatcher:
    """Finds the terms' literals in processed docs on match keys (`wordforms`): case, spacing,
    line breaks, joiners and inflections ignored; spans cut from the original doc."""

    def __init__(self, nlp: Language, terms: Sequence[TargetTerm], wordforms: WordForms,
                 stems: Stems | None = None) -> None:
        groups: dict[tuple[str, ...], list[TargetTerm]] = {}
        by_literal: dict[str, list[TargetTerm]] = {}
        for term in terms:
            literal = _normalize_literal(term.literal)
            if not _usable(literal):
                continue
            words = tuple(wordforms.term_words([t.text for t in nlp.tokenizer(literal)]))
            if words:
                groups.setdefault(words, []).append(term)
                by_literal.setdefault(literal, []).append(term)
        self._groups: list[tuple[TargetTerm, ...]] = [tuple(g) for g in groups.values()]
        self._by_literal = {key: tuple(g) for key, g in by_literal.items()}
        self._by_key = {words: tuple(g) for words, g in groups.items()}
        self._wordforms = wordforms
        self._matcher = PhraseMatcher(nlp.vocab, attr="ORTH")
        for i, words in enumerate(groups):
            self._matcher.add(f"T{i}", [Doc(nlp.vocab, words=list(words), spaces=[False] * len(words))])
        self._vocab = nlp.vocab
        self._tokenizer = nlp.tokenizer
        # A query's own words are also looked for split across a clause (nlp/phrases.py): the
        # event text names what happened, the note tells it in its own order and forms.
        self._stems = stems
        # A sentence's stems, kept per text: templated and copied-forward notes repeat sentences
        # (4,693 bags of the Synthea notes' sentences, 702 distinct), and a bag is a
        # function of the text alone.
        self._bag = lru_cache(maxsize=4096)(stems.bag) if stems is not None else None
        self._phrases: list[tuple[TargetTerm, PhraseSlots, PhraseSlots | None, list[NamedSlots]]] = []
        if stems is not None:
            for term in dict.fromkeys(t for t in terms if t.source == "query"):
                slots = phrase_slots(term.literal, stems)
                if slots is not None:
                    self._phrases.append((term, slots, phrase_slots(term.literal, stems, drop=True),
                                          named_splits(term.literal, stems)))

    def __call__(self, doc: Doc, keyed: KeyedDoc, *, limit: int | None = None
                 ) -> list[tuple[Span, tuple[TargetTerm, ...]]]:
        """Non-overlapping matches (longest wins) in text order, each with its terms in caller order."""
        if not self._groups or not len(keyed.doc):
            return []
        pos = keyed.positions
        spans = [
            Span(doc, pos[start], pos[end - 1] + 1, label=self._vocab.strings[match_id])
            for match_id, start, end in self._matcher(keyed.doc)
            if not _crosses_a_period(doc, pos[start], pos[end - 1])
        ]
        if limit is not None:
            spans = [s for s in spans if s.end_char <= limit]
        spans = sorted(filter_spans(spans), key=lambda s: (s.start, s.end))
        return [(span, self._groups[int(span.label_[1:])]) for span in spans]

    def phrases(self, text: str, sentences: Sequence[tuple[int, int]]) -> list[tuple[TargetTerm, PhraseFind]]:
        """Query terms found with their words split or reordered in one clause, per sentence
        (start, end) of a note text; a droppable word is left out only where the whole term is
        found in no sentence of this text, and then leading words the note names earlier with
        their noun (nlp/phrases.py `named_at`), fewest first."""
        if self._stems is None or self._bag is None or not self._phrases:
            return []
        stems, bag_of = self._stems, self._bag
        lower = text.lower()
        bags: list[frozenset[str]] = []

        def search(slots: PhraseSlots) -> list[PhraseFind]:
            # Most notes lack some slot's word: a cheap substring test first (`Stems.cues`).
            if not all(any(cue in lower for cue in stems.cues(slot)) for slot in slots.slots):
                return []
            if not bags:
                bags.extend(bag_of(text[s:e]) for s, e in sentences)
            return [f for (s, e), bag in zip(sentences, bags, strict=True) if all(slot & bag for slot in slots.slots)
                    for f in find_phrases(text[s:e], slots, stems, s)]

        out: list[tuple[TargetTerm, PhraseFind]] = []
        for term, slots, without, splits in self._phrases:
            found = search(slots)
            if not found and without is not None:
                found = search(without)
            for split in splits if not found else ():
                found = [replace(f, dropped=split.dropped, named=named) for f in search(split.rest)
                         if (named := named_at(text, f.pieces, split, stems)) is not None]
                if found:
                    break
            out.extend((term, f) for f in found)
        return out

    def terms_for(self, literal: str) -> tuple[TargetTerm, ...] | None:
        """The terms whose literal is this text (case, spacing and inflection ignored), if any."""
        found = self._by_literal.get(_normalize_literal(literal))
        if found is not None:
            return found
        words = tuple(self._wordforms.term_words([t.text for t in self._tokenizer(literal.lower())]))
        return self._by_key.get(words)

    def abbreviated(self, doc: Doc, uses: Sequence[AbbreviationUse]) -> list[tuple[Span, tuple[TargetTerm, ...]]]:
        """Uses of short forms the note itself defines for a term ("acute kidney injury (AKI)"
        makes a later "AKI" a mention of that term), as token-aligned spans."""
        out = []
        for use in uses:
            terms = self.terms_for(use.long)
            if terms is None:
                continue
            span = doc.char_span(use.start, use.end)
            if span is not None:
                out.append((span, terms))
        return out
