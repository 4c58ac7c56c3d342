"""Two mentions that both hold when the note is written: an overlap read from the note's present.

A note tells some events as its story (a history, a hospital course) and others as the state of
the patient at the time of writing: the assessment's problems, the examination's findings, the
labs on the chart, the medications the patient is on, and any clause that says so ("is on
Coumadin", "remains on the ventilator", "currently receiving TPN"). Two affirmed mentions that
both hold at the time of writing hold together: their intervals intersect at that time. That is
an `overlaps` relation, and only that: it says nothing about which began first.

A mention's sentence that tells past events, steps back in time or states a time of its own is
not the present, whatever its section ("Assessment: she was treated for pneumonia in 2019").
Pure functions of the note text (resources/present_state_rules.json), so the evidence contract
re-reads every placement from the text; whether each mention is affirmed, certain and current is
the contract's to check from the items (core/evidence/stated.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from medeventgraph.model.packaged import packaged_built

from .narrative import NoteLayout, Placement, lead_cue, note_layout
from .rules import load_section_specs

__all__ = ["BOTH_CURRENT", "both_current", "present_basis"]

BOTH_CURRENT = "both-current"


@dataclass(frozen=True, slots=True)
class _PresentRules:
    roles: frozenset[str]  # sections that state the patient's present (assessment, examination, labs ...)
    words: re.Pattern[str]  # words right before a mention that state it holds now ("is on", "remains on")
    reach: int  # characters before a mention the present words may stand
    past: re.Pattern[str]  # a sentence that tells the past: its mentions are not the present, whatever the section
    perfect: re.Pattern[str]  # "has had", "has been taking": with `lasting`, a state lasting up to now
    lasting: re.Pattern[str]  # "for the past 2 days", "since": how long it has lasted (group 'cue')
    complaint: re.Pattern[str]  # "reports 2 days of": a present complaint with its duration (group 'cue')


@cache
def _rules() -> _PresentRules:
    return packaged_built("medeventgraph.nlp", "present_state_rules.json", _build)


def _build(raw: dict) -> _PresentRules:
    known = {s.category for s in load_section_specs()}
    roles = frozenset(str(r) for r in raw["present_roles"])
    if roles - known:
        raise ValueError(f"present_state_rules.json: unknown section roles {sorted(roles - known)}")
    words = "|".join(f"(?:{w})" for w in raw["present_words"])
    # The words, then at most a few words of the mention's own phrase, and no clause break.
    pattern = re.compile(rf"\b(?P<cue>{words})\b(?:\s+(?!and\b|but\b|was\b|were\b|had\b)[\w/'-]+){{0,{int(raw['words_between'])}}}\s*$",
                         re.IGNORECASE)
    past = re.compile("|".join(f"(?:{w})" for w in raw["past_words"]), re.IGNORECASE)
    return _PresentRules(roles, pattern, int(raw["reach"]), past, *(re.compile(raw[k], re.IGNORECASE)
                                                                     for k in ("perfect", "lasting", "complaint")))


@lru_cache(maxsize=4096)  # every pair of mentions asks again of the same sentences, and the contract after it
def _lasting(sentence: str) -> tuple[int, int] | None:
    """Where a sentence tells a state lasting up to the time of writing ("has had fever for 2
    days", "reports 2 days of fever"): its duration's span, None when it tells none or tells
    the past besides."""
    rules = _rules()
    complaint = rules.complaint.search(sentence)
    perfect = None if complaint else rules.perfect.search(sentence)
    lasting = complaint or (rules.lasting.search(sentence) if perfect else None)
    if lasting is None:
        return None
    rest = sentence
    for told in (m for m in (perfect, lasting) if m is not None):
        rest = rest[:told.start()] + " " * (told.end() - told.start()) + rest[told.end():]
    return None if rules.past.search(rest) else lasting.span("cue")


def present_basis(text: str, span: tuple[int, int], layout: NoteLayout | None = None) -> tuple[int, int] | None:
    """What states that the mention at `span` holds when the note is written: the present words
    before it ("is on"), else its sentence's duration of a state lasting until now ("for the past
    2 days"), else the title of the present-state section it stands in; None when the
    note tells it as past, or says nothing of its present."""
    layout = layout or note_layout(text)
    rules = _rules()
    index = layout.sentence_at(span[0])
    if index is None:
        return None
    sentence = layout.sentences[index]
    cue = lead_cue(text, layout, span, rules.words, rules.reach)
    if cue is not None:
        return cue
    lasting = _lasting(text[sentence.start:sentence.end])
    if lasting is not None:
        return sentence.start + lasting[0], sentence.start + lasting[1]
    if rules.past.search(text[sentence.start:sentence.end]) or layout.role(index) not in rules.roles:
        return None
    heading = layout.sections[sentence.section]
    return heading.title_start, heading.title_end


def both_current(text: str, a: tuple[int, int], b: tuple[int, int]) -> Placement | None:
    """Both mentions hold when the note is written (an overlap); the cue is the later-told
    mention's basis (its present words, or its section's title). None unless both hold."""
    if a == b:
        return None
    layout = note_layout(text)
    basis_a, basis_b = present_basis(text, a, layout), present_basis(text, b, layout)
    if basis_a is None or basis_b is None:
        return None
    first, second = sorted((a, b))
    cue = basis_b if second == b else basis_a
    return Placement(first, second, cue[0], cue[1], BOTH_CURRENT)
