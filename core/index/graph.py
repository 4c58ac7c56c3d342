"""The patient graph: navigation only. Edges are recorded relations or deterministic derivations.

No edge encodes a queried relation or a verdict. Edge kinds:
  in_encounter   occurrence -> its encounter (recorded reference)
  next_encounter encounter -> the next encounter of the patient by start time
  part_of        encounter -> encounter it is partOf; episode membership
  <link>         recorded references (request, reasonReference, hasMember, result, derivedFrom, basedOn)
  same_concept   consecutive occurrences (by time) sharing a code or normalised display
  trajectory     consecutive values of one lab/vital code
  mention_of     note mention -> its document; document -> its encounter
  derived_from   derived occurrence -> each source occurrence
  temporal       each occurrence -> the next occurrence in time (one chain, so O(n))
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import networkx as nx
import numpy as np
import scipy as sp
from medeventgraph.model.occurrence import Kind, Occurrence, Origin

__all__ = ["PatientGraph", "build_graph", "neighbours", "personalized_pagerank", "sort_key"]

_EPOCH_MIN = datetime.min.replace(tzinfo=UTC)


def sort_key(occ: Occurrence) -> tuple[datetime, str]:
    return (occ.time.start or (occ.documented.start if occ.documented else None) or _EPOCH_MIN, occ.id)


@dataclass
class PatientGraph:
    """A thin holder: the networkx graph plus the occurrences it indexes."""

    patient: str
    g: nx.MultiDiGraph
    occurrences: dict[str, Occurrence]
    # The row-normalised adjacency of the collapsed graph, built on the first PageRank and kept:
    # the graph does not change after build, and rebuilding it was most of every query.
    _transition: Any = field(default=None, init=False, repr=False, compare=False)
    _neighbours: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __contains__(self, node: str) -> bool:
        return node in self.g


def _concept_key(occ: Occurrence) -> str:
    for c in occ.concept.codings:
        if c.code:
            return f"{c.system}|{c.code}"
    return occ.concept.normalized


def build_graph(patient: str, occurrences: Iterable[Occurrence]) -> PatientGraph:
    occs = {o.id: o for o in occurrences if o.patient == patient}
    g = nx.MultiDiGraph()
    g.add_nodes_from((oid, {"kind": occ.kind.value, "origin": occ.origin.value}) for oid, occ in occs.items())
    ordered = sorted(occs.values(), key=sort_key)
    # Edges are collected and added in one call: per-edge add_edge calls (and the cache reset
    # networkx does on each) were most of the build. Same edges, keys and data, same order.
    edges: list[tuple[str, str, str, dict]] = []
    add = edges.append

    def edge(a: str, b: str, kind: str) -> None:
        if a in occs and b in occs and a != b:
            add((a, b, kind, {"kind": kind}))
            add((b, a, f"{kind}~", {"kind": kind, "reverse": True}))

    encounters = [o for o in ordered if o.kind is Kind.ENCOUNTER]
    for a, b in itertools.pairwise(encounters):
        edge(a.id, b.id, "next_encounter")
    by_concept: dict[str, list[Occurrence]] = defaultdict(list)
    skip = (Kind.ENCOUNTER, Kind.DOCUMENT, Kind.EPISODE)
    for occ in ordered:
        if occ.encounter and occ.kind is not Kind.ENCOUNTER:
            edge(occ.id, occ.encounter, "in_encounter")
        for relation, target in occ.links:
            edge(occ.id, target, "part_of" if relation == "partOf" else relation)
        for source in occ.derived_from:
            edge(occ.id, source, "derived_from")
        if occ.origin is Origin.NOTE:
            edge(occ.id, occ.source.reference, "mention_of")
        if occ.kind not in skip:
            by_concept[_concept_key(occ)].append(occ)
    for series in by_concept.values():
        for a, b in itertools.pairwise(series):
            numeric = a.value is not None and a.value.quantity is not None
            edge(a.id, b.id, "trajectory" if numeric and a.kind in (Kind.LAB, Kind.VITAL) else "same_concept")
    timed = [o for o in ordered if o.time.resolved and o.kind is not Kind.ENCOUNTER]
    for a, b in itertools.pairwise(timed):
        edge(a.id, b.id, "temporal")
    _add_keyed_edges(g, edges)
    return PatientGraph(patient, g, occs)


def _add_keyed_edges(g: nx.MultiDiGraph, edges: list[tuple[str, str, str, dict]]) -> None:
    """`g.add_edge(u, v, key=k, **data)` for each edge, in one `add_edges_from` call (one cache
    reset instead of one per edge) through networkx's public API."""
    g.add_edges_from(edges)


