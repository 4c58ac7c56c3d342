"""Discovery priority R(P|c) = prod_k [eps + (1 - eps) s_k(P, c)] (paper Eq. 2-3).

Every signal is in [0, 1] and the lifted product maps each to [eps, 1], so a weak signal
lowers a path's priority without filtering it out: paths whose order or type disagrees
with the query stay eligible, because that is where counter-evidence lives. These numbers
rank candidates for the contract; they never enter the bundle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cached_property

from medeventgraph.core.evidence.timing import Span, Timing, compare
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.occurrence import Occurrence

__all__ = ["Path", "lifted_product", "path_signals", "transition_coverage"]

_TIMING_SCORE = {Timing.COMPATIBLE: 1.0, Timing.UNKNOWN: 0.5, Timing.INCOMPATIBLE: 0.0}


@dataclass(frozen=True)
class Path:
    """One candidate chain: an occurrence id per query event, in query event order."""

    nodes: tuple[tuple[str, str], ...]  # (event id, occurrence id)

    @cached_property
    def by_event(self) -> dict[str, str]:
        return dict(self.nodes)  # ranking asks for a path's nodes by event hundreds of times

    def occurrence(self, event: str) -> str:
        return self.by_event[event]


def lifted_product(signals: Mapping[str, float], eps: float) -> float:
    r = 1.0
    for value in signals.values():
        r *= eps + (1.0 - eps) * min(1.0, max(0.0, value))
    return r


def transition_coverage(path: Path, query: VerificationQuery, spans: Mapping[str, Span | None],
                        sourced: Mapping[str, bool]) -> float:
    """Eq. 3: the share of transitions whose two endpoints both carry a source-linked time,
    i.e. that *can be examined*, whatever the examination would conclude."""
    h = len(query.relations)
    covered = 0
    for r in query.relations:
        a, b = path.occurrence(r.source), path.occurrence(r.target)
        if spans.get(a) is not None and spans.get(b) is not None and sourced.get(a) and sourced.get(b):
            covered += 1
    return covered / h if h else 0.0


def path_signals(
    path: Path,
    query: VerificationQuery,
    occ: Mapping[str, Occurrence],
    ppr: Mapping[str, float],
    relevance: Mapping[str, float],
    spans: Mapping[str, Span | None],
    sourced: Mapping[str, bool],
    units: Mapping[str, str | None],
    top: float | None = None,
) -> dict[str, float]:
    """`top` is max(ppr) (pass it when ranking many paths against one diffusion)."""
    ids = [o for _, o in path.nodes]
    top = top or max(ppr.values(), default=0.0) or 1.0
    signals = {
        # graph diffusion from the anchors: how central each node is to the query's seeds
        "diffusion": sum(min(1.0, ppr.get(o, 0.0) / top) ** 0.5 for o in ids) / len(ids),
        "compactness": _compactness(ids, occ, units),
        "relevance": sum(relevance.get(o, 0.0) for o in ids) / len(ids),
        "source": sum(1.0 for o in ids if sourced.get(o)) / len(ids),
        "temporal_type": _temporal(path, query, spans),
    }
    if len(query.relations) >= 2:
        signals["coverage"] = transition_coverage(path, query, spans, sourced)
    return signals


def _compactness(ids: Sequence[str], occ: Mapping[str, Occurrence], units: Mapping[str, str | None]) -> float:
    """One scope unit and a short time span score high."""
    distinct = {units.get(o) for o in ids}
    unit_score = 1.0 if len(distinct) == 1 and None not in distinct else 0.4
    times = [occ[o].time.start for o in ids if occ[o].time.start is not None]
    if len(times) < 2:
        return unit_score * 0.1  # an unknown span is not a short one
    weeks = (max(times) - min(times)) / timedelta(days=7)
    return unit_score / (1.0 + math.log1p(weeks))  # log: a years-long patient-scope span still ranks


def _temporal(path: Path, query: VerificationQuery, spans: Mapping[str, Span | None]) -> float:
    scores = []
    for r in query.relations:
        cmp = compare(spans.get(path.occurrence(r.source)), spans.get(path.occurrence(r.target)), r.type, r.window)
        scores.append(_TIMING_SCORE[cmp.timing])
    return sum(scores) / len(scores) if scores else 0.5
