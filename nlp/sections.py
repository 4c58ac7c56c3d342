"""Section detection: medspaCy's Sectionizer with our heading rules, read back as plain spans."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from .rules import TITLE_END, section_assertion_kinds, section_assertions, section_rules, stated_done_pattern

__all__ = ["SectionSpan", "add_sectionizer", "doc_sections", "section_flags_for", "sentence_section_flags"]


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """A section in character offsets: its heading [title_start, title_end) and body up to `end`."""

    category: str | None
    title_start: int
    title_end: int
    end: int


def add_sectionizer(nlp: Language) -> None:
    """Headings must start a line (or be run in, see `_starts_a_heading`); header and body start
    new sentences; no span attributes."""
    sectionizer: Any = nlp.add_pipe(  # medspaCy's Sectionizer; add_pipe is typed as a bare callable
        "medspacy_sectionizer",
        config={
            "rules": None,
            "require_start_line": True,
            "span_attrs": None,
            "apply_sentence_boundary": True,
        },
    )
    sectionizer.add(section_rules())
    # The sectionizer's start-of-line filter, widened to run-in capital headings.
    sectionizer.filter_start_lines = lambda doc, matches: [m for m in matches if _starts_a_heading(doc, m[1], m[2])]


_RUN_IN_AFTER = frozenset({",", ".", ";", ":"})
_RUN_ON = frozenset({"of"})  # a word that ties a title to what follows: not a heading
_TITLE_END = re.compile(TITLE_END)


def _starts_a_heading(doc: Doc, start: int, end: int) -> bool:
    """A heading is a title ending in ':', '-' or a line break that starts a line; a title in
    capitals may also run into its text ('FAMILY HISTORY Negative'). A title in capitals ending
    in ':' right after a comma, full stop, colon or a run of spaces is a heading too: MTSamples and
    other exports flatten line breaks ("... no rashes.,PAST MEDICAL HISTORY: , Asthma.")."""
    title = doc[start:end]
    words = [t.text for t in title if t.is_alpha]
    capitals = bool(words) and all(w.isupper() for w in words)
    ended = _TITLE_END.match(title[-1].text) is not None and not title[-1].is_alpha
    if not ended and not capitals and title[0].text != "#":
        return False
    if not ended and end < len(doc) and doc[end].lower_ in _RUN_ON:
        return False  # "HISTORY OF GIANT CELL ARTERITIS.": the title's word begins a phrase
    if start == 0 or "\n" in doc[start - 1].text or "\r" in doc[start - 1].text:
        return True
    if not capitals or title[-1].text != ":":
        return False
    before = doc[start - 1]
    if before.is_space:
        # A run of spaces is where dictated reports put line breaks once flattened ("…LATERAL
        # HISTORY:  PNEUMONIA"): spaCy keeps a single space on the word, so this token is 2+.
        return True
    return before.text in _RUN_IN_AFTER


def doc_sections(doc: Doc) -> tuple[SectionSpan, ...]:
    """The sections the sectionizer found, as character spans in document order."""
    out = []
    for section in doc._.sections:
        t0, t1 = section.title_span
        b1 = section.body_span[1]
        title_start = doc[t0].idx if t1 > t0 else (doc[t0].idx if t0 < len(doc) else len(doc.text))
        title_end = doc[t1 - 1].idx + len(doc[t1 - 1]) if t1 > t0 else title_start
        end = doc[b1 - 1].idx + len(doc[b1 - 1]) if b1 > 0 else 0
        out.append(SectionSpan(section.category, title_start, title_end, end))
    return tuple(out)


_LIST_ITEM = re.compile(r"(?:[-*\u2022+]|\d{1,3}[.)])\s")


def sentence_section_flags(sentences: Sequence[tuple[str | None, bool, str]]) -> tuple[frozenset[str], ...]:
    """The ConText flags each sentence (section category, is a heading, text) gets from its
    section. In a section that makes its mentions hypothetical (a plan), a sentence stating
    what was done ('The patient was prescribed the following medications:') and the list items
    right after it are facts: they keep the section's other flags only."""
    by_section = section_assertions()
    done = stated_done_pattern()
    out: list[frozenset[str]] = []
    stated = False  # inside a statement of what was done and its list
    previous: str | None = None
    for section, is_heading, text in sentences:
        flags = by_section.get(section or "", frozenset())
        if is_heading or section != previous:
            stated = False
        previous = section
        if "hypothetical" in flags and not is_heading:
            if done.search(text):
                stated = True
            elif not _LIST_ITEM.match(text):
                stated = False
            if stated:
                flags = flags - {"hypothetical"}
        out.append(flags)
    return tuple(out)


def section_flags_for(section: str | None, flags: frozenset[str], kind: str | None) -> frozenset[str]:
    """A sentence's section flags as they hold for a mention of target type `kind`: a section
    whose flags are for some types only (section_rules.json 'assertion_kinds') gives the others
    none; an unknown type (None) gets them all."""
    kinds = section_assertion_kinds().get(section or "")
    if kinds is None or kind is None or kind in kinds:
        return flags
    return frozenset()
