"""Copied-forward text: link repeated sentences across a patient's notes to the earliest one.

Two rules, both deterministic:
- a whole note text repeated in another document (same content hash: Synthea writes each note
  as a DocumentReference and a DiagnosticReport.presentedForm) copies every mention;
- a sentence of at least `min_words` words whose normalised text (case, spacing, punctuation
  and bullets ignored) appeared in an earlier note of the same patient is copied.
The origin is the mention of the same concept, at the same rank within the sentence, in the
earliest note (by documentation time, then DocumentReference first, then id). Mentions in the
origin note itself are never copies, and short sentences ("- Cough") are not linked on their
own: a repeated chief complaint may be a new complaint.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MentionKey", "link_copies", "normalize_sentence"]

_NON_WORD = re.compile(r"[\W_]+")


def normalize_sentence(text: str) -> str:
    return _NON_WORD.sub(" ", text.lower()).strip()


@dataclass(frozen=True, slots=True)
class MentionKey:
    """What copy detection needs to know about one mention."""

    occurrence_id: str
    patient: str
    note: tuple  # sortable order key of the note text (date, type rank, reference, attachment)
    note_id: str  # "<reference>#a<k>": mentions of one note text are never copies of each other
    text_hash: str
    sentence: str  # normalised sentence
    concept: str
    rank: int  # index among mentions of this concept in this sentence


def link_copies(mentions: Sequence[MentionKey], min_words: int = 4) -> dict[str, str]:
    """occurrence id -> origin occurrence id, for every mention that is a copy."""
    ordered = sorted(mentions, key=lambda m: (m.note, m.occurrence_id))
    first_text: dict[tuple[str, str], str] = {}  # (patient, text hash) -> note_id of first note
    origin_by_text: dict[tuple[str, str, str, str, int], str] = {}
    origin_by_sentence: dict[tuple[str, str, str, int], tuple[str, str]] = {}
    links: dict[str, str] = {}
    for m in ordered:
        note_first = first_text.setdefault((m.patient, m.text_hash), m.note_id)
        text_key = (m.patient, m.text_hash, m.sentence, m.concept, m.rank)
        if note_first != m.note_id:
            origin = origin_by_text.get(text_key)
            if origin is not None:
                links[m.occurrence_id] = origin
                continue
        else:
            origin_by_text.setdefault(text_key, m.occurrence_id)
        if len(m.sentence.split()) < min_words:
            continue
        sent_key = (m.patient, m.sentence, m.concept, m.rank)
        seen = origin_by_sentence.get(sent_key)
        if seen is None:
            origin_by_sentence[sent_key] = (m.occurrence_id, m.note_id)
        elif seen[1] != m.note_id:
            links[m.occurrence_id] = seen[0]
    for occurrence_id, origin in links.items():  # point every copy at the root origin
        hops = 0
        while origin in links and hops < len(links):
            origin, hops = links[origin], hops + 1
        links[occurrence_id] = origin
    return links
