"""The verdict as it leaves the core: a pydantic model, serialised by CLI, API and service."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

__all__ = [
    "EvidenceOut",
    "FailureType",
    "Label",
    "RelationOut",
    "SourceOut",
    "TimeOut",
    "Verdict",
]


class Label(str, Enum):
    SUPPORTED = "supported"
    CONFLICTING = "conflicting"
    REFUTED = "refuted"
    INSUFFICIENT = "insufficient"


class FailureType(str, Enum):
    MISSING_ENDPOINT = "missing_endpoint"
    UNRESOLVED_TIME = "unresolved_time"
    SCOPE = "scope"
    NEGATED = "negated"
    OPPOSITE_ORDER = "opposite_order"
    WINDOW = "window"  # ordered as stated but outside `within`
    UNRESOLVED_TRANSITION = "unresolved_transition"


class TimeOut(BaseModel):
    start: str | None
    end: str | None = None
    type: str
    granularity: str
    words: str | None = Field(default=None, description="a note mention's time: the note's words it was read from")


class SourceOut(BaseModel):
    reference: str  # "MedicationAdministration/123"
    json_path: str = ""
    attachment: int | None = None
    start: int | None = None
    end: int | None = None
    section: str | None = None


class EvidenceOut(BaseModel):
    occurrence: str
    events: list[str] = Field(description="query event ids this item grounds")
    kind: str
    origin: str
    concept: str
    codes: list[str] = Field(default_factory=list)
    context: str = Field(description="rendered evidence text: structured row or note sentence")
    time: TimeOut
    documented: TimeOut | None = None
    encounter: str | None = None
    scope: str = Field(description="valid | unknown (for the query's scope)")
    assertion: dict[str, bool] = Field(default_factory=dict)
    value: dict[str, Any] | None = None
    source: SourceOut
    derived_from: list[str] = Field(default_factory=list)
    basis: list[str] = Field(default_factory=list, description="why it grounds each event: event:kind:detail")
    polarity: str = Field(default="neutral", description="supports | counters | neutral")
    action: str | None = Field(default=None, description="what happened: ordered | administered | dispensed | "
                               "reported | performed | collected | resulted (the time is then the result time)")


class RelationOut(BaseModel):
    source: str
    target: str
    type: str
    within: str | None = None
    timing: str = Field(description="compatible | incompatible | unknown")
    pair: list[str] = Field(default_factory=list, description="occurrence ids of the deciding pair")
    explanation: str = ""
    stated: str | None = Field(default=None, description="evidence id of the note-stated order that decided it")


class Verdict(BaseModel):
    id: str
    patient: str | None = None
    verdict: Label
    binary: str = Field(description="supported | not_supported (for scoring only)")
    s_plus: float
    s_minus: float
    citations: list[str]
    evidence: list[EvidenceOut]
    relations: list[RelationOut] = Field(default_factory=list)
    failure: FailureType | None = None
    bundle_hash: str
    rejected: dict[str, int] = Field(default_factory=dict, description="candidates the contract refused, by reason")
    unbound: list[str] = Field(default_factory=list, description="binding claims that did not hold: occurrence basis")
    coverage: list[str] = Field(default_factory=list, description=(
        "how much of the record's grounding the bundle holds, per event and scope unit: 'event unit held/grounded'; "
        "an order or absence refutation needs both of its events complete"))
    # From the input record and the service, not from the evidence bundle: outside `bundle_hash`.
    excluded: dict[str, int] = Field(default_factory=dict, description=(
        "input record: resources set aside on ingest (other patients', unreadable), by reason; not part of the "
        "bundle or its hash"))
    issues: list[dict[str, Any]] = Field(default_factory=list, description=(
        "input record and service: FHIR validation of the cited resources, an LLM assessor's fallback, as "
        "OperationOutcome issues; not part of the bundle or its hash"))
    search: dict[str, Any] = Field(
        default_factory=dict, description="discovery metadata (for audit only; never decides)"
    )
