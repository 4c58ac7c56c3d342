"""Verification entry point: query + patient index -> Verdict.

ground (every occurrence that can stand for each event) -> discover (nominate candidates) ->
contract (admit, measure coverage against the grounding, freeze, hash) -> assess (bundle only)
-> report. This module is where a verdict is decided in one look: `assess(bundle)` is the only
call that sees evidence and returns a label.

Discovery is exhaustive by default (every grounded occurrence: core.simple), on every surface.
`settings.discovery = "search"` selects the budgeted search (core.discovery), for where a budget
is real: what an LLM assessor or a dense search over a very large record can look at.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterable, Sequence

from medeventgraph.core.assess import Assessment, assess
from medeventgraph.core.contract import Candidate, EvidenceBundle, contract
from medeventgraph.core.index import PatientIndex
from medeventgraph.core.query import VerificationQuery
from medeventgraph.core.report import to_verdict
from medeventgraph.core.simple import (
    DiscoverFn,
    Discovery,
    ground_all,
    grounded_candidates,
    query_mentions,
    simple_discovery,
)
from medeventgraph.core.verdict import Verdict
from medeventgraph.settings import Settings

__all__ = ["Discovery", "admit", "decide", "default_discover", "ground_all", "simple_discovery", "verify_query"]


def default_discover(settings: Settings) -> DiscoverFn:
    """The discovery function the settings ask for."""
    if settings.discovery == "exhaustive":
        return simple_discovery
    search = _search(settings)
    return lambda index, query, s: search(index, query, s)


def _search(settings: Settings) -> Callable[..., Discovery]:
    """The budgeted search (imported only when asked for)."""
    from medeventgraph.core.discovery import controller_discovery

    def discover(index: PatientIndex, query: VerificationQuery, s: Settings, **known: object) -> Discovery:
        return controller_discovery(index, query, s, **known)  # type: ignore[arg-type]

    return discover


def decide(
    index: PatientIndex,
    query: VerificationQuery,
    discovery: Discovery,
    assessor: Callable[[EvidenceBundle], Assessment] = assess,
    reference: Sequence[Candidate] | None = None,
) -> tuple[EvidenceBundle, Assessment]:
    """Contract then assess: nothing from discovery but the candidates themselves gets through."""
    bundle = admit(index, query, discovery.candidates, reference)
    return bundle, assessor(bundle)


def admit(
    index: PatientIndex,
    query: VerificationQuery,
    candidates: Iterable[Candidate],
    reference: Sequence[Candidate] | None = None,
) -> EvidenceBundle:
    """The contract against this index: the record's resources and notes, its episodes, the
    lexicon, its own occurrences (plus the query's note mentions) as provenance, and every
    grounded occurrence (`reference`, computed here when not given) to measure coverage by."""
    known = ChainMap(index.occurrences, {o.id: o for o in query_mentions(index, query)})
    if reference is None:
        reference = grounded_candidates(index, query)
    return contract(query, index.patient, candidates, index.record.resources, index.documents, index.episodes,
                    index.lexicon, known, reference)


def verify_query(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    *,
    discover: DiscoverFn | None = None,
) -> Verdict:
    groundings = ground_all(index, query)
    reference = grounded_candidates(index, query, groundings)
    if discover is None and settings.discovery == "exhaustive":
        discovery = simple_discovery(index, query, settings, groundings, reference)
    elif discover is None:
        discovery = _search(settings)(index, query, settings, groundings=groundings, reference=reference)
    else:
        discovery = discover(index, query, settings)
    llm = None
    if settings.assessor == "llm":  # the optional extra: judgments from an OpenAI-compatible endpoint
        from medeventgraph.core.assess_llm import LLMAssessor
        from medeventgraph.core.redaction import patient_terms

        llm = LLMAssessor(settings, patient_terms=patient_terms(index.patient, index.record.resources))
    bundle, assessment = decide(index, query, discovery, llm or assess, reference)
    metadata = dict(discovery.metadata)
    if llm is not None:
        metadata["assessor"] = llm.audit
    verdict = to_verdict(index, bundle, assessment, metadata)
    if llm is not None:
        verdict.issues.extend(issue.to_fhir() for issue in llm.issues)
    return verdict
