"""The contract against one patient's index: what every discovery hands its candidates to."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable, Sequence

from medeventgraph.core.discover.exhaustive import grounded_candidates, query_mentions
from medeventgraph.core.evidence.contract import Candidate, EvidenceBundle, contract
from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.core.query.model import VerificationQuery

__all__ = ["admit"]


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
