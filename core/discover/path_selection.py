"""From ranked paths to the contract's candidates, and the hidden-intermediate chain report.

The final set is capped at `final_contexts`, filled round-robin over (event, side) in the
order paths were admitted (depth, then path rank), so every event and both sides are
represented before any one of them takes a second slot. For hidden intermediates only the
best chain's intermediate is handed over: the controller verifies its best reconstruction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from medeventgraph.core.discover.chains import RankContext, Ranked
from medeventgraph.core.evidence.binding import BindingBasis
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.occurrence import Occurrence

__all__ = ["final_candidates", "hidden_report"]

TOP_CHAINS = 20


def final_candidates(
    query: VerificationQuery,
    occ: Mapping[str, Occurrence],
    bindmap: Mapping[str, tuple[str, ...]],
    bases: Mapping[str, tuple[BindingBasis, ...]],
    admitted: Mapping[str, tuple[int, int, float]],
    ranked: Sequence[Ranked],
    limit: int,
) -> list[Candidate]:
    hidden = {e.id for e in query.events if e.hidden}
    best_hidden = {o for e, o in ranked[0].path.nodes if e in hidden} if ranked and hidden else set()
    queues: dict[tuple[str, str], list[str]] = {}
    for oid in sorted(admitted, key=lambda o: (admitted[o][0], admitted[o][1], -admitted[o][2], o)):
        for e in bindmap.get(oid, ()):
            if e in hidden and oid not in best_hidden:
                continue
            side = "aligned" if occ[oid].assertion.affirmed_current else "counter"
            queues.setdefault((e, side), []).append(oid)
    chosen: dict[str, None] = {}
    keys = sorted(queues, key=lambda k: ([ev.id for ev in query.events].index(k[0]), k[1]))
    while len(chosen) < limit and any(queues[k] for k in keys):
        for k in keys:
            while queues[k] and queues[k][0] in chosen:
                queues[k].pop(0)
            if queues[k] and len(chosen) < limit:
                chosen[queues[k].pop(0)] = None
    return [
        Candidate(occ[o], tuple(b for b in bases[o] if b.event not in hidden or o in best_hidden))
        for o in chosen
    ]


def hidden_report(query: VerificationQuery, ranked: Sequence[Ranked], ctx: RankContext) -> dict[str, object]:
    """The top candidate chains and, for the best, which transitions are source-bound
    (both endpoints carry a source-linked time: the transition can be assessed)."""
    top = [x.describe() for x in ranked[:TOP_CHAINS]]
    best = ranked[0] if ranked else None
    transitions = []
    if best is not None:
        for r in query.relations:
            a, b = best.path.occurrence(r.source), best.path.occurrence(r.target)
            bound = bool(ctx.spans.get(a) and ctx.spans.get(b) and ctx.sourced.get(a) and ctx.sourced.get(b))
            transitions.append({"from": r.source, "to": r.target, "pair": [a, b], "source_bound": bound})
    return {"top": top, "count": len(ranked), "best": best.describe() if best else None, "transitions": transitions}
