"""Section detection: medspaCy's Sectionizer with our heading rules, read back as plain spans."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc

from .rules import TITLE_END, section_rules

__all__ = ["SectionSpan", "add_sectionizer", "doc_sections"]


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """A section in character offsets: its heading [title_start, title_end) and body up to `end`."""

    category: str | None
    title_start: int
    title_end: int
    end: int


def add_sectionizer(nlp: Language) -> None:
    """Headings must start a line (or be run in, see `starts_a_heading`); header and body start
    new sentences; no span attributes."""
    sectionizer = nlp.add_pipe(
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
    sectionizer.filter_start_lines = lambda doc, matches: [m for m in matches if starts_a_heading(doc, m[1], m[2])]


_RUN_IN_AFTER = frozenset({",", ".", ";", ":"})
_TITLE_END = re.compile(TITLE_END)


def starts_a_heading(doc: Doc, start: int, end: int) -> bool:
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
