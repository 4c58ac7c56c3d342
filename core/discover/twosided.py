"""Two-sided retrieval over the context store, and binding of what it returns.

Aligned queries look for the events as stated; counter queries look for what would speak
against them: negation, absence, historical or hypothetical mentions, stable or resolved
findings, held or discontinued orders, conflicting documentation. Both run over the
lexical, metadata and (optional) dense channels. Retrieval only *nominates*: a hit binds
to an event only when grounding says the occurrence matches that event.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from medeventgraph.core.discover.replan import MAX_HITS, Policy
from medeventgraph.core.evidence.binding import allowed_kinds
from medeventgraph.core.evidence.timing import shift
from medeventgraph.core.index.store import ContextStore
from medeventgraph.core.query.lexicon import Lexicon, normalize_text
from medeventgraph.core.query.model import EventSpec, VerificationQuery
from medeventgraph.model.occurrence import Occurrence

__all__ = ["COUNTER_CUES", "Hit", "bind", "query_texts", "retrieve"]

# Cue words chosen to match how notes and structured rows phrase the other side.
COUNTER_CUES = (
    "no {t}", "denies {t}", "negative for {t}", "without {t}", "{t} not given", "{t} held",
    "{t} discontinued", "history of {t}", "possible {t}", "rule out {t}", "{t} resolved",
    "{t} stable", "{t} entered in error", "{t} not done",
)
_RELATION_WORDS = {"before": "then after", "after": "after following", "overlaps": "during while"}


@dataclass(frozen=True, slots=True)
class Hit:
    occurrence: str
    score: float  # normalised to [0, 1] within its query
    side: str  # "aligned" | "counter"
    channel: str


def _event_terms(event: EventSpec, lexicon: Lexicon, policy: Policy) -> list[str]:
    if event.hidden or not event.text:
        return [event.kind or ""] if event.kind else []
    expanded = lexicon.expand(event.text, event.kind)
    terms = [normalize_text(event.text)]
    if policy.synonyms:
        terms.extend(t for t in expanded.terms[:6] if t not in terms)
    return terms


def query_texts(query: VerificationQuery, lexicon: Lexicon, policy: Policy) -> dict[str, dict[str, list[str]]]:
    """event id -> {"aligned": [...], "counter": [...]} query strings."""
    out: dict[str, dict[str, list[str]]] = {}
    words = " ".join(_RELATION_WORDS[r.type.value] for r in query.relations)
    for event in query.events:
        terms = _event_terms(event, lexicon, policy)
        if not terms:
            continue
        aligned = [f"{t} {words}" if k == 0 else t for k, t in enumerate(terms)]
        counter = [cue.format(t=t) for t in terms[:2] for cue in COUNTER_CUES]
        out[event.id] = {"aligned": aligned, "counter": counter}
    return out


def retrieve(
    store: ContextStore,
    texts: Mapping[str, Mapping[str, list[str]]],
    query: VerificationQuery,
    policy: Policy,
    anchors: Iterable[Occurrence],
    episodes: Mapping[str, str],
    keep: Container[str] | None = None,
    memo: dict[tuple[str, str, str], list[tuple[int, Hit]]] | None = None,
) -> list[Hit]:
    """Every channel of the policy, both sides, in a stable order (channel, event, side).

    `keep`: the occurrences grounding can bind; other hits are dropped here rather than
    after building them, since binding would drop them anyway (scores are still normalised
    against the channel's best hit, bound or not). `memo` keeps one query's searches across
    depths: the store does not change during a query, so the same text gives the same hits.
    """
    hits: list[Hit] = []
    for channel in policy.channels:
        if channel == "metadata":
            hits.extend(h for h in _metadata(store, query, policy, list(anchors), episodes)
                        if keep is None or h.occurrence in keep)
            continue
        search = store.lexical if channel == "lexical" else store.dense
        if channel == "dense":
            store.prime_dense(sorted({t for e in texts.values() for side in ("aligned", "counter") for t in e[side]
                                      if memo is None or (channel, side, t) not in memo}))
        for event_id in sorted(texts):
            for side in ("aligned", "counter"):
                for text in texts[event_id][side]:
                    # Search once at the largest budget replanning can reach and slice: the
                    # best k of a larger result are the best k (ties broken by id either way).
                    key = (channel, side, text)
                    found = memo.get(key) if memo is not None else None
                    if found is None:
                        raw = search(text, max(policy.hits, MAX_HITS))
                        top = max((sc for _, sc in raw), default=0.0) or 1.0
                        found = [
                            (rank, Hit(oid, max(0.0, sc) / top, side, channel))
                            for rank, (oid, sc) in enumerate(raw)
                            if keep is None or oid in keep
                        ]
                        if memo is not None:
                            memo[key] = found
                    hits.extend(h for rank, h in found if rank < policy.hits)
    return hits


def _metadata(
    store: ContextStore, query: VerificationQuery, policy: Policy, anchors: list[Occurrence], episodes: Mapping[str, str]
) -> list[Hit]:
    """Occurrences of each event's kind in the anchors' encounters (or episodes) and time window."""
    times = [a.time.start for a in anchors if a.time.start is not None]
    if not times:
        return []
    pad = timedelta(hours=policy.window_hours)
    start, end = shift(min(times), -pad), shift(max(times), pad)
    encounters = {a.encounter for a in anchors if a.encounter}
    if policy.follow_episode:
        keys = {episodes.get(e) for e in encounters} - {None}
        encounters |= {enc for enc, key in episodes.items() if key in keys}
    out: list[Hit] = []
    for event in query.events:
        kinds = allowed_kinds(event.kind) if event.kind else None
        for enc in sorted(encounters) or [None]:
            for oid in store.metadata(kinds=kinds, encounter=enc, start=start, end=end):
                out.append(Hit(oid, 0.5, "aligned", "metadata"))
    return out


def bind(
    nominated: Iterable[str],
    bindmap: Mapping[str, tuple[str, ...]],
) -> dict[str, tuple[str, ...]]:
    """Retrieval nominates, grounding binds: keep the nominees grounding says match an event."""
    return {oid: bindmap[oid] for oid in dict.fromkeys(nominated) if oid in bindmap}
