"""Target terms supplied by the caller, and the medspaCy TargetMatcher built from them.

Terms come from three places (the caller decides; nlp never imports core): lexicon entries,
displays of concepts in the patient's structured record, and the query's event texts. Terms
with the same normalised literal share one matcher rule; when several terms claim one span,
the first in the caller's order wins and the others are reported as alternatives.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from medeventgraph.occurrence import Kind
from medspacy.common.medspacy_matcher import MedspacyMatcher
from medspacy.target_matcher import TargetRule
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from .abbreviations import find_definitions, short_form_uses

__all__ = ["TargetTerm", "TermMatcher", "normalize_literal", "terms_from_display"]

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


def normalize_literal(text: str) -> str:
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


class TermMatcher:
    """Finds the terms' literals in processed docs (case-insensitive, token-aligned)."""

    def __init__(self, nlp: Language, terms: Sequence[TargetTerm]) -> None:
        groups: dict[str, list[TargetTerm]] = {}
        for term in terms:
            key = normalize_literal(term.literal)
            if _usable(key):
                groups.setdefault(key, []).append(term)
        self._groups: list[tuple[TargetTerm, ...]] = [tuple(g) for g in groups.values()]
        self._by_literal = {key: tuple(g) for key, g in groups.items()}
        # medspaCy's TargetMatcher runs this same matcher but also writes span._.target_rule into the
        # (cached) doc's user_data; calling the matcher directly keeps cached docs untouched.
        self._matcher = MedspacyMatcher(nlp, name="medeventgraph_targets", phrase_matcher_attr="LOWER", prune=True)
        self._matcher.add([TargetRule(literal, f"T{i}") for i, literal in enumerate(groups)])
        self._vocab = nlp.vocab

    def __call__(self, doc: Doc, *, limit: int | None = None) -> list[tuple[Span, tuple[TargetTerm, ...]]]:
        """Non-overlapping matches (longest wins) in text order, each with its terms in caller order."""
        if not self._groups:
            return []
        with warnings.catch_warnings():  # W036: literal-only rules leave the token Matcher empty
            warnings.filterwarnings("ignore", message=r"\[W036\]")
            found = self._matcher(doc)
        spans = [
            Span(doc, start, end, label=self._matcher.rule_map[self._vocab.strings[match_id]].category)
            for match_id, start, end in found
        ]
        if limit is not None:
            spans = [s for s in spans if s.end_char <= limit]
        spans = sorted(filter_spans(spans), key=lambda s: (s.start, s.end))
        return [(span, self._groups[int(span.label_[1:])]) for span in spans]

    def terms_for(self, literal: str) -> tuple[TargetTerm, ...] | None:
        """The terms whose literal is this text (case and spacing ignored), if any."""
        return self._by_literal.get(normalize_literal(literal))

    def abbreviated(self, doc: Doc) -> list[tuple[Span, tuple[TargetTerm, ...]]]:
        """Uses of short forms the note itself defines for a term ("acute kidney injury (AKI)"
        makes a later "AKI" a mention of that term), as token-aligned spans."""
        out = []
        for definition in find_definitions(doc.text):
            terms = self.terms_for(definition.long)
            if terms is None:
                continue
            for start, end in short_form_uses(doc.text, definition):
                span = doc.char_span(start, end)
                if span is not None:
                    out.append((span, terms))
        return out

    @staticmethod
    def cache_key(terms: Iterable[TargetTerm]) -> tuple[TargetTerm, ...]:
        return tuple(terms)
