"""The method interface: (index, query, settings) -> Output. A method never sees a label.

Shared helpers bind retrieved occurrences to query events through the core's grounding
(the same binding every operator uses), and run the shared contract + assessor.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from medeventgraph.core.answer import decide
from medeventgraph.core.discover.exhaustive import Discovery
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.evidence.grounding import ground_event, kind_allows
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.lexicon import normalize_text
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.occurrence import Kind
from medeventgraph.model.settings import Settings

__all__ = ["BUDGET", "METHODS", "Method", "Output", "bind", "decide_from", "register", "term_in"]

# One candidate budget for every retrieval operator, B2/B4/B5 and the like-for-like search row
# S20 (the paper's "same candidate caps"); B3 and B6 read every match and say so.
BUDGET = 20
_NAV = frozenset({Kind.ENCOUNTER, Kind.DOCUMENT, Kind.EPISODE})


@dataclass
class Output:
    label: str  # four-way verdict
    retrieved: tuple[str, ...] = ()  # candidate occurrence ids, in the method's order
    chain: tuple[str, ...] | None = None  # occurrence ids of a verified chain (None: not emitted)
    bridges: tuple[str, ...] | None = None  # candidates bound to a hidden event (None: not emitted)
    s_plus: float | None = None  # assessor axes, or a method's own score (B5)
    s_minus: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Method(ABC):
    name: str = ""
    title: str = ""
    uses_assessor: bool = False  # verdicts mapped by tau+/tau- (re-labelled when tuning)
    ablation: bool = False  # the budgeted search measured against B6 (fidelity, ablations): not a peer

    @abstractmethod
    def run(self, index: PatientIndex, query: VerificationQuery, settings: Settings) -> Output: ...


METHODS: dict[str, type[Method]] = {}


def register(cls: type[Method]) -> type[Method]:
    METHODS[cls.name] = cls
    return cls


def term_in(term: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(normalize_text(term))}(?!\w)", normalize_text(text)) is not None


def bind(index: PatientIndex, query: VerificationQuery, ids: list[str]) -> list[Candidate]:
    """Retrieved occurrences -> contract candidates, bound to the events they ground."""
    occs = [index.occurrences[i] for i in ids if i in index.occurrences]
    occs = [o for o in occs if o.kind not in _NAV]
    bound: dict[str, list[BindingBasis]] = {}
    for event in query.events:
        if event.hidden:
            hits = [(o.id, BindingBasis(event.id, BasisKind.KIND, event.kind or ""))
                    for o in occs if kind_allows(event.kind, o.kind)]
        else:
            hits = [(m.occurrence, m.basis) for m in ground_event(event, occs, index.lexicon, index.displays).matches]
        for h, basis in hits:
            bound.setdefault(h, []).append(basis)
    return [Candidate(index.occurrences[i], tuple(bases)) for i, bases in bound.items()]


def decide_from(index: PatientIndex, query: VerificationQuery, ranked: list[str], name: str) -> Output:
    """Feed an operator's ranked candidates to the SAME contract + assessor as MedEventGraph."""
    ranked = list(dict.fromkeys(ranked))[:BUDGET]
    candidates = bind(index, query, ranked)
    bundle, a = decide(index, query, Discovery(candidates, {"discovery": name}))
    hidden = {e.id for e in query.events if e.hidden}
    bridges = tuple(c.occurrence.id for c in candidates if hidden & set(c.events))
    chain = tuple(a.supporting) if a.label.value == "supported" else ()
    return Output(a.label.value, tuple(ranked), chain, bridges if hidden else None, a.s_plus, a.s_minus,
                  {"bundle": len(bundle.items)})
