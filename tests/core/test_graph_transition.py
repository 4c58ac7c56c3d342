"""PageRank's transition matrix read straight off the multigraph is networkx's, entry for entry:
the same matrix as `nx.DiGraph(g)` collapsed and `to_scipy_sparse_array`, so the same scores bit
for bit (discovery's ranking, hence every verdict, cannot change with it)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy as sp
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from medeventgraph.core.index.graph import PatientGraph, _transition, personalized_pagerank
from medeventgraph.model.settings import Settings

from .conftest import index_of
from .records import septic_shock_record


def _networkx_transition(g: nx.MultiDiGraph):
    """The construction before: collapse into a DiGraph, then networkx's own scipy matrix."""
    simple = nx.DiGraph(g)
    nodelist = list(simple)
    A = nx.to_scipy_sparse_array(simple, nodelist=nodelist, weight="weight", dtype=float)
    S = A.sum(axis=1)
    S[S != 0] = 1.0 / S[S != 0]
    Q = sp.sparse.dia_array((S.T, 0), shape=A.shape).tocsr()
    return nodelist, Q @ A, np.where(S == 0)[0]


def _same(g: nx.MultiDiGraph) -> None:
    nodelist, _, A, dangling = _transition(PatientGraph("p", g, {}))
    ref_nodes, ref_A, ref_dangling = _networkx_transition(g)
    assert nodelist == ref_nodes
    assert np.array_equal(A.toarray(), ref_A.toarray())  # exact, not approximately
    assert np.array_equal(dangling, ref_dangling)


@hsettings(max_examples=60, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from("ab")), max_size=40))
def test_transition_equals_networkx_on_multigraphs_with_parallel_edges(edges):
    g = nx.MultiDiGraph()
    g.add_nodes_from(str(n) for n in range(8))
    g.add_edges_from((str(a), str(b), k, {"kind": k}) for a, b, k in edges if a != b)
    _same(g)


def test_transition_and_scores_equal_networkx_on_a_patient_graph():
    index = index_of(septic_shock_record(), Settings(notes=False))
    _same(index.graph.g)
    anchors = sorted(index.occurrences)[:3]
    ours = personalized_pagerank(index.graph, anchors)
    weights = {n: float(n in anchors) for n in index.graph.g}
    ref = nx.pagerank(nx.DiGraph(index.graph.g), alpha=0.85, personalization=weights, max_iter=100, tol=1e-6)
    assert ours.keys() == ref.keys() and all(abs(ours[n] - ref[n]) < 1e-12 for n in ref)