def neighbours(graph: PatientGraph, node: str, kinds: frozenset[str] | None = None) -> list[str]:
    """Out-neighbours of a node, optionally restricted to edge kinds, in a stable order."""
    if node not in graph.g:
        return []
    if kinds is None:  # the common call: remembered per node (the graph does not change after build)
        cached = graph._neighbours.get(node)
        if cached is None:
            cached = graph._neighbours[node] = tuple(sorted(graph.g.successors(node)))
        return list(cached)
    out = {
        v for _, v, data in graph.g.out_edges(node, data=True) if kinds is None or data["kind"] in kinds
    }
    return sorted(out)


def personalized_pagerank(graph: PatientGraph, anchors: Iterable[str], alpha: float = 0.85) -> dict[str, float]:
    """Diffusion from the anchors (HippoRAG-style); a discovery signal, never evidence.

    Same result as `nx.pagerank(nx.DiGraph(graph.g), alpha, personalization=<anchors>,
    max_iter=100, tol=1e-6)` (the same power iteration, operation for operation), with the
    collapsed graph's transition matrix computed once per graph instead of once per call."""
    seeds = [a for a in anchors if a in graph.g]
    if not seeds:
        return {}
    nodelist, index, A, is_dangling = _transition(graph)
    N = len(nodelist)
    p = np.zeros(N, dtype=float)
    for s in seeds:
        p[index[s]] = 1.0 / len(seeds)
    p /= p.sum()
    dangling_weights = p
    x = np.repeat(1.0 / N, N)
    tol, max_iter = 1e-6, 100
    for _ in range(max_iter):
        xlast = x
        x = alpha * (x @ A + sum(x[is_dangling]) * dangling_weights) + (1 - alpha) * p
        err = np.absolute(x - xlast).sum()
        if err < N * tol:
            return dict(zip(nodelist, map(float, x), strict=True))
    raise nx.PowerIterationFailedConvergence(max_iter)


def _transition(graph: PatientGraph) -> tuple[list[str], dict[str, int], Any, Any]:
    """(nodelist, node -> row, row-stochastic adjacency, dangling rows), as networkx's
    `_pagerank_scipy` builds them for `nx.DiGraph(graph.g)` unweighted. Read straight off the
    multigraph's adjacency: each (u, v) with any edge is one entry of weight 1, as collapsing the
    parallel edges gives. Copying the graph into a DiGraph first (what networkx does) was a third
    of a cold verify hook's query on a large record; the matrix is the same, entry for entry."""
    shape = len(graph.g)  # number_of_edges() would walk every node's degree on each call
    cached = graph._transition
    if cached is not None and cached[0] == shape:
        return cached[1]
    nodelist = list(graph.g)
    index = {n: i for i, n in enumerate(nodelist)}
    rows: list[int] = []
    cols: list[int] = []
    for u, nbrs in graph.g.adjacency():
        i = index[u]
        rows.extend(itertools.repeat(i, len(nbrs)))
        cols.extend(index[v] for v in nbrs)
    N = len(nodelist)
    A = sp.sparse.coo_array((np.ones(len(rows), dtype=float), (rows, cols)), shape=(N, N)).asformat("csr")
    S = A.sum(axis=1)
    S[S != 0] = 1.0 / S[S != 0]
    Q = sp.sparse.dia_array((S.T, 0), shape=A.shape).tocsr()
    A = Q @ A
    is_dangling = np.where(S == 0)[0]
    value = (nodelist, index, A, is_dangling)
    graph._transition = (shape, value)
    return value
