"""What a method is handed (Case) and what only the scorer sees (Gold), kept apart.

A Case carries the query, the patient and a Variant (how to derive the input record); it
has no field that states or implies the answer. Gold lives in a separate mapping keyed by
case id, written by the protocol rules and read only by `metrics`/`report`.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from medeventgraph.core.query.model import VerificationQuery

__all__ = ["Case", "Gold", "Variant", "case_id", "render_query"]


@dataclass(frozen=True)
class Variant:
    """How the input record differs from the patient's record: None (as recorded),
    'mask_event' / 'mask_time' (T5), 'distractor' (T6). Params name events, never labels."""

    kind: str
    params: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def key(self) -> str:
        return self.kind + ":" + hashlib.sha1(repr(self.params).encode()).hexdigest()[:10]


@dataclass(frozen=True)
class Case:
    id: str
    protocol: str  # T3, T5, T6, T9, T10
    dataset: str
    patient: str  # corpus key "dataset:patient-id"
    query: VerificationQuery
    variant: Variant | None = None


@dataclass(frozen=True)
class Gold:
    """The held-out answer and what scoring needs; never passed to a method."""

    binary: str  # "supported" | "not_supported"
    expected: str  # four-way: supported | refuted | insufficient
    scope: str
    family: str  # plain | window | mask_event | mask_time | chain | hidden | stratum name
    pair: str  # links a positive to the negative perturbed from it
    contexts: tuple[str, ...] = ()  # occurrence ids establishing the endpoints (T4 gold)
    bridges: tuple[str, ...] = ()  # T10: occurrence ids that can fill the hidden slot
    endpoints: tuple[tuple[str, ...], ...] = ()  # T10: occurrence ids per named endpoint
    extra: dict[str, Any] = field(default_factory=dict)


def case_id(protocol: str, *parts: object) -> str:
    """An opaque id: a hash of how the case was built, so ids reveal nothing about labels."""
    digest = hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:12]
    return f"{protocol}-{digest}"


def render_query(
    qid: str,
    events: list[dict[str, Any]],
    links: list[tuple[int, int, str | None, bool]],
    scope: str,
    rng: random.Random,
) -> VerificationQuery:
    """Build the query JSON from chronological facts without leaking the chronology.

    `events` are event specs in any order; each link (i, j, within, holds) states "events[i]
    before events[j]" when holds is True, or the reverse claim when False. Event ids are
    assigned after shuffling, and each claim is written as `before` or as its mirror `after`
    at random, so neither list order, ids nor relation type carries the record's order.
    """
    order = list(range(len(events)))
    rng.shuffle(order)
    ids = {orig: f"e{pos}" for pos, orig in enumerate(order)}
    out_events = [{**events[orig], "id": ids[orig]} for orig in order]
    relations = []
    for i, j, within, holds in links:
        first, second = (i, j) if holds else (j, i)  # the claim: first before second
        if rng.random() < 0.5:
            rel = {"from": ids[first], "to": ids[second], "type": "before"}
        else:
            rel = {"from": ids[second], "to": ids[first], "type": "after"}
        if within:
            rel["within"] = within
        relations.append(rel)
    return VerificationQuery.model_validate({"id": qid, "events": out_events, "relations": relations, "scope": scope})
