"""What a query event's `action` admits: the rule grounding and the contract share.

An occurrence carries what the record says happened to it (`Occurrence.action`, set by the
FHIR mappers from the resource type). An event asking for a specific action (ordered,
administered, dispensed, reported, resulted) is grounded only by occurrences with that
action; note mentions and derived events carry none, so they ground only the defaults (a
note saying "vancomycin" cannot tell an order from a dose). The defaults keep what held
before actions existed, except that an order for a procedure (ServiceRequest) grounds only
`ordered`: it is not the procedure.

A dose or procedure the record says did not happen (not-done, entered-in-error, cancelled,
stopped before it started) is counter-evidence for `administered` / `performed`: it is
admitted (negated, by its mapper) so the assessor can count it against, never for.
"""

from __future__ import annotations

from medeventgraph.fhir_adapters.mappers.common import DID_NOT_HAPPEN
from medeventgraph.model.occurrence import Kind

__all__ = ["action_admits", "counts_against"]

_DEFAULTS = frozenset({"any", "performed", "collected"})


def action_admits(asked: str, item_action: str | None, kind: Kind, has_issued: bool = False) -> bool:
    """May a record whose action is `item_action` (Occurrence.action's value; "resulted" for
    an evidence item timed by its result) stand for an event asking `asked`?"""
    if item_action == "ordered" and kind is Kind.PROCEDURE:
        return asked == "ordered"  # a ServiceRequest is not the procedure
    if item_action is None:
        return asked in _DEFAULTS
    if asked == "resulted":
        return item_action == "resulted" or (item_action == "collected" and has_issued)
    if item_action == "resulted":
        return False  # its time is the result time: it stands for result questions only
    return asked == "any" or item_action == asked


def counts_against(asked: str, status: str | None) -> bool:
    """A status that excludes a record from grounding but is, for this action, evidence that
    the event did not happen."""
    return asked in ("administered", "performed") and status in DID_NOT_HAPPEN
