"""Verification entry point: query + patient index -> Verdict.

discover (nominate candidates; may use scores) -> contract (admit, freeze, hash) ->
assess (bundle only) -> report. This module is where a verdict is decided in one look:
`assess(bundle)` is the only call that sees evidence and returns a label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from medeventgraph.core.assess import Assessment, assess
from medeventgraph.core.contract import Candidate, EvidenceBundle, contract, scope_unit
from medeventgraph.core.grounding import Grounding, ground_event
from medeventgraph.core.index import PatientIndex
from medeventgraph.core.lexicon import normalize_text
from medeventgraph.core.query import Scope, VerificationQuery
from medeventgraph.core.report import to_verdict
from medeventgraph.core.verdict import FailureType, Verdict
from medeventgraph.occurrence import Occurrence
from medeventgraph.settings import Settings

__all__ = ["Discovery", "decide", "simple_discovery", "verify_query"]

# Hidden intermediates are grounded by kind alone; this caps them per scope unit in the
# simple path so a patient's hundreds of labs cannot blow up the chain search.
_HIDDEN_PER_UNIT = 60


@dataclass
class Discovery:
    """What discovery hands over: candidates for the contract, and metadata for audit only."""

    candidates: list[Candidate]
    metadata: dict[str, Any] = field(default_factory=dict)


DiscoverFn = Callable[[PatientIndex, VerificationQuery, Settings], Discovery]


def ground_all(index: PatientIndex, query: VerificationQuery) -> dict[str, Grounding]:
    """Ground every named event over the index plus note mentions of the query's own words."""
    extra = _query_mentions(index, query)
    pool: list[Occurrence] = list(index.occurrences.values()) + extra
    displays = dict(index.displays)
    out = {}
    for event in query.events:
        if event.hidden:
            continue
        out[event.id] = ground_event(event, pool, index.lexicon, displays)
    return out


def _query_mentions(index: PatientIndex, query: VerificationQuery) -> list[Occurrence]:
    terms = []
    for e in query.events:
        if e.text and not e.hidden:
            expanded = index.lexicon.expand(e.text, e.kind)
            if expanded.via == "literal":
                norm = normalize_text(e.text)
                terms.append((norm, norm, e.kind))
    return index.mentions_for(terms)


def simple_discovery(index: PatientIndex, query: VerificationQuery, settings: Settings) -> Discovery:
    """The spine's discovery: every grounded occurrence, hidden events by kind within the
    scope units that hold the named events."""
    groundings = ground_all(index, query)
    occ = {**index.occurrences, **{o.id: o for o in _query_mentions(index, query)}}
    candidates = [
        Candidate(occ[m.occurrence], (g.event,), m.historical_display)
        for g in groundings.values()
        for m in g.matches
    ]
    hidden = [e for e in query.events if e.hidden]
    if hidden:
        candidates.extend(_hidden_candidates(index, query, candidates, hidden))
    meta = {
        "discovery": "simple",
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
                per_unit.setdefault(u, []).append(Candidate(o, (event.id,)))
        for u in sorted(per_unit):
            out.extend(sorted(per_unit[u], key=lambda c: c.occurrence.id)[:_HIDDEN_PER_UNIT])
    return out


def decide(index: PatientIndex, query: VerificationQuery, discovery: Discovery) -> tuple[EvidenceBundle, Assessment]:
    """Contract then assess: nothing from discovery but the candidates themselves gets through."""
    bundle = contract(
        query,
        index.patient,
        discovery.candidates,
        index.record.resources,
        index.documents,
        index.episodes,
    )
    return bundle, assess(bundle)


def verify_query(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    *,
    discover: DiscoverFn | None = None,
) -> Verdict:
    discovery = (discover or simple_discovery)(index, query, settings)
    bundle, assessment = decide(index, query, discovery)
    failure = assessment.failure
    # The contract dropped scope-invalid items; say so instead of "missing endpoint".
    if failure is FailureType.MISSING_ENDPOINT and bundle.rejected.get("scope") and query.scope is not Scope.PATIENT:
        failure = FailureType.SCOPE
    metadata = {**discovery.metadata, "rejected": dict(bundle.rejected)}
    return to_verdict(index, bundle, assessment, failure, metadata)
