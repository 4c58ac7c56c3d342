"""The controller's parts on their own: PPR, graph building, signals, paths and TopB,
obligations, replanning and two-sided retrieval binding."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from medeventgraph.core.decide.assess import assess
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.chains import RankContext, enumerate_paths, rank_paths, top_b
from medeventgraph.core.discover.exhaustive import simple_discovery
from medeventgraph.core.discover.obligations import (
    init_obligations,
    mark_countered,
    resolved,
    structured_failure,
    update_obligations,
)
from medeventgraph.core.discover.priority import Path as ChainPath
from medeventgraph.core.discover.priority import lifted_product, transition_coverage
from medeventgraph.core.discover.replan import (
    DEFAULT_EDITS,
    MAX_HITS,
    Policy,
    apply_edits,
    initial_policy,
    replan,
)
from medeventgraph.core.discover.twosided import bind, query_texts
from medeventgraph.core.evidence.timing import span_of
from medeventgraph.core.index.graph import PatientGraph, build_graph, neighbours, personalized_pagerank
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.settings import Settings

from .conftest import index_of
from .helpers import pair
from .records import septic_shock_record

CORE = Path(__file__).resolve().parents[2] / "core"
S = Settings(notes=False)


@pytest.fixture(scope="module")
def shock():
    return index_of(septic_shock_record(), S)


_EDGES = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=40)


@hsettings(max_examples=40, deadline=None)
@given(edges=_EDGES, seeds=st.lists(st.integers(0, 9), min_size=1, max_size=3), alpha=st.sampled_from([0.5, 0.85]))
def test_personalised_pagerank_equals_networkx(edges, seeds, alpha):
    g = nx.MultiDiGraph()
    g.add_nodes_from(str(n) for n in range(10))
    g.add_edges_from((str(a), str(b), "k", {"kind": "k"}) for a, b in edges if a != b)
    graph = PatientGraph("p", g, {})
    anchors = [str(s) for s in seeds]
    ours = personalized_pagerank(graph, anchors, alpha)
    weights = {n: float(n in anchors) for n in g}  # uniform over the distinct anchors
    ref = nx.pagerank(nx.DiGraph(g), alpha=alpha, personalization=weights, max_iter=100, tol=1e-6)
    assert ours.keys() == ref.keys()
    assert all(abs(ours[n] - ref[n]) < 1e-9 for n in ref)
    assert personalized_pagerank(graph, ["absent"]) == {}


def test_graph_is_built_through_the_public_networkx_api():
    tree = ast.parse((CORE / "index" / "graph.py").read_text())
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith("_")
               and n.attr not in ("_transition", "_neighbours")]
    assert private == [], private


def test_graph_edges_and_neighbours(shock):
    g = build_graph(shock.patient, shock.occurrences.values())
    vanc = next(o for o in shock.occurrences if o.endswith("meg-bind-vanc-1"))
    kinds = {d["kind"] for _, _, d in g.g.out_edges(vanc, data=True)}
    assert {"in_encounter", "same_concept", "temporal"} <= kinds
    assert neighbours(g, vanc) == sorted(set(g.g.successors(vanc)))
    assert neighbours(g, vanc, frozenset({"in_encounter"})) == ["Encounter/meg-bind-enc-1"]
    assert neighbours(g, "nowhere") == []


def test_lifted_product_keeps_weak_paths_eligible():
    assert lifted_product({"a": 0.0, "b": 0.0}, 0.2) == pytest.approx(0.04)
    assert lifted_product({"a": 1.0, "b": 2.0}, 0.2) == 1.0  # clipped to [0, 1]
    assert lifted_product({}, 0.2) == 1.0


def _ctx(index, query, pool_ids):
    occ = index.occurrences
    return RankContext(query=query, occ=occ, ppr=personalized_pagerank(index.graph, pool_ids),
                       spans={o: span_of(occ[o].time, occ[o].documented, False) for o in pool_ids},
                       sourced={o: True for o in pool_ids}, units={o: occ[o].encounter for o in pool_ids}, eps=0.2)


def test_paths_ranking_and_top_b_keep_a_counter_share(shock):
    q = pair("vancomycin", "norepinephrine")
    d = simple_discovery(shock, q, S)
    pool = {e: sorted(c.occurrence.id for c in d.candidates if e in c.events) for e in ("e0", "e1")}
    ids = sorted({o for v in pool.values() for o in v})
    ctx = _ctx(shock, q, ids)
    paths = enumerate_paths(pool, ctx, {}, 16)
    assert len(paths) == len(pool["e0"]) * len(pool["e1"]) == 2
    ranked = rank_paths(paths, ctx, {})
    assert [x.r for x in ranked] == sorted((x.r for x in ranked), reverse=True)
    assert all(0.2 ** 6 <= x.r <= 1.0 for x in ranked)
    reversed_q = pair("norepinephrine", "vancomycin")
    rpool = {"e0": pool["e1"], "e1": pool["e0"]}
    counter = rank_paths(enumerate_paths(rpool, _ctx(shock, reversed_q, ids), {}, 16), _ctx(shock, reversed_q, ids), {})
    assert all(x.counter for x in counter)  # every order is against the query: counter paths
    mixed = sorted(ranked + counter, key=lambda x: -x.r)
    chosen = top_b(mixed, 3)
    assert len(chosen) == 3 and any(x.counter for x in chosen)
    assert top_b(mixed, 1) and len(top_b(mixed, 10)) == len(mixed)
    assert enumerate_paths({"e0": pool["e0"], "e1": []}, ctx, {}, 16) == []


def test_transition_coverage_counts_examinable_transitions():
    q = pair("a", "b")
    p = ChainPath((("e0", "x"), ("e1", "y")))
    assert transition_coverage(p, q, {"x": object(), "y": object()}, {"x": True, "y": True}) == 1.0
    assert transition_coverage(p, q, {"x": object(), "y": None}, {"x": True, "y": True}) == 0.0


def test_obligations_track_both_sides(shock):
    q = pair("vancomycin", "septic shock", kb="condition")
    u = init_obligations(q)
    assert structured_failure(u, assess(admit(shock, q, []))) is FailureType.MISSING_ENDPOINT
    bundle = admit(shock, q, simple_discovery(shock, q, S).candidates)
    a = assess(bundle)
    assert a.label is Label.SUPPORTED
    u = update_obligations(u, bundle, a)
    assert dict(u.endpoints) == {"e0": True, "e1": True} and u.transitions == ("compatible",)
    assert not resolved(u, a)  # counter queries have not run yet
    u = mark_countered(u, ["e0", "e1"])
    assert resolved(u, a) and structured_failure(u, a) is None


def test_replanning_edits_retrieval_only_and_stays_bounded():
    p = initial_policy(("lexical", "metadata", "dense"), dense=False)
    assert p.channels == ("lexical", "metadata")
    q = replan(p, FailureType.MISSING_ENDPOINT, dense_ok=True)
    assert "dense" in q.channels and q.note_mentions and q.window_hours == p.window_hours * 4
    assert replan(p, FailureType.MISSING_ENDPOINT, dense_ok=False).channels == p.channels
    table = {FailureType.SCOPE: {"follow_episode": True}}
    assert replan(p, FailureType.SCOPE, dense_ok=False, table=table) == Policy(
        channels=p.channels, follow_episode=True)
    for failure in DEFAULT_EDITS:
        cur = p
        for _ in range(20):
            nxt = replan(cur, failure, dense_ok=True)
            # a retry differs until every axis is at its cap
            assert nxt != cur or (cur.hits == MAX_HITS and cur.window_hours == 24 * 365)
            cur = nxt
        assert cur.hits <= MAX_HITS and cur.window_hours <= 24 * 365
    assert apply_edits(p, {"add_channel": "nonsense"}, True) == p


def test_retrieval_nominates_and_grounding_binds(shock):
    q = pair("vancomycin", "norepinephrine")
    texts = query_texts(q, shock.lexicon, initial_policy())
    assert texts["e0"]["aligned"][0].startswith("vancomycin") and any("held" in t for t in texts["e0"]["counter"])
    bindmap = {"MedicationAdministration/meg-bind-vanc-1": ("e0",)}
    assert bind(["Condition/meg-bind-shock-1", "MedicationAdministration/meg-bind-vanc-1"], bindmap) == bindmap
