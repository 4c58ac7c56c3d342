"""A question read against the record it is verified on: the one place "started on" is decided.

"Started on" means a dose was given where the record keeps doses (MedicationAdministration),
and any medication record where it keeps only orders (core.question). Every entry point - the
Python API, `medeventgraph verify` (one question or a batch), the CDS Hooks verify hook, the
SMART page - parses a question first (to refuse a bad one before any record is read) and then
hands the query, the question and the record here before verifying; the verdict carries how
the record decided in `search.grounding.actions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.question import parse_question_noted
from medeventgraph.model.occurrence import Action

if TYPE_CHECKING:
    from medeventgraph.core.query.verdict import Verdict
    from medeventgraph.fhir_adapters.record import PatientRecord

__all__ = ["read_on_record", "with_action_notes"]


def _holds_administrations(record: PatientRecord) -> bool:
    """Does the record keep doses given (MedicationAdministration), not only orders?"""
    return any(o.action is Action.ADMINISTERED for o in record.occurrences)


def read_on_record(query: VerificationQuery, question: str | None,
                   record: PatientRecord) -> tuple[VerificationQuery, dict[str, str]]:
    """`query` (made from `question`, perhaps since given another id or scope) with the actions
    the record decides, and per event id how it decided them. A query sent as JSON
    (`question` None) says its actions itself and comes back as it is."""
    if question is None:
        return query, {}
    reading, notes = parse_question_noted(question, administrations=_holds_administrations(record))
    if not notes:
        return query, {}
    decided = {e.id: e for e in reading.events if e.id in notes}
    events = [e.model_copy(update={"kind": decided[e.id].kind, "action": decided[e.id].action})
              if e.id in decided else e for e in query.events]
    return query.model_copy(update={"events": events}), notes


def with_action_notes(verdict: Verdict, notes: Mapping[str, str]) -> Verdict:
    """The verdict with how the record decided an event's action in `search.grounding.actions`
    (audit only: the verdict itself rests on the evidence bundle)."""
    if not notes:
        return verdict
    grounding = verdict.search.get("grounding")
    grounding = {**(grounding if isinstance(grounding, dict) else {}), "actions": dict(notes)}
    return verdict.model_copy(update={"search": {**verdict.search, "grounding": grounding}})
