"""B6 MedEventGraph (the default path: exhaustive grounding -> contract -> assess, no budget),
and the budgeted search it is measured against.

S5/S10/S20/S40 run the search alone (core.discovery, no record-wide pass) with that many
candidates at most: the fidelity rows (share of verdicts equal to B6's, and the cost saved).
S20 is the like-for-like peer of the retrieval operators (their budget is 20 too). The S20
ablations switch one part of the search off.
Each search row also records what its bundle would have said if it were read as complete
(`as_complete`): the refutations the completeness rule keeps a budget from making.
"""

from __future__ import annotations

from dataclasses import replace

from medeventgraph.core.answer import verify_query
from medeventgraph.core.decide.assess import assess
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import ground_all, grounded_candidates
from medeventgraph.core.discover.search import controller_discovery
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Verdict
from medeventgraph.core.report.to_verdict import to_verdict
from medeventgraph.evaluation.methods.base import Method, Output, register
from medeventgraph.model.settings import Settings

__all__ = ["ABLATION_METHODS", "FIDELITY_BUDGETS", "MedEventGraph", "Search"]

FIDELITY_BUDGETS = (5, 10, 20, 40)


def _output(v: Verdict, query: VerificationQuery, **extra: object) -> Output:
    hidden = {e.id for e in query.events if e.hidden}
    retrieved = tuple(e.occurrence for e in v.evidence)
    bridges = tuple(e.occurrence for e in v.evidence if hidden & set(e.events)) if hidden else None
    chain = tuple(dict.fromkeys(i for r in v.relations for i in r.pair)) if v.verdict.value == "supported" else ()
    return Output(v.verdict.value, retrieved, chain, bridges, v.s_plus, v.s_minus,
                  {"bundle": len(v.evidence), "failure": v.failure.value if v.failure else None,
                   "search_keys": sorted(v.search), **extra})


@register
class MedEventGraph(Method):
    name = "B6"
    title = "B6 MedEventGraph (exhaustive grounding, no budget)"
    uses_assessor = True
    budget = None

    def run(self, index: PatientIndex, query: VerificationQuery, settings: Settings) -> Output:
        s = settings.model_copy(update={"discovery": "exhaustive"})
        return _output(verify_query(index, query, s), query)


class Search(Method):
    """The budgeted search alone: at most `budget` candidates, chosen by the controller."""

    uses_assessor = True
    ablation = True  # measured against B6, not a peer of it
    budget: int = 20
    ablate: frozenset[str] = frozenset()

    def run(self, index: PatientIndex, query: VerificationQuery, settings: Settings) -> Output:
        s = settings.model_copy(update={"final_contexts": self.budget, "discovery": "search"})
        groundings = ground_all(index, query)
        reference = grounded_candidates(index, query, groundings)
        discovery = controller_discovery(index, query, s, ablate=self.ablate, groundings=groundings,
                                         reference=reference)
        bundle = admit(index, query, discovery.candidates, reference)
        a = assess(bundle)
        whole = tuple((e, u, n, n) for e, u, _, n in bundle.coverage)
        as_complete = assess(replace(bundle, coverage=whole)).label.value if whole != bundle.coverage else a.label.value
        v = to_verdict(index, bundle, a, discovery.metadata)
        return _output(v, query, complete=whole == bundle.coverage, as_complete=as_complete)


def _search(budget: int, part: str | None = None) -> str:
    name = f"S{budget}" + (f"-{part}-off" if part else "")
    what = {"ppr": "personalised PageRank", "retrieval": "channel retrieval", "topb": "TopB",
            "replan": "replanning"}.get(part or "")
    title = f"search alone, budget {budget}" + (f", without {what}" if what else "")
    cls = type(f"Search{name.replace('-', '_')}", (Search,), {
        "name": name, "title": title, "budget": budget, "ablate": frozenset({part} if part else ()),
    })
    register(cls)
    return name


FIDELITY_METHODS = tuple(_search(b) for b in FIDELITY_BUDGETS)
ABLATION_METHODS = tuple(_search(20, p) for p in ("ppr", "retrieval", "topb", "replan"))
