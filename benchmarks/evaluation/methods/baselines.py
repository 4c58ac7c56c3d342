"""B1-B5: the paper's controls, each deciding WITHOUT the isolated contract + assessor.

B1 direct        no retrieval: the query alone carries no evidence -> insufficient.
B2 text-RAG      BM25 over rendered resources/notes (top BUDGET); supported when every
                 named event's text appears in a retrieved context (verdict = retrieval).
B3 KG-only       every graph node matched by name (no budget: it reads the whole graph);
                 supported when graph order (the temporal chain's sort order) puts them as
                 stated within one encounter node; no contexts.
B4 loose hybrid  BUDGET/2 BM25 seeds plus one graph hop, BUDGET in all; supported when bound
                 items' recorded start times are in the stated order, ignoring scope, window
                 and granularity.
B5 graph-text    PPR from BM25 seeds, the BUDGET best nodes; supported when the coupled
                 retrieval score of the events' best candidates reaches a threshold chosen on
                 dev (no assessor).
"""

from __future__ import annotations

from itertools import product

from medeventgraph.core.index.graph import neighbours, personalized_pagerank, sort_key
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.model import RelationType, VerificationQuery
from medeventgraph.evaluation.methods.base import BUDGET, Method, Output, bind, register, term_in

__all__ = ["Direct", "GraphOnly", "GraphText", "LooseHybrid", "TextRAG", "query_text"]


def query_text(query: VerificationQuery) -> str:
    return " ".join(e.text for e in query.events if e.text and not e.hidden)


def _holds(rel_type: RelationType, ka, kb) -> bool:
    if rel_type is RelationType.AFTER:
        return kb < ka
    if rel_type is RelationType.BEFORE:
        return ka < kb
    return ka == kb


@register
class Direct(Method):
    name, title = "B1", "B1 direct (no retrieval)"

    def run(self, index, query, settings):
        return Output("insufficient")


@register
class TextRAG(Method):
    name, title = "B2", "B2 text-only RAG"

    def run(self, index, query, settings):
        hits = [i for i, _ in index.store.lexical(query_text(query), BUDGET)]
        texts = [index.store.get(i).text for i in hits]
        named = [e for e in query.events if not e.hidden]
        found = all(any(term_in(e.text or "", t) for t in texts) for e in named)
        return Output("supported" if found else "insufficient", tuple(hits))


def _by_event(index: PatientIndex, query: VerificationQuery, ids: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {e.id: [] for e in query.events}
    for c in bind(index, query, ids):
        for e in c.events:
            out[e].append(c.occurrence.id)
    return out


@register
class GraphOnly(Method):
    name, title = "B3", "B3 KG-only (graph order)"

    def run(self, index, query, settings):
        g = index.graph
        nodes = [n for n in g.occurrences if n in g]
        cands = _by_event(index, query, nodes)
        order = {o.id: k for k, o in enumerate(sorted(g.occurrences.values(), key=sort_key))}

        def unit(n: str) -> str:
            enc = neighbours(g, n, frozenset({"in_encounter"}))
            return enc[0] if enc and query.scope.value == "encounter" else "patient"

        units = {n: unit(n) for ns in cands.values() for n in ns}
        ok = any(
            all(any(_holds(r.type, order[a], order[b]) for a, b in product(cands[r.source], cands[r.target])
                    if units[a] == u and units[b] == u) for r in query.relations)
            for u in set(units.values())
        )
        retrieved = tuple(n for ns in cands.values() for n in ns)
        return Output("supported" if ok else "insufficient", retrieved, None,
                      tuple(n for e in query.events if e.hidden for n in cands[e.id]) or None)


@register
class LooseHybrid(Method):
    name, title = "B4", "B4 loose hybrid"

    def run(self, index, query, settings):
        hits = [i for i, _ in index.store.lexical(query_text(query), BUDGET // 2)]
        ids = list(dict.fromkeys(hits + [n for h in hits for n in neighbours(index.graph, h)]))[:BUDGET]
        cands = _by_event(index, query, ids)
        times = {i: index.occurrences[i].time.start or (index.occurrences[i].documented.start
                 if index.occurrences[i].documented else None) for ns in cands.values() for i in ns}
        ok = all(
            any(times[a] and times[b] and _holds(r.type, times[a], times[b])
                for a, b in product(cands[r.source], cands[r.target]))
            for r in query.relations
        )
        return Output("supported" if ok else "insufficient", tuple(ids))


@register
class GraphText(Method):
    name, title = "B5", "B5 graph-text coupled"
    threshold = 0.5  # replaced by the dev-selected value (see tuning.py)

    def run(self, index, query, settings):
        hits = index.store.lexical(query_text(query), BUDGET)
        ppr = personalized_pagerank(index.graph, [i for i, _ in hits])
        ranked = sorted(ppr, key=lambda n: (-ppr[n], n))[:BUDGET]
        cands = _by_event(index, query, ranked)
        top = max(ppr.values(), default=1.0) or 1.0
        # coupled score: the weakest event's best diffusion score, relative to the top node
        score = min((max((ppr.get(i, 0.0) for i in ns), default=0.0) / top for ns in cands.values()), default=0.0)
        label = "supported" if score >= self.threshold else "insufficient"
        return Output(label, tuple(ranked), None, None, round(score, 6), None)
