"""The verification query c = (E, R, scope): pydantic models at the edge, with validation."""

from __future__ import annotations

import re
from datetime import timedelta
from enum import Enum
from typing import Literal

from medeventgraph.model.occurrence import Kind
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "ACTIONS",
    "QUERY_KINDS",
    "CodeRef",
    "EventSpec",
    "RelationSpec",
    "RelationType",
    "Scope",
    "VerificationQuery",
    "parse_duration",
]

# Kinds a query may name: the clinical types of DESIGN.md.
QUERY_KINDS = ("medication", "lab", "vital", "condition", "procedure", "derived", "immunization", "allergy")


# What may have happened to an event of each kind (issue #13); the first is the default.
# Kinds not listed take no action. `any` keeps every record of a medication (order, dose,
# dispense, statement), which was the only behaviour before actions existed.
ACTIONS: dict[str, tuple[str, ...]] = {
    "medication": ("any", "ordered", "administered", "dispensed", "reported"),
    "lab": ("collected", "resulted"),
    "procedure": ("performed", "ordered"),
}
_ACTION_KINDS = {a: tuple(k for k, acts in ACTIONS.items() if a in acts) for acts in ACTIONS.values() for a in acts}

ActionName = Literal["any", "ordered", "administered", "dispensed", "reported", "collected", "resulted", "performed"]


class RelationType(str, Enum):
    BEFORE = "before"
    AFTER = "after"
    OVERLAPS = "overlaps"


class Scope(str, Enum):
    ENCOUNTER = "encounter"
    EPISODE = "episode"
    PATIENT = "patient"


_DURATION = re.compile(
    r"^P(?!$)(?:(?P<weeks>\d+(?:\.\d+)?)W)?(?:(?P<days>\d+(?:\.\d+)?)D)?"
    r"(?:T(?=\d)(?:(?P<hours>\d+(?:\.\d+)?)H)?(?:(?P<minutes>\d+(?:\.\d+)?)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$"
)


def parse_duration(text: str) -> timedelta:
    """ISO 8601 duration limited to exact units (W, D, H, M, S); years and months are refused
    because their length is ambiguous."""
    m = _DURATION.match(text.strip().upper())
    if not m:
        raise ValueError(f"not an ISO 8601 duration with exact units (e.g. P7D, PT1H): {text!r}")
    parts = {k: float(v) for k, v in m.groupdict().items() if v}
    return timedelta(**parts)


class CodeRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    system: str
    code: str


class EventSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    text: str | None = Field(default=None, max_length=500)
    kind: Literal["medication", "lab", "vital", "condition", "procedure", "derived", "immunization", "allergy"] | None = None
    codes: list[CodeRef] = Field(default_factory=list)
    hidden: bool = False
    action: ActionName | None = Field(
        default=None,
        description=(
            "What happened to the event. medication: any (default) | ordered | administered | dispensed | "
            "reported; lab: collected (default, effective time) | resulted (issued time); procedure: "
            "performed (default) | ordered (ServiceRequest). Other kinds take none."
        ),
    )

    @model_validator(mode="after")
    def _named_or_hidden(self) -> EventSpec:
        if not self.hidden and not (self.text or self.codes):
            raise ValueError(f"event {self.id!r} needs text or codes (or hidden: true)")
        if self.hidden and not self.kind:
            raise ValueError(f"hidden event {self.id!r} needs a kind")
        if self.action is not None and self.action != "any":
            kinds = _ACTION_KINDS[self.action]
            if self.kind is None and len(kinds) != 1:
                raise ValueError(f"event {self.id!r}: action {self.action!r} needs a kind ({' or '.join(kinds)})")
            if self.kind is not None and self.kind not in kinds:
                allowed = ACTIONS.get(self.kind)
                raise ValueError(
                    f"event {self.id!r}: a {self.kind} event cannot be {self.action!r}"
                    + (f" (one of: {', '.join(allowed)})" if allowed else " (it takes no action)")
                )
        return self

    @property
    def effective_action(self) -> str:
        """The action asked for, with the kind's default filled in ("any" when none applies)."""
        if self.action is not None:
            return self.action
        return ACTIONS[self.kind][0] if self.kind in ACTIONS else "any"

    @property
    def kind_enum(self) -> Kind | None:
        return Kind(self.kind) if self.kind else None


class RelationSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    source: str = Field(alias="from")
    target: str = Field(alias="to")
    type: RelationType
    within: str | None = None

    @field_validator("within")
    @classmethod
    def _valid_duration(cls, v: str | None) -> str | None:
        if v is not None and parse_duration(v) <= timedelta(0):
            raise ValueError("within must be a positive duration")
        return v

    @property
    def window(self) -> timedelta | None:
        return parse_duration(self.within) if self.within else None


class VerificationQuery(BaseModel):
    """A stated relation between events to verify against one patient's record."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    id: str = Field(default="q", max_length=128)
    events: list[EventSpec] = Field(min_length=2, max_length=12)
    relations: list[RelationSpec] = Field(min_length=1, max_length=11)
    scope: Scope = Scope.PATIENT

    @model_validator(mode="after")
    def _consistent(self) -> VerificationQuery:
        ids = [e.id for e in self.events]
        if len(set(ids)) != len(ids):
            raise ValueError("event ids must be unique")
        known = set(ids)
        for r in self.relations:
            for end in (r.source, r.target):
                if end not in known:
                    raise ValueError(f"relation names unknown event {end!r}")
            if r.source == r.target:
                raise ValueError("a relation needs two different events")
        return self

    def event(self, event_id: str) -> EventSpec:
        return next(e for e in self.events if e.id == event_id)

    def dump(self) -> dict:
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=False)
