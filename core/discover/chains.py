"""Candidate paths (one occurrence per query event) and their ranking by R(P|c).

Paths are enumerated inside one scope unit at a time (scope-unknown candidates form their
own group), from each event's best few nodes, so the work stays bounded however many
doses or readings a record holds. TopB keeps both sides: part of the budget is reserved
for counter paths (a non-affirmed node, or an order resolved against the query).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from medeventgraph.core.discover.priority import Path, lifted_product, path_signals
from medeventgraph.core.evidence.timing import Span, Timing, compare
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.occurrence import Occurrence, Origin

__all__ = ["RankContext", "Ranked", "enumerate_paths", "rank_paths", "top_b"]

_MAX_PATHS = 6000  # per depth; the product of per-event node caps is cut off here


@dataclass(frozen=True)
class RankContext:
    """Everything ranking reads, computed once per query (discovery-side only)."""

    query: VerificationQuery
    occ: Mapping[str, Occurrence]
    ppr: Mapping[str, float]
    spans: Mapping[str, Span | None]
    sourced: Mapping[str, bool]
    units: Mapping[str, str | None]
    eps: float


@dataclass(frozen=True)
class Ranked:
    r: float
    path: Path
    signals: dict[str, float]
    counter: bool

    def describe(self) -> dict[str, object]:
        return {
            "path": {e: o for e, o in self.path.nodes},
            "R": round(self.r, 4),
            "signals": {k: round(v, 3) for k, v in self.signals.items()},
            "side": "counter" if self.counter else "aligned",
        }


def enumerate_paths(
    pool: Mapping[str, Sequence[str]],
    ctx: RankContext,
    relevance: Mapping[str, float],
    per_event: int,
) -> list[Path]:
    events = [e.id for e in ctx.query.events]
    if any(not pool.get(e) for e in events):
        return []
    top_ppr = max(ctx.ppr.values(), default=0.0) or 1.0

    def node_score(o: str) -> tuple[float, str]:
        return (-(relevance.get(o, 0.0) + ctx.ppr.get(o, 0.0) / top_ppr), o)

    groups: dict[str | None, dict[str, list[str]]] = {}
    for e in events:
        for o in pool[e]:
            groups.setdefault(ctx.units.get(o), {}).setdefault(e, []).append(o)
    paths: list[Path] = []
    for unit in sorted(groups, key=lambda u: (u is None, u or "")):
        per = groups[unit]
        if any(not per.get(e) for e in events):
            continue
        options = [_options(sorted(set(per[e]), key=node_score), ctx, per_event) for e in events]
        for combo in itertools.product(*options):
            if len(set(combo)) < len(combo):
                continue  # one occurrence cannot be two events of one chain
            paths.append(Path(tuple(zip(events, combo, strict=True))))
            if len(paths) >= _MAX_PATHS:
                return paths
    return paths


def _options(by_score: list[str], ctx: RankContext, n: int) -> list[str]:
    """Half the slots go to the most precise nodes (time-resolved, structured), which decide
    order; the rest to the best-scored nodes, whatever they are (notes, negations)."""

    def precise(o: str) -> int:
        span = ctx.spans.get(o)
        return (0 if span is not None and span.resolved else 2) + (1 if ctx.occ[o].origin is Origin.NOTE else 0)

    first = sorted(by_score, key=precise)[: max(1, n // 2)]  # stable: score order within a class
    rest = [o for o in by_score if o not in first]
    return first + rest[: n - len(first)]


def rank_paths(paths: Sequence[Path], ctx: RankContext, relevance: Mapping[str, float]) -> list[Ranked]:
    out = []
    top = max(ctx.ppr.values(), default=0.0) or 1.0
    for p in paths:
        signals = path_signals(p, ctx.query, ctx.occ, ctx.ppr, relevance, ctx.spans, ctx.sourced, ctx.units, top)
        affirmed = all(ctx.occ[o].assertion.affirmed_current for _, o in p.nodes)
        out.append(Ranked(lifted_product(signals, ctx.eps), p, signals, not affirmed or _incompatible(p, ctx)))
    out.sort(key=lambda x: (-x.r, x.path.nodes))
    return out


def _incompatible(p: Path, ctx: RankContext) -> bool:
    """Some relation is resolved against the query on this path: a counter path."""
    for r in ctx.query.relations:
        a, b = ctx.spans.get(p.occurrence(r.source)), ctx.spans.get(p.occurrence(r.target))
        if compare(a, b, r.type, r.window).timing is Timing.INCOMPATIBLE:
            return True
    return False


def top_b(ranked: Sequence[Ranked], b: int) -> list[Ranked]:
    """The B best paths, at least a third of them from the counter side when there are any."""
    counter = [x for x in ranked if x.counter][: max(1, b // 3)]
    chosen = list(counter)
    for x in ranked:
        if len(chosen) >= b:
            break
        if x not in chosen:
            chosen.append(x)
    chosen.sort(key=lambda x: (-x.r, x.path.nodes))
    return chosen
