"""Two-sided obligations and structured failures (Algorithm 1, lines 1, 16, 17, 19).

Aligned obligations: every named event has an affirmed grounding in the bundle, and every
relation has a time-resolved deciding pair. Counter obligations: counter queries have run
for every event. A structured failure names the first unmet obligation in a form the
replanner can act on; it carries no patient content.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from medeventgraph.core.decide.assess import Assessment
from medeventgraph.core.evidence.contract import EvidenceBundle
from medeventgraph.core.evidence.timing import Timing
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import FailureType, Label

__all__ = ["Obligations", "init_obligations", "resolved", "structured_failure", "update_obligations"]


@dataclass(frozen=True, slots=True)
class Obligations:
    endpoints: tuple[tuple[str, bool], ...]  # (event, grounded by an affirmed item)
    transitions: tuple[str, ...]  # per relation: compatible | incompatible | unknown | open
    countered: tuple[tuple[str, bool], ...]  # (event, counter queries have run)

    def describe(self) -> dict[str, object]:
        return {
            "endpoints": dict(self.endpoints),
            "transitions": list(self.transitions),
            "countered": dict(self.countered),
        }


def init_obligations(query: VerificationQuery) -> Obligations:
    events = [e.id for e in query.events]
    return Obligations(
        endpoints=tuple((e, False) for e in events),
        transitions=tuple("open" for _ in query.relations),
        countered=tuple((e, False) for e in events),
    )


def mark_countered(u: Obligations, events: list[str]) -> Obligations:
    done = set(events)
    return replace(u, countered=tuple((e, ok or e in done) for e, ok in u.countered))


def update_obligations(u: Obligations, bundle: EvidenceBundle, assessment: Assessment) -> Obligations:
    affirmed = {e for i in bundle.items if i.assertion.affirmed_current for e in i.events}
    transitions = tuple(f.timing.value for f in assessment.relations) or u.transitions
    return replace(u, endpoints=tuple((e, e in affirmed) for e, _ in u.endpoints), transitions=transitions)


def resolved(u: Obligations, assessment: Assessment) -> bool:
    """Both sides are done: endpoints grounded, transitions decided, counter search run."""
    if not all(ok for _, ok in u.countered):
        return False
    if assessment.label in (Label.SUPPORTED, Label.REFUTED):
        return True
    return all(ok for _, ok in u.endpoints) and all(t in (Timing.COMPATIBLE.value, Timing.INCOMPATIBLE.value)
                                                    for t in u.transitions)


def structured_failure(u: Obligations, assessment: Assessment) -> FailureType | None:
    if resolved(u, assessment):
        return None
    if any(not ok for _, ok in u.endpoints):
        return FailureType.MISSING_ENDPOINT
    if assessment.failure is not None:
        return assessment.failure
    open_count = sum(t != Timing.COMPATIBLE.value for t in u.transitions)
    if open_count and len(u.transitions) > 1:
        return FailureType.UNRESOLVED_TRANSITION
    return FailureType.UNRESOLVED_TIME if open_count else None
