"""Verification entry point: query + patient index -> Verdict.

discover (nominate candidates; may use scores) -> contract (admit, freeze, hash) ->
assess (bundle only) -> report. This module is where a verdict is decided in one look:
`assess(bundle)` is the only call that sees evidence and returns a label.

Discovery is the controller (core.discovery) by default; `settings.discovery = "simple"`
or `discover=simple_discovery` selects the spine's simple path.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterable

from medeventgraph.core.assess import Assessment, assess
from medeventgraph.core.contract import Candidate, EvidenceBundle, contract
from medeventgraph.core.index import PatientIndex
from medeventgraph.core.query import VerificationQuery
from medeventgraph.core.report import to_verdict
from medeventgraph.core.simple import DiscoverFn, Discovery, ground_all, query_mentions, simple_discovery
from medeventgraph.core.verdict import Verdict
from medeventgraph.settings import Settings

__all__ = ["Discovery", "admit", "decide", "default_discover", "ground_all", "simple_discovery", "verify_query"]


def default_discover(settings: Settings) -> DiscoverFn:
    """The discovery function the settings ask for; memory is loaded here, once per call."""
    if settings.discovery == "simple":
        return simple_discovery
    from medeventgraph.core.discovery import controller_discovery

    memory = None
    if settings.memory:
        from medeventgraph.core.memory import load_memory

        memory = load_memory(settings.memory_path).edits()

    def discover(index: PatientIndex, query: VerificationQuery, s: Settings) -> Discovery:
        return controller_discovery(index, query, s, memory=memory)

    return discover


def decide(
    index: PatientIndex,
    query: VerificationQuery,
    discovery: Discovery,
    assessor: Callable[[EvidenceBundle], Assessment] = assess,
) -> tuple[EvidenceBundle, Assessment]:
    """Contract then assess: nothing from discovery but the candidates themselves gets through."""
    bundle = admit(index, query, discovery.candidates)
    return bundle, assessor(bundle)


def admit(index: PatientIndex, query: VerificationQuery, candidates: Iterable[Candidate]) -> EvidenceBundle:
    """The contract against this index: the record's resources and notes, its episodes, the
    lexicon, and its own occurrences (plus the query's note mentions) as provenance."""
    known = ChainMap(index.occurrences, {o.id: o for o in query_mentions(index, query)})
    return contract(query, index.patient, candidates, index.record.resources, index.documents, index.episodes,
                    index.lexicon, known)


def verify_query(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    *,
    discover: DiscoverFn | None = None,
) -> Verdict:
    discovery = (discover or default_discover(settings))(index, query, settings)
    llm = None
    if settings.assessor == "llm":  # the optional extra: judgments from an OpenAI-compatible endpoint
        from medeventgraph.core.assess_llm import LLMAssessor
        from medeventgraph.core.redaction import patient_terms

        llm = LLMAssessor(settings, patient_terms=patient_terms(index.patient, index.record.resources))
    bundle, assessment = decide(index, query, discovery, llm or assess)
    metadata = dict(discovery.metadata)
    if llm is not None:
        metadata["assessor"] = llm.audit
    verdict = to_verdict(index, bundle, assessment, metadata)
    if llm is not None:
        verdict.issues.extend(issue.to_fhir() for issue in llm.issues)
    return verdict
