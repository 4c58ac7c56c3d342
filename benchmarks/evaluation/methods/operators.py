"""Published retrieval operators on the shared index, feeding the SAME contract + assessor.

Only the online retrieval operator differs from B6 (paper Table 2): each returns a ranked
candidate list capped at BUDGET, bound to query events through the core grounding, then
`core.verify.decide` contracts and assesses it.

HippoRAG 2  personalised PageRank over the patient graph seeded by lexical hits per event.
LightRAG    dual-level keywords: low level (each event's own words, entity retrieval) and
            high level (the relation's words over both events, plus metadata retrieval of
            the query kinds inside the encounters the low level reached).
KG2RAG      seed chunks by BM25 over the whole query, then one-hop graph expansion.
"""

from __future__ import annotations

from medeventgraph.core.index.graph import neighbours, personalized_pagerank
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.evaluation.methods.base import BUDGET, Method, decide_from, register
from medeventgraph.evaluation.methods.baselines import query_text
from medeventgraph.model.occurrence import Kind

__all__ = ["KG2RAG", "HippoRAG2", "LightRAG"]

_KIND = {"medication": Kind.MEDICATION, "lab": Kind.LAB, "procedure": Kind.PROCEDURE, "condition": Kind.CONDITION,
         "vital": Kind.VITAL, "immunization": Kind.IMMUNIZATION, "allergy": Kind.ALLERGY, "derived": Kind.DERIVED}


def _interleave(lists: list[list[str]]) -> list[str]:
    out: list[str] = []
    for k in range(max((len(x) for x in lists), default=0)):
        out.extend(x[k] for x in lists if k < len(x))
    return list(dict.fromkeys(out))


@register
class HippoRAG2(Method):
    name, title, uses_assessor = "hipporag2", "HippoRAG 2 operator", True

    def run(self, index, query, settings):
        seeds = [i for e in query.events if e.text and not e.hidden for i, _ in index.store.lexical(e.text, 5)]
        ppr = personalized_pagerank(index.graph, seeds)
        ranked = sorted((n for n in ppr if n in index.store), key=lambda n: (-ppr[n], n))
        return decide_from(index, query, ranked, self.name)


@register
class LightRAG(Method):
    name, title, uses_assessor = "lightrag", "LightRAG operator", True

    def run(self, index, query: VerificationQuery, settings):
        low = [[i for i, _ in index.store.lexical(e.text, BUDGET // 2)] for e in query.events if e.text and not e.hidden]
        words = {r.type.value for r in query.relations}
        high = [i for i, _ in index.store.lexical(query_text(query) + " " + " ".join(sorted(words)), BUDGET)]
        encounters = sorted({index.store.get(i).encounter for x in low for i in x if index.store.get(i).encounter})
        kinds = {_KIND[e.kind] for e in query.events if e.kind in _KIND}
        meta = [i for enc in encounters for i in index.store.metadata(kinds=kinds, encounter=enc)]
        return decide_from(index, query, _interleave(low + [high, meta]), self.name)


@register
class KG2RAG(Method):
    name, title, uses_assessor = "kg2rag", "KG2RAG operator", True

    def run(self, index, query, settings):
        seeds = [i for i, _ in index.store.lexical(query_text(query), BUDGET // 2)]
        expanded = [n for s in seeds for n in neighbours(index.graph, s) if n in index.store]
        return decide_from(index, query, seeds + expanded, self.name)
