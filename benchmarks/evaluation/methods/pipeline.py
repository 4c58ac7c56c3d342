"""B6 MedEventGraph (the controller under the shared candidate budget), B7 (+ memory), the
controller's ablations, and exhaustive grounding (the simple path, unbudgeted reference).

Every budgeted method hands the contract at most BUDGET candidates, as the retrieval
operators do; "exhaustive" is the one row without a budget, shown as the reference the
controller is measured against, not as a peer.
"""

from __future__ import annotations

from medeventgraph.core.discovery import controller_discovery
from medeventgraph.core.index import PatientIndex
from medeventgraph.core.memory import load_memory
from medeventgraph.core.query import VerificationQuery
from medeventgraph.core.verdict import Verdict
from medeventgraph.core.verify import simple_discovery, verify_query
from medeventgraph.evaluation.methods.base import BUDGET, Method, Output, register
from medeventgraph.settings import Settings

__all__ = ["ABLATION_METHODS", "Exhaustive", "MedEventGraph", "MedEventGraphMemory"]


def _output(v: Verdict, query: VerificationQuery) -> Output:
    hidden = {e.id for e in query.events if e.hidden}
    retrieved = tuple(e.occurrence for e in v.evidence)
    bridges = tuple(e.occurrence for e in v.evidence if hidden & set(e.events)) if hidden else None
    chain = tuple(dict.fromkeys(i for r in v.relations for i in r.pair)) if v.verdict.value == "supported" else ()
    return Output(v.verdict.value, retrieved, chain, bridges, v.s_plus, v.s_minus,
                  {"bundle": len(v.evidence), "failure": v.failure.value if v.failure else None,
                   "search_keys": sorted(v.search)})


@register
class MedEventGraph(Method):
    name = "B6"
    title = "B6 MedEventGraph (controller, budget 20)"
    uses_assessor = True
    memory = False
    ablate: frozenset[str] = frozenset()

    def run(self, index: PatientIndex, query: VerificationQuery, settings: Settings) -> Output:
        s = settings.model_copy(update={"final_contexts": BUDGET, "discovery": "controller"})
        edits = load_memory(settings.memory_path).edits() if self.memory else None

        def discover(i, q, st):
            return controller_discovery(i, q, st, memory=edits, ablate=self.ablate, budget=BUDGET)

        return _output(verify_query(index, query, s, discover=discover), query)


@register
class MedEventGraphMemory(MedEventGraph):
    name = "B7"
    title = "B7 MedEventGraph + memory (budget 20)"
    memory = True


def _ablation(part: str, label: str) -> type[MedEventGraph]:
    cls = type(f"B6Without{part.title()}", (MedEventGraph,), {
        "name": f"B6-{part}-off", "title": f"B6 without {label} (budget 20)", "ablate": frozenset({part}),
        "ablation": True,
    })
    return register(cls)  # type: ignore[return-value]


ABLATION_METHODS = tuple(m.name for m in (
    _ablation("ppr", "personalised PageRank"),
    _ablation("retrieval", "channel retrieval"),
    _ablation("topb", "TopB"),
    _ablation("exhaustive", "the record-wide deciding pass (search alone)"),
))


@register
class Exhaustive(Method):
    name = "exhaustive"
    title = "Exhaustive grounding only (simple path, no budget)"
    uses_assessor = True
    ablation = True

    def run(self, index: PatientIndex, query: VerificationQuery, settings: Settings) -> Output:
        s = settings.model_copy(update={"discovery": "simple"})
        return _output(verify_query(index, query, s, discover=simple_discovery), query)
