"""Exhaustive grounding: every grounded occurrence is a candidate (the default path).

`grounded_candidates` is every occurrence grounding binds to each event: what the contract
measures a bundle's completeness against (core.contract, `coverage`), whatever discovery ran.
`simple_discovery` hands it over as the candidates (hidden intermediates capped per scope
unit, which the bundle's coverage then records as incomplete). The budgeted search
(core.discovery) is the other discovery, for where a budget is real.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from medeventgraph.core.evidence.contract import Candidate, scope_unit
from medeventgraph.core.evidence.grounding import Grounding, ground_event
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.lexicon import normalize_text
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.occurrence import Occurrence
from medeventgraph.model.settings import Settings

__all__ = ["HIDDEN_PER_UNIT", "DiscoverFn", "Discovery", "ground_all", "grounded_candidates", "query_mentions",
           "simple_discovery"]

# Hidden intermediates are grounded by kind alone; this caps them per scope unit in the
# exhaustive path so a patient's hundreds of labs cannot blow up the chain search. A unit
# over the cap is then not complete for the hidden event: no order refutation rests on it.
HIDDEN_PER_UNIT = 60


@dataclass
class Discovery:
    """What discovery hands over: candidates for the contract, and metadata for audit only."""

    candidates: list[Candidate]
    metadata: dict[str, Any] = field(default_factory=dict)


DiscoverFn = Callable[[PatientIndex, VerificationQuery, Settings], Discovery]


def ground_all(index: PatientIndex, query: VerificationQuery) -> dict[str, Grounding]:
    """Ground every named event over the index plus note mentions of the query's own words."""
    extra = query_mentions(index, query)
    pool: list[Occurrence] = list(index.occurrences.values()) + extra
    displays = dict(index.displays)
    out = {}
    for event in query.events:
        if event.hidden:
            continue
        out[event.id] = ground_event(event, pool, index.lexicon, displays)
    return out


def query_mentions(index: PatientIndex, query: VerificationQuery) -> list[Occurrence]:
    terms = []
    for e in query.events:
        if e.text and not e.hidden:
            expanded = index.lexicon.expand(e.text, e.kind)
            # a concept's synonyms are note targets as written; its query words are read as a phrase
            # too (reordered, inflected, split), as a name the lexicon lacks is; a drug class stands for
            # its members, while a condition's or act's class name is also its general concept's name
            if expanded.via in ("literal", "concept") or expanded.kind != "medication":
                norm = normalize_text(e.text)
                terms.append((norm, norm, e.kind))
    return index.mentions_for(terms)


def grounded_candidates(
    index: PatientIndex,
    query: VerificationQuery,
    groundings: dict[str, Grounding] | None = None,
) -> list[Candidate]:
    """Every grounded occurrence of every named event, and every time-resolved occurrence of a
    hidden event's kind in the scope units that hold a named one (no cap). `groundings` saves a
    caller that already has them grounding the query twice."""
    if groundings is None:
        groundings = ground_all(index, query)
    occ = {**index.occurrences, **{o.id: o for o in query_mentions(index, query)}}
    candidates = [Candidate(occ[m.occurrence], (m.basis,)) for g in groundings.values() for m in g.matches
                  if m.basis is not None]
    hidden = [e for e in query.events if e.hidden]
    if hidden:
        candidates.extend(_hidden_candidates(index, query, candidates, hidden))
    return candidates


def simple_discovery(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    groundings: dict[str, Grounding] | None = None,
    reference: list[Candidate] | None = None,
) -> Discovery:
    """The exhaustive path: `grounded_candidates`, hidden events at most HIDDEN_PER_UNIT per
    scope unit (in id order). `reference`: those candidates, when the caller has them."""
    if groundings is None:
        groundings = ground_all(index, query)
    if reference is None:
        reference = grounded_candidates(index, query, groundings)
    hidden = {e.id for e in query.events if e.hidden}
    candidates = _capped(reference, hidden, query, index.episodes) if hidden else reference
    meta = {
        "discovery": "exhaustive",
        "grounding": {
            g.event: {
                "matched": len(g.matches),
                "via": g.expanded.via if g.expanded else "codes",
                "reasons": sorted({m.reason for m in g.matches}),
            }
            for g in groundings.values()
        },
    }
    return Discovery(candidates, meta)


def _capped(candidates: list[Candidate], hidden: set[str], query: VerificationQuery, episodes) -> list[Candidate]:
    kept: dict[tuple[str, str | None], int] = {}
    out = []
    for c in candidates:
        if hidden & set(c.events):
            key = (c.events[0], scope_unit(c.occurrence, query.scope, episodes))
            kept[key] = kept.get(key, 0) + 1
            if kept[key] > HIDDEN_PER_UNIT:
                continue
        out.append(c)
    return out


def _hidden_candidates(index, query, named, hidden) -> list[Candidate]:
    units: set[str] = set()
    for c in named:
        u = scope_unit(c.occurrence, query.scope, index.episodes)
        if u:
            units.add(u)
    out = []
    for event in hidden:
        g = ground_event(event, index.occurrences.values(), index.lexicon, index.displays)
        per_unit: dict[str, list[Candidate]] = {}
        for m in g.matches:
            o = index.occurrences[m.occurrence]
            u = scope_unit(o, query.scope, index.episodes)
            if u in units and o.time.resolved:
                per_unit.setdefault(u, []).append(Candidate(o, (m.basis,)))
        for u in sorted(per_unit):
            out.extend(sorted(per_unit[u], key=lambda c: c.occurrence.id))
    return out


