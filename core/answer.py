"""The one answer every surface gives: query + patient index -> Verdict.

read the question against the record (what "started on" means here) -> ground (every
occurrence that can stand for each event) -> discover (nominate candidates) -> contract (admit,
measure coverage against the grounding, freeze, hash) -> assess (bundle only) -> report. The
verdict is decided in core/decide/: `assess(bundle)` is the only call that sees evidence and
returns a label.

Discovery is exhaustive by default (every grounded occurrence: core/discover/exhaustive.py), on
every surface. `settings.discovery = "search"` selects the budgeted search
(core/discover/search.py), for where a budget is real: what an LLM assessor or a dense search
over a very large record can look at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from medeventgraph.core.decide.assess import Assessment, assess
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import (
    DiscoverFn,
    Discovery,
    ground_all,
    grounded_candidates,
    simple_discovery,
)
from medeventgraph.core.evidence.contract import Candidate, EvidenceBundle
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.question_record import read_on_record, with_action_notes
from medeventgraph.core.query.verdict import Verdict
from medeventgraph.core.report.to_verdict import to_verdict
from medeventgraph.model.settings import Settings

__all__ = ["Answer", "answer", "decide", "default_discover", "verify_query"]


@dataclass(frozen=True, slots=True)
class Answer:
    query: VerificationQuery  # as verified: its action words read against the record
    verdict: Verdict
    read_as: Mapping[str, str]  # per event id, how the record decided its action ("started on")


def answer(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    *,
    question: str | None = None,
    discover: DiscoverFn | None = None,
) -> Answer:
    """Verify `query` against `index`. `question` is the free text the query was parsed from
    (None: the query was sent as JSON and says its actions itself); its action words are read
    against this record first, and the verdict says in `search.grounding.actions` how."""
    query, notes = read_on_record(query, question, index.record)
    verdict = verify_query(index, query, settings, discover=discover)
    return Answer(query, with_action_notes(verdict, notes), notes)


def default_discover(settings: Settings) -> DiscoverFn:
    """The discovery function the settings ask for."""
    if settings.discovery == "exhaustive":
        return simple_discovery
    search = _search(settings)
    return lambda index, query, s: search(index, query, s)


def _search(settings: Settings) -> Callable[..., Discovery]:
    """The budgeted search (imported only when asked for)."""
    from medeventgraph.core.discover.search import controller_discovery

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


def verify_query(
    index: PatientIndex,
    query: VerificationQuery,
    settings: Settings,
    *,
    discover: DiscoverFn | None = None,
) -> Verdict:
    """Verify a query whose action words are already decided (`answer` reads them first)."""
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
        from medeventgraph.core.decide.assess_llm import LLMAssessor
        from medeventgraph.core.decide.redaction import patient_terms

        llm = LLMAssessor(settings, patient_terms=patient_terms(index.patient, index.record.resources))
    bundle, assessment = decide(index, query, discovery, llm or assess, reference)
    metadata = dict(discovery.metadata)
    if llm is not None:
        metadata["assessor"] = llm.audit
    verdict = to_verdict(index, bundle, assessment, metadata)
    if llm is not None:
        verdict.issues.extend(issue.to_fhir() for issue in llm.issues)
    return verdict
