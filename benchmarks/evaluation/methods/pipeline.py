"""B6 MedEventGraph (`verify_query`, whatever discovery is its default) and B7 (+ memory)."""

from __future__ import annotations

from medeventgraph.core.index import PatientIndex
from medeventgraph.core.query import VerificationQuery
from medeventgraph.core.verify import verify_query
from medeventgraph.evaluation.methods.base import Method, Output, register
from medeventgraph.settings import Settings

__all__ = ["MedEventGraph", "MedEventGraphMemory"]


@register
class MedEventGraph(Method):
    name = "B6"
    title = "B6 MedEventGraph"
    uses_assessor = True
    memory = False

    def run(self, index: PatientIndex, query: VerificationQuery, settings: Settings) -> Output:
        s = settings.model_copy(update={"memory": self.memory})
        v = verify_query(index, query, s)
        hidden = {e.id for e in query.events if e.hidden}
        retrieved = tuple(e.occurrence for e in v.evidence)
        bridges = tuple(e.occurrence for e in v.evidence if hidden & set(e.events)) if hidden else None
        chain = tuple(dict.fromkeys(i for r in v.relations for i in r.pair)) if v.verdict.value == "supported" else ()
        return Output(v.verdict.value, retrieved, chain, bridges, v.s_plus, v.s_minus,
                      {"bundle": len(v.evidence), "failure": v.failure.value if v.failure else None,
                       "search_keys": sorted(v.search)})


@register
class MedEventGraphMemory(MedEventGraph):
    name = "B7"
    title = "B7 MedEventGraph + memory"
    memory = True
