"""Abbreviations a note defines ("contrast-induced nephropathy (CIN)"), found by scispacy's
`AbbreviationDetector` (Schwartz & Hearst 2003; a rule matcher, no model needed), so that later
uses of the short form count as mentions of the long form's concept.

scispacy's own parenthesis pattern (`"(" + any tokens + ")"`) yields a match for every pair of
brackets in a note, which grows with the square of their number; it is replaced here by one
that spans at most eight tokens and no bracket (scispacy ignores longer candidates anyway).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scispacy.abbreviation import AbbreviationDetector
from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc

from .doc_text import doc_text

__all__ = ["AbbreviationUse", "add_abbreviation_detector", "doc_abbreviations"]


@dataclass(frozen=True, slots=True)
class AbbreviationUse:
    """A use of a short form at characters [start, end) that stands for `long` (as written)."""

    start: int
    end: int
    short: str
    long: str


_CANDIDATE = re.compile(r"\(\s*[^()\s]{0,9}[A-Z][^()\s]{0,9}\s*\)|\b[A-Z][A-Za-z0-9]{1,9}\s*\(")


@Language.factory("medeventgraph_abbreviations")
def make_abbreviation_detector(nlp, name):
    """scispacy's detector, run only on notes with a candidate definition: brackets holding a
    short word with a capital ("(AKI)", "(Hb)"), or a capital short form before brackets ("CIN
    (contrast-induced nephropathy)"). Most notes have none (Synthea's "(disorder)" tags are not
    candidates), and the detector runs two token matchers over every note it sees."""
    detector = _abbreviation_detector(nlp)

    def detect(doc: Doc) -> Doc:
        return detector(doc) if _CANDIDATE.search(doc_text(doc)) else doc

    detect.detector = detector  # type: ignore[attr-defined]
    return detect


def add_abbreviation_detector(nlp: Language) -> None:
    nlp.add_pipe("medeventgraph_abbreviations")


def _abbreviation_detector(nlp: Language) -> AbbreviationDetector:
    detector = AbbreviationDetector(nlp)
    bounded = Matcher(nlp.vocab)
    inner = {"ORTH": {"NOT_IN": ["(", ")"]}, "OP": "{1,8}"}
    bounded.add("parenthesis", [[{"ORTH": "("}, inner, {"ORTH": ")"}]], greedy="LONGEST")
    detector.matcher = bounded
    # A pattern that never matches keeps spaCy from warning (W036) on every note that defines
    # nothing; scispacy adds and removes its per-note short forms around it.
    detector.global_matcher.add("medeventgraph_never", [[{"ORTH": "\x00"}]])
    return detector


def doc_abbreviations(doc: Doc) -> tuple[AbbreviationUse, ...]:
    """Uses of defined short forms in text order, leaving out the definition itself (the short
    form in brackets right after its long form) and uses inside a longer word ("pre-CIN")."""
    out = []
    if not doc.has_extension("abbreviations"):
        return ()
    for short in doc._.abbreviations:
        long = short._.long_form
        if long is None:
            continue
        if short.start >= long.end and short.start - long.end <= 2:
            continue  # "long form (SF)": the definition
        if short.end <= long.start and long.start - short.end <= 2:
            continue  # "SF (long form)"
        before = doc[short.start - 1] if short.start > 0 else None
        after = doc[short.end] if short.end < len(doc) else None
        if (before is not None and not before.whitespace_ and before.text == "-") or (
                after is not None and not short[-1].whitespace_ and after.text == "-"):
            continue
        out.append(AbbreviationUse(short.start_char, short.end_char, short.text, long.text))
    return tuple(sorted(out, key=lambda u: (u.start, u.end)))
