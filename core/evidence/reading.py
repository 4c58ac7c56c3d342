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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from medeventgraph.core.evidence.grounding import term_pattern
from medeventgraph.core.query.lexicon import ExpandedTerm, normalize_text
from medeventgraph.core.query.model import EventSpec

__all__ = ["HistoryReading", "historical_display"]

_HISTORY_CUE = re.compile(r"\b(history of|past history of|h/o|hx of)\s+$")
_HISTORY_ASKED = re.compile(r"\b(history of|h/o|hx of)\b")


def _asks_history(event: EventSpec) -> bool:
    """The question names the history itself ("past history of miscarriage")."""
    return bool(event.text) and bool(_HISTORY_ASKED.search(normalize_text(event.text or "")))


def _pattern(event: EventSpec, expanded: ExpandedTerm | None) -> re.Pattern[str] | None:
    if event.hidden or not event.text or _asks_history(event):
        return None
    return term_pattern([normalize_text(event.text), *(expanded.terms if expanded is not None else ())])


def _reads_historical(pattern: re.Pattern[str] | None, displays: Iterable[str]) -> bool:
    if pattern is None:
        return False
    text = " | ".join(displays)
    found = pattern.search(text)
    return found is not None and bool(_HISTORY_CUE.search(text[: found.start()]))


def historical_display(displays: Iterable[str], event: EventSpec, expanded: ExpandedTerm | None) -> bool:
    """Does an item with these (normalised) displays name `event` only as its history?"""
    return _reads_historical(_pattern(event, expanded), displays)


@dataclass
class HistoryReading:
    """`historical_display` for one query's events, each event's pattern compiled once and each
    distinct display read once (records repeat a few hundred displays thousands of times)."""

    events: dict[str, EventSpec]
    expansion: Callable[[EventSpec], ExpandedTerm | None]
    _patterns: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    _read: dict[tuple[str, tuple[str, ...]], bool] = field(default_factory=dict)

    def historical(self, displays: tuple[str, ...], events: Iterable[str]) -> bool:
        return any(self._one(e, displays) for e in events)

    def _one(self, event_id: str, displays: tuple[str, ...]) -> bool:
        key = (event_id, displays)
        if key not in self._read:
            if event_id not in self._patterns:
                event = self.events[event_id]
                self._patterns[event_id] = _pattern(event, self.expansion(event))
            self._read[key] = _reads_historical(self._patterns[event_id], displays)
        return self._read[key]
