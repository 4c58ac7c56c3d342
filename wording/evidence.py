"""Evidence entries as a clinician reads them: a human date, the source's own words (a row's
concept and value, or a note's sentence with the mention picked out) and the FHIR reference.

The pieces are kept apart (`before`, `mention`, `after`) so markdown can bold the mention and
HTML can mark it without either parsing the other's markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from medeventgraph.core import EvidenceOut, Verdict
from medeventgraph.wording.computed import computed_value, is_computed
from medeventgraph.wording.templates import Wording
from medeventgraph.wording.times import item_when, when_text

__all__ = ["EvidenceLine", "deciding_lines", "evidence_line", "markdown_lines"]

_INTERPRETATION = {"H": "high", "HH": "critically high", "L": "low", "LL": "critically low", "N": "normal",
                   "A": "abnormal"}
_SENTENCE_CHARS = 320
_CUE = re.compile(r"\(stated: '(.+)'\)\s*$")
# How a note relates two events (core.stated's rule kinds), as the evidence line's label.
_RELATION_LABELS = {"relation:told-in-order": "Note tells them in this order",
                    "relation:history-before-episode": "Note tells one as past history",
                    "relation:earlier-section": "Note tells them in this order",
                    "relation:both-current": "Note tells both as current",
                    "relation:past-before-present": "Note tells one as past history",
                    "relation:counted-times": "Note times each event"}
_BASIS = re.compile(r"\(((?:told|dated) [^()]*)\)\s*$")


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    occurrence: str
    polarity: str  # supports | counters | neutral
    when: str  # "3 Feb 2015 14:05", "by 5 Feb 2015 09:00 (note date)"
    label: str  # "Diagnosis", "Medication given", "Note"
    before: str
    mention: str
    after: str
    qualifiers: tuple[str, ...]  # "stated as absent", "family history", ...
    reference: str  # "Condition/123"
    span: str  # "characters 120–139" for a note mention, else ""
    is_note: bool
    sort_key: str  # ISO time for newest-first ordering ("" when unknown)

    @property
    def words(self) -> str:
        return f"{self.before}{self.mention}{self.after}"


def _value(item: EvidenceOut) -> str:
    v = item.value or {}
    text = ""
    if v.get("quantity") is not None:
        text = f"{v['quantity']:g} {v.get('unit') or ''}".strip()
    elif v.get("text"):
        text = str(v["text"])
    interp = _INTERPRETATION.get(str(v.get("interpretation") or ""), "")
    return f"{text} ({interp})" if text and interp else text


def _split(sentence: str, mention: str) -> tuple[str, str, str]:
    text = " ".join(sentence.split())
    i = text.lower().find(mention.lower()) if mention else -1
    if i < 0:
        return _trim(text, None), "", ""
    before, found, after = text[:i], text[i:i + len(mention)], text[i + len(mention):]
    room = max(_SENTENCE_CHARS - len(found), 40)
    if len(before) > room // 2:
        before = "…" + before[-(room // 2):].lstrip()
    if len(after) > room // 2:
        after = after[: room // 2].rstrip() + "…"
    return before, found, after


def _trim(text: str, limit: int | None) -> str:
    limit = limit or _SENTENCE_CHARS
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def evidence_line(item: EvidenceOut, w: Wording) -> EvidenceLine:
    when = item_when(item)
    # A finding computed from values a note states (core.derive) cites the note's span but has no
    # sentence of its own: it reads as a finding with its value, not as a quotation.
    from_note_values = item.origin == "derived" and item.source.start is not None
    is_note = not from_note_values and (item.origin == "note" or item.source.start is not None)
    qualifiers = tuple(w.assertion_words.get(k, k) for k, on in item.assertion.items() if on)
    rtype = item.source.reference.split("/", 1)[0]
    if item.kind == "relation" and item.basis and item.basis[0] in _RELATION_LABELS:
        # where the note places the two (the order of telling, its past history): the two sentences,
        # and in words where the order came from ("told in this order in the hospital course")
        told = _BASIS.search(item.concept)
        label = f"{_RELATION_LABELS[item.basis[0]]} ({told.group(1)})" if told else _RELATION_LABELS[item.basis[0]]
        before, mention, after = _trim(" ".join(item.context.split()), None), "", ""
    elif item.kind == "relation":  # an order a note states in words (core.stated): the cue in bold
        cue = _CUE.search(item.concept)
        label = "Note states the order"
        before, mention, after = _split(item.context, cue.group(1) if cue else "")
    elif is_note:
        label = "Note"
        before, mention, after = _split(item.context, item.concept)
    else:
        # a computed finding says so in its label, and shows the values it was computed from
        kind = "note values" if from_note_values else ("derived" if is_computed(item) else rtype)
        label = w.resource_labels.get(kind, rtype)
        value = (computed_value(item) if is_computed(item) else "") or _value(item)
        before, mention, after = "", " ".join(item.concept.split()) or "(no name)", f", {value}" if value else ""
    span = ""
    if item.source.start is not None and item.source.end is not None:
        span = f"characters {item.source.start}–{item.source.end}"
    shown = f"by {when_text(when).removeprefix('note of ')} (note date)" if when and when.bound else when_text(when)
    if item.kind == "relation":
        shown = "in the note's words"  # an order is not an event: it has no time of its own
    return EvidenceLine(item.occurrence, item.polarity, shown, label, before, mention, after,
                        qualifiers, item.source.reference, span, is_note, when.start.isoformat() if when else "")


def deciding_lines(verdict: Verdict, deciding: tuple[str, ...], w: Wording, *,
                   limit: int) -> tuple[list[EvidenceLine], int]:
    """The deciding entries newest first (at most `limit`), and how many other entries there are."""
    by_id = {e.occurrence: e for e in verdict.evidence}
    lines = [evidence_line(by_id[o], w) for o in deciding if o in by_id]
    lines.sort(key=lambda ln: ln.sort_key, reverse=True)
    shown = lines[:limit]
    return shown, len(verdict.evidence) - len(shown)


def _md_escape(text: str) -> str:
    """Record text as inert markdown on one line."""
    text = re.sub(r"\s+", " ", text).replace("\\", "\\\\")
    for ch in "`*_[]<>#|":
        text = text.replace(ch, "\\" + ch)
    return text


def _md_line(ln: EvidenceLine) -> list[str]:
    ref = f"`{ln.reference}`" + (f" {ln.span}" if ln.span else "")
    quals = f" ({', '.join(ln.qualifiers)})" if ln.qualifiers else ""
    mention = f"**{_md_escape(ln.mention)}**" if ln.mention else ""
    words = f"{_md_escape(ln.before)}{mention}{_md_escape(ln.after)}"
    if ln.is_note:
        return [f"- **{ln.when}** · {ln.label}{quals} · {ref}", f"  > {words}"]
    return [f"- **{ln.when}** · {ln.label}: {words}{quals} · {ref}"]


def markdown_lines(lines: list[EvidenceLine], w: Wording) -> list[str]:
    out: list[str] = []
    for polarity in ("supports", "counters", "neutral"):
        group = [ln for ln in lines if ln.polarity == polarity]
        if group:
            out += ["", f"**{w.group_titles[polarity]}** (newest first):"]
            for ln in group:
                out += _md_line(ln)
    return out
