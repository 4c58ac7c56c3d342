"""Retrieval policies and replanning: what to search next after a structured failure.

A policy only changes *what is retrieved* (window, channels, episode links, synonyms, how
many hits per channel). It never touches the contract or the assessor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from medeventgraph.core.query.verdict import FailureType

MAX_HITS = 200  # most results one channel query may ask for, whatever replanning does

__all__ = ["CHANNELS", "DEFAULT_EDITS", "MAX_HITS", "Policy", "apply_edits", "initial_policy", "replan"]

CHANNELS = ("lexical", "metadata", "dense")


@dataclass(frozen=True, slots=True)
class Policy:
    window_hours: float = 72.0  # metadata channel: time window around the anchors
    channels: tuple[str, ...] = ("lexical", "metadata")
    follow_episode: bool = False  # widen scope units to the anchors' episodes
    synonyms: bool = True  # lexical queries use lexicon synonyms, not only the query words
    hits: int = 24  # results per channel query
    note_mentions: bool = False  # search notes for the query's own words

    def describe(self) -> dict[str, object]:
        return {
            "window_hours": self.window_hours,
            "channels": list(self.channels),
            "follow_episode": self.follow_episode,
            "synonyms": self.synonyms,
            "hits": self.hits,
            "note_mentions": self.note_mentions,
        }


def initial_policy(channel_order: tuple[str, ...] | None = None, dense: bool = False) -> Policy:
    channels = tuple(c for c in (channel_order or CHANNELS) if c != "dense" or dense)
    return Policy(channels=channels)


# The replanning table: failure -> policy edits (written by hand; T11 in results/EVAL.md measures it
# against replanning without failure-specific edits).
DEFAULT_EDITS: dict[FailureType, dict[str, object]] = {
    FailureType.MISSING_ENDPOINT: {"add_channel": "dense", "note_mentions": True, "widen": 4.0, "more_hits": 2},
    FailureType.UNRESOLVED_TIME: {"follow_episode": True, "widen": 2.0, "note_mentions": True},
    FailureType.SCOPE: {"follow_episode": True, "widen": 2.0},
    FailureType.UNRESOLVED_TRANSITION: {"follow_episode": True, "widen": 3.0, "more_hits": 2},
    FailureType.NEGATED: {"more_hits": 2, "note_mentions": True},
    FailureType.OPPOSITE_ORDER: {"widen": 2.0, "more_hits": 2},
    FailureType.WINDOW: {"widen": 1.5},
}


def apply_edits(policy: Policy, edits: Mapping[str, object], dense_ok: bool) -> Policy:
    out = policy
    if "widen" in edits:
        out = replace(out, window_hours=min(24.0 * 365, out.window_hours * float(edits["widen"])))  # type: ignore[arg-type]
    if "more_hits" in edits:
        out = replace(out, hits=min(MAX_HITS, out.hits * int(edits["more_hits"])))  # type: ignore[call-overload]
    channel = edits.get("add_channel")
    usable = isinstance(channel, str) and channel in CHANNELS and (channel != "dense" or dense_ok)
    if usable and channel not in out.channels:
        out = replace(out, channels=(*out.channels, str(channel)))
    if "follow_episode" in edits:
        out = replace(out, follow_episode=bool(edits["follow_episode"]))
    if "synonyms" in edits:
        out = replace(out, synonyms=bool(edits["synonyms"]))
    if "note_mentions" in edits:
        out = replace(out, note_mentions=bool(edits["note_mentions"]))
    return out


def replan(
    policy: Policy,
    failure: FailureType,
    *,
    dense_ok: bool,
    table: Mapping[FailureType, Mapping[str, object]] | None = None,
) -> Policy:
    """The next policy for a failure, from `table` (DEFAULT_EDITS when None)."""
    edits = (DEFAULT_EDITS if table is None else table).get(failure) or {"widen": 2.0}
    new = apply_edits(policy, edits, dense_ok)
    if new == policy:  # nothing left to change on this axis: widen anyway so a retry differs
        new = apply_edits(policy, {"widen": 2.0, "more_hits": 2}, dense_ok)
    return new
