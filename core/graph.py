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
from dataclasses import dataclass
from datetime import UTC, datetime

import networkx as nx
from medeventgraph.occurrence import Kind, Occurrence, Origin

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

    def __contains__(self, node: str) -> bool:
        return node in self.g


def _concept_key(occ: Occurrence) -> str:
    coded = next((f"{c.system}|{c.code}" for c in occ.concept.codings if c.code), None)
    return coded or occ.concept.normalized


def build_graph(patient: str, occurrences: Iterable[Occurrence]) -> PatientGraph:
    occs = {o.id: o for o in occurrences if o.patient == patient}
    g = nx.MultiDiGraph()
    for oid, occ in occs.items():
        g.add_node(oid, kind=occ.kind.value, origin=occ.origin.value)
    ordered = sorted(occs.values(), key=sort_key)

    def edge(a: str, b: str, kind: str) -> None:
        if a in occs and b in occs and a != b:
            g.add_edge(a, b, key=kind, kind=kind)
            g.add_edge(b, a, key=f"{kind}~", kind=kind, reverse=True)

    encounters = [o for o in ordered if o.kind is Kind.ENCOUNTER]
    for a, b in itertools.pairwise(encounters):
        edge(a.id, b.id, "next_encounter")
    by_concept: dict[str, list[Occurrence]] = defaultdict(list)
    for occ in ordered:
        if occ.encounter and occ.kind is not Kind.ENCOUNTER:
            edge(occ.id, occ.encounter, "in_encounter")
        for relation, target in occ.links:
            edge(occ.id, target, "part_of" if relation == "partOf" else relation)
        for source in occ.derived_from:
            edge(occ.id, source, "derived_from")
        if occ.origin is Origin.NOTE:
            edge(occ.id, occ.source.reference, "mention_of")
        if occ.kind not in (Kind.ENCOUNTER, Kind.DOCUMENT, Kind.EPISODE):
            by_concept[_concept_key(occ)].append(occ)
    for series in by_concept.values():
        for a, b in itertools.pairwise(series):
            numeric = a.value is not None and a.value.quantity is not None
            edge(a.id, b.id, "trajectory" if numeric and a.kind in (Kind.LAB, Kind.VITAL) else "same_concept")
    timed = [o for o in ordered if o.time.resolved and o.kind is not Kind.ENCOUNTER]
    for a, b in itertools.pairwise(timed):
        edge(a.id, b.id, "temporal")
    return PatientGraph(patient, g, occs)


def neighbours(graph: PatientGraph, node: str, kinds: frozenset[str] | None = None) -> list[str]:
    """Out-neighbours of a node, optionally restricted to edge kinds, in a stable order."""
    if node not in graph.g:
        return []
    out = {
        v for _, v, data in graph.g.out_edges(node, data=True) if kinds is None or data["kind"] in kinds
    }
    return sorted(out)


def personalized_pagerank(graph: PatientGraph, anchors: Iterable[str], alpha: float = 0.85) -> dict[str, float]:
    """Diffusion from the anchors (HippoRAG-style); a discovery signal, never evidence."""
    seeds = [a for a in anchors if a in graph.g]
    if not seeds:
        return {}
    simple = nx.DiGraph(graph.g)  # collapse parallel edges; weights are not evidence either
    personalization = {n: 0.0 for n in simple}
    for s in seeds:
        personalization[s] = 1.0 / len(seeds)
    return nx.pagerank(simple, alpha=alpha, personalization=personalization, max_iter=100, tol=1e-6)
