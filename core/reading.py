"""How an item reads for a query event, re-derived by the contract from the item and the query.

A row whose display names the event only as a history ("History of myocardial infarction
(situation)") records a past condition, not an event at the row's own time: the item reads
historical, so it cannot ground "vancomycin before myocardial infarction". Unless the question
is about the history itself ("... before the history of myocardial infarction"): then the
display is exactly what was asked for. Nothing discovery says about an item enters this.

The rule is the one grounding applies when it nominates (core.grounding): the first place a
term of the event's lexicon expansion occurs in the item's displays, preceded by a history cue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from medeventgraph.core.grounding import term_pattern
from medeventgraph.core.lexicon import ExpandedTerm, normalize_text
from medeventgraph.core.query import EventSpec

__all__ = ["asks_history", "historical_display"]

_HISTORY_CUE = re.compile(r"\b(history of|past history of|h/o|hx of)\s+$")
_HISTORY_ASKED = re.compile(r"\b(history of|h/o|hx of)\b")


def asks_history(event: EventSpec) -> bool:
    """The question names the history itself ("past history of miscarriage")."""
    return bool(event.text) and bool(_HISTORY_ASKED.search(normalize_text(event.text or "")))


def historical_display(displays: Iterable[str], event: EventSpec, expanded: ExpandedTerm | None) -> bool:
    """Does an item with these (normalised) displays name `event` only as its history?"""
    if event.hidden or not event.text or asks_history(event):
        return False
    terms = [normalize_text(event.text), *(expanded.terms if expanded is not None else ())]
    text = " | ".join(displays)
    found = term_pattern(terms).search(text)
    return found is not None and bool(_HISTORY_CUE.search(text[: found.start()]))
