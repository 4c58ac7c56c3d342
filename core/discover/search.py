"""The budgeted search (paper Algorithm 1): search broadly, on both sides; decide narrowly.

Not the default path: verdicts come from exhaustive grounding (core.simple) on every surface.
The search is for where a budget is real, choosing at most `final_contexts` candidates (what an
LLM assessor or a dense search over a very large record can look at). Its bundle is the search's
own selection and nothing more; the contract records which events and scope units it holds
completely (core.coverage), so a budget that left out the compatible pair cannot refute.

Per depth d = 1..d_max: expand the frontier over the patient graph (K neighbours per node,
by diffusion from the anchors), retrieve on both sides over every channel of the policy,
bind hits to events through grounding, check candidates, rank paths by R(P|c), contract
the TopB, assess the frozen bundle, update obligations, and on a structured failure
replan retrieval (never assessment) up to R_max times.

Everything this module computes beyond the candidates themselves — depths, policies,
failures, counts, R scores, candidate chains — goes to `Discovery.metadata`, which the
verdict shows under `search` and which never enters the bundle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from medeventgraph.core.decide.assess import assess
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.chains import RankContext, Ranked, enumerate_paths, rank_paths, top_b
from medeventgraph.core.discover.exhaustive import Discovery, ground_all, grounded_candidates, query_mentions
from medeventgraph.core.discover.obligations import (
    init_obligations,
    mark_countered,
    resolved,
    structured_failure,
    update_obligations,
)
from medeventgraph.core.discover.path_selection import final_candidates, hidden_report
from medeventgraph.core.discover.replan import initial_policy, replan
from medeventgraph.core.discover.twosided import Hit, bind, query_texts, retrieve
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis, kind_allows
from medeventgraph.core.evidence.contract import Candidate, scope_unit
from medeventgraph.core.evidence.grounding import Grounding, ground_event
from medeventgraph.core.evidence.timing import span_of
from medeventgraph.core.index.graph import neighbours, personalized_pagerank
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.lexicon import normalize_text
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.occurrence import Occurrence, Origin
from medeventgraph.model.settings import Settings

__all__ = ["ABLATIONS", "controller_discovery"]

# Parts of the search that can be switched off to measure what each adds (benchmarks/evaluation):
#   ppr         no diffusion: expansion and path ranking without personalised PageRank
#   retrieval   no channel retrieval: only graph expansion nominates
#   topb        no TopB cut: every ranked path is admitted, in rank order
#   replan      no replanning: every depth retrieves with the initial policy
ABLATIONS = frozenset({"ppr", "retrieval", "topb", "replan"})

_REASON_RANK = {"code": 0, "text": 1, "synonym": 2, "class": 3, "note": 4, "kind": 5}
_HIDDEN_PER_UNIT = 60


def controller_discovery(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    *,
    table: Mapping[FailureType, Mapping[str, object]] | None = None,
    ablate: frozenset[str] = frozenset(),
    groundings: dict[str, Grounding] | None = None,
    reference: list[Candidate] | None = None,
) -> Discovery:
    """At most `settings.final_contexts` candidates, chosen by the search alone. `table`: the
    replanning table (core.replan.DEFAULT_EDITS when None). `groundings` and `reference`
    (core.simple) save a caller that has them computing them again."""
    unknown = set(ablate) - ABLATIONS
    if unknown:
        raise ValueError(f"unknown ablation {sorted(unknown)}; known: {sorted(ABLATIONS)}")
    occ: dict[str, Occurrence] = dict(index.occurrences)
    mention_ids = []
    for o in query_mentions(index, query):  # the query's own words found in notes
        occ.setdefault(o.id, o)
        mention_ids.append(o.id)
    occ_all = occ.__getitem__
    if groundings is None:
        groundings = ground_all(index, query)
    if reference is None:  # what each depth's coverage is measured against
        reference = grounded_candidates(index, query, groundings)
    bindmap: dict[str, set[str]] = {}
    bases: dict[str, set[BindingBasis]] = {}
    historical: set[str] = set()
    anchors: dict[str, list[str]] = {}
    cap = settings.k_neighbours * settings.top_b
    for g in groundings.values():
        # Precise anchors first (structured, time-resolved): they are what decides an order.
        ordered = sorted(g.matches, key=lambda m: (_anchor_rank(occ_all(m.occurrence)), _REASON_RANK.get(m.reason, 9),
                                                   m.occurrence))
        anchors[g.event] = [m.occurrence for m in ordered[:cap]]
        for m in g.matches:
            bindmap.setdefault(m.occurrence, set()).add(g.event)
            bases.setdefault(m.occurrence, set()).add(m.basis)
            if m.historical_display:
                historical.add(m.occurrence)
    _bind_hidden(index, query, occ, bindmap, bases, anchors)
    frozen_bind = {k: tuple(sorted(v)) for k, v in bindmap.items()}
    frozen_bases = {k: tuple(sorted(v)) for k, v in bases.items()}

    anchor_ids = sorted({o for ids in anchors.values() for o in ids})
    ppr = personalized_pagerank(index.graph, anchor_ids) if anchor_ids and "ppr" not in ablate else {}
    resources = index.record.resources
    ctx = RankContext(
        query=query,
        occ=occ,
        ppr=ppr,
        spans={o: span_of(occ[o].time, occ[o].documented, False) for o in frozen_bind},
        sourced={o: _sourced(occ[o], resources) for o in frozen_bind},
        units={o: scope_unit(occ[o], query.scope, index.episodes) for o in frozen_bind},
        eps=settings.epsilon,
    )
    dense_ok = index.store.has_dense
    policy = initial_policy(tuple(settings.channel_order), dense_ok)
    u = init_obligations(query)
    pool: dict[str, set[str]] = {e.id: set() for e in query.events}
    relevance: dict[str, float] = {}
    best: dict[str, tuple[int, int, float]] = {}  # occurrence -> (depth, path rank, R) of first admission
    frontier = anchor_ids
    visited: set[str] = set(anchor_ids)
    trace: list[dict[str, Any]] = []
    replans = 0
    ranked: list[Ranked] = []
    candidates: list[Candidate] = []
    searches: dict[tuple[str, str, str], list[tuple[int, Hit]]] = {}
    similar: dict[str, float] = {}  # occurrence -> best similarity of those bound by it
    # Retrieval nominates and grounding binds: an event nothing grounds cannot be found by any
    # depth or replan, so the search stops before it starts (the contract still runs below).
    # Likewise an event whose every grounded occurrence is negated, historical, hypothetical or
    # about family can never be supported; its counter-evidence is added below in any case.
    # With the dense channel, similarity (a basis of its own, re-checked by the contract) can
    # bind what grounding did not, so every event stays worth searching for.
    unbindable = [] if dense_ok else [
        e.id for e in query.events
        if not e.hidden and not any(_can_ground(occ[o], o in historical) for o in _grounded(groundings, e.id))
    ]
    depths = range(1, settings.d_max + 1) if not unbindable else range(0)
    for depth in depths:
        expanded = _expand(index, frontier, settings.k_neighbours, ppr)
        texts = query_texts(query, index.lexicon, policy)
        hits = [] if "retrieval" in ablate else retrieve(
            index.store, texts, query, policy, [occ[a] for a in anchor_ids], index.episodes,
            keep=frozen_bind, memo=searches)
        u = mark_countered(u, sorted(texts))
        if "dense" in policy.channels and "retrieval" not in ablate:
            for oid in _bind_similar(index, query, occ, policy, bindmap, bases, similar):
                frozen_bind[oid] = tuple(sorted(bindmap[oid]))
                frozen_bases[oid] = tuple(sorted(bases[oid]))
                o = occ[oid]
                ctx.spans[oid] = span_of(o.time, o.documented, False)  # type: ignore[index]
                ctx.sourced[oid] = _sourced(o, resources)  # type: ignore[index]
                ctx.units[oid] = scope_unit(o, query.scope, index.episodes)  # type: ignore[index]
                hits.append(Hit(oid, similar[oid], "aligned", "dense"))
        for h in hits:
            relevance[h.occurrence] = max(relevance.get(h.occurrence, 0.0), h.score)
        nominated = frontier + expanded + [h.occurrence for h in hits] + (mention_ids if policy.note_mentions else [])
        bound = bind(nominated, frozen_bind)
        dropped = 0
        for oid, events in bound.items():
            o = occ.get(oid)
            if o is None or o.patient != index.patient or not o.id:  # candidate check: malformed, other patient
                dropped += 1
                continue
            for e in events:
                pool[e].add(oid)
        for oid in frozen_bind:  # grounded but never retrieved: a weak default relevance
            relevance.setdefault(oid, 0.25)
        per_event = 16 if len(query.events) <= 2 else (10 if len(query.events) == 3 else 6)
        paths = enumerate_paths({e: sorted(v) for e, v in pool.items()}, ctx, relevance, per_event)
        ranked = rank_paths(paths, ctx, relevance)
        chosen = list(ranked) if "topb" in ablate else top_b(ranked, settings.top_b)
        for rank, x in enumerate(chosen):
            for _, oid in x.path.nodes:
                best.setdefault(oid, (depth, rank, x.r))
        candidates = final_candidates(query, occ, frozen_bind, frozen_bases, best, ranked, settings.final_contexts)
        bundle = admit(index, query, candidates, reference)
        assessment = assess(bundle)
        u = update_obligations(u, bundle, assessment)
        failure = structured_failure(u, assessment)
        trace.append({
            "depth": depth,
            "policy": policy.describe(),
            "expanded": len(expanded),
            "retrieved": _count_by(hits),
            "bound": len(bound),
            "dropped": dropped,
            "candidates": {e: len(v) for e, v in pool.items()},
            "paths": len(paths),
            "top": [x.describe() for x in chosen[:5]],
            "label": assessment.label.value,
            "s_plus": assessment.s_plus,
            "s_minus": assessment.s_minus,
            "failure": failure.value if failure else None,
            "obligations": u.describe(),
        })
        if assessment.label is Label.CONFLICTING or resolved(u, assessment):
            break
        if failure is not None and replans < settings.r_max and "replan" not in ablate:
            policy = replan(policy, failure, dense_ok=dense_ok, table=table)
            replans += 1
        frontier = [n for n in _rank_by(expanded, ppr) if n not in visited][: cap]
        visited.update(frontier)
        if not frontier and failure is None:
            break
    if unbindable:  # show what was found for the other events, best anchors first
        shown = list(dict.fromkeys(o for e in query.events for o in anchors.get(e.id, [])))
        candidates = [Candidate(occ[o], frozen_bases[o]) for o in shown[: settings.final_contexts]]
    meta: dict[str, Any] = {
        "discovery": "search",
        "ablated": sorted(ablate),
        "budget": settings.final_contexts,
        "unbindable": unbindable,
        "depths": trace,
        "replans": replans,
        "anchors": {e: len(v) for e, v in anchors.items()},
        "grounding": {g.event: len(g.matches) for g in groundings.values()},
    }
    if any(e.hidden for e in query.events):
        meta["chains"] = hidden_report(query, ranked, ctx)
    return Discovery(candidates, meta)


def _bind_similar(index, query, occ, policy, bindmap, bases, similar) -> list[str]:
    """Dense hits grounding did not bind, bound by similarity above the frozen threshold
    (core.similarity): the occurrences newly bound to some event."""
    from medeventgraph.core.evidence.similarity import load_rule, prime, similarity_basis

    new: list[str] = []
    for event in query.events:
        if event.hidden or not event.text:
            continue
        hits = []
        for oid, _ in index.store.dense(normalize_text(event.text), policy.hits):
            o = occ.get(oid)
            if o is None or event.id in bindmap.get(oid, ()) or not kind_allows(event.kind, o.kind):
                continue
            hits.append((oid, tuple(normalize_text(d) for d in o.concept.displays())))
        prime(load_rule().model, [normalize_text(event.text)] + [d for _, ds in hits for d in ds])
        for oid, displays in hits:
            basis = similarity_basis(event, displays)
            if basis is None:
                continue
            bindmap.setdefault(oid, set()).add(event.id)
            bases.setdefault(oid, set()).add(basis)
            similar[oid] = max(similar.get(oid, 0.0), float(basis.detail.rpartition("|")[2]))
            new.append(oid)
    return list(dict.fromkeys(new))


def _grounded(groundings: Mapping[str, Any], event: str) -> list[str]:
    g = groundings.get(event)
    return [m.occurrence for m in g.matches] if g is not None else []


def _can_ground(o: Occurrence, historical_display: bool) -> bool:
    return o.assertion.affirmed_current and not historical_display and o.status not in ("not-done", "refuted")


def _bind_hidden(index, query, occ, bindmap, bases, anchors) -> None:
    """Hidden events bind by kind, only inside the scope units that hold the named anchors."""
    units = {scope_unit(occ[a], query.scope, index.episodes) for ids in anchors.values() for a in ids} - {None}
    for event in (e for e in query.events if e.hidden):
        g = ground_event(event, index.occurrences.values(), index.lexicon, index.displays)
        per_unit: dict[str, list[str]] = {}
        for m in g.matches:
            if m.occurrence in bindmap:  # an intermediate is a distinct event, not a named endpoint
                continue
            o = index.occurrences[m.occurrence]
            u = scope_unit(o, query.scope, index.episodes)
            if u in units and o.time.resolved:
                per_unit.setdefault(u, []).append(o.id)
        for u in sorted(per_unit):
            for oid in sorted(per_unit[u])[:_HIDDEN_PER_UNIT]:
                bindmap.setdefault(oid, set()).add(event.id)
                bases.setdefault(oid, set()).add(BindingBasis(event.id, BasisKind.KIND, event.kind or ""))


def _anchor_rank(o: Occurrence) -> int:
    return (0 if o.time.resolved else 2) + (1 if o.origin is Origin.NOTE else 0)


def _sourced(o: Occurrence, resources: Mapping[str, object]) -> bool:
    if o.origin is Origin.DERIVED:
        return bool(o.derived_from) and all(r.split("#", 1)[0] in resources for r in o.derived_from)
    return o.source.reference in resources


def _rank_by(nodes: list[str], ppr: Mapping[str, float]) -> list[str]:
    return sorted(dict.fromkeys(nodes), key=lambda n: (-ppr.get(n, 0.0), n))


def _expand(index: PatientIndex, frontier: list[str], k: int, ppr: Mapping[str, float]) -> list[str]:
    out: list[str] = []
    for node in frontier:
        out.extend(_rank_by(neighbours(index.graph, node), ppr)[:k])
    return list(dict.fromkeys(out))


def _count_by(hits) -> dict[str, int]:
    counts: dict[str, int] = {}
    for h in hits:
        key = f"{h.channel}/{h.side}"
        counts[key] = counts.get(key, 0) + 1
    return counts
