"""CDS Hooks 2.0 bodies as typed pydantic models: requests, contexts, cards, discovery, feedback.

Requests are lenient where the spec lets clients add things (extensions, unknown context
fields) and strict where we depend on a value (hook, patientId, draftOrders).
"""

from __future__ import annotations

from typing import Any, Literal

from medeventgraph.cds_hooks.feedback_models import (  # re-exported: the feedback bodies
    FeedbackItem,
    FeedbackRequest,
)
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "Card",
    "CdsResponse",
    "Coding",
    "Discovery",
    "FeedbackItem",
    "FeedbackRequest",
    "FhirAuthorization",
    "HookRequest",
    "Link",
    "OrderContext",
    "PatientViewContext",
    "ServiceDefinition",
    "Source",
    "Suggestion",
    "VerifyContext",
]

_ID = r"^[A-Za-z0-9\-.]{1,64}$"  # FHIR id


class FhirAuthorization(BaseModel):
    model_config = ConfigDict(extra="allow")
    access_token: str = Field(min_length=1)
    token_type: Literal["Bearer", "bearer"] = "Bearer"
    expires_in: int | None = None
    scope: str = ""
    subject: str | None = None
    patient: str | None = None


class HookRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    hook: str = Field(min_length=1, max_length=128)
    hookInstance: str = Field(min_length=1, max_length=128)
    fhirServer: str | None = Field(default=None, max_length=2048)
    fhirAuthorization: FhirAuthorization | None = None
    context: dict[str, Any]
    # a failed prefetch key may be left out or sent as null
    prefetch: dict[str, Any | None] | None = None
    extension: dict[str, Any] | None = None

    @field_validator("fhirServer")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("http://", "https://")):
            raise ValueError("fhirServer must be an http(s) URL")
        return v.rstrip("/") if v else v


class PatientViewContext(BaseModel):
    model_config = ConfigDict(extra="allow")
    userId: str | None = None
    patientId: str = Field(pattern=_ID)
    encounterId: str | None = Field(default=None, pattern=_ID)


class OrderContext(BaseModel):
    """order-select and order-sign: draftOrders is a Bundle of draft request resources."""

    model_config = ConfigDict(extra="allow")
    userId: str | None = None
    patientId: str = Field(pattern=_ID)
    encounterId: str | None = Field(default=None, pattern=_ID)
    selections: list[str] | None = None
    draftOrders: dict[str, Any]

    @field_validator("draftOrders")
    @classmethod
    def _bundle(cls, v: dict[str, Any]) -> dict[str, Any]:
        if v.get("resourceType") != "Bundle" or not isinstance(v.get("entry", []), list):
            raise ValueError("draftOrders must be a FHIR Bundle")
        return v


class VerifyContext(BaseModel):
    """Context of the custom `medeventgraph-verify` hook: a query model or a question."""

    model_config = ConfigDict(extra="forbid")
    userId: str | None = None
    patientId: str = Field(pattern=_ID)
    encounterId: str | None = Field(default=None, pattern=_ID)
    query: dict[str, Any] | str


class Coding(BaseModel):
    system: str | None = None
    code: str
    display: str | None = None


class Source(BaseModel):
    label: str
    url: str | None = None
    topic: Coding | None = None


class Link(BaseModel):
    label: str
    url: str
    type: Literal["absolute", "smart"]
    appContext: str | None = None


class Suggestion(BaseModel):
    label: str
    uuid: str | None = None
    isRecommended: bool | None = None
    actions: list[dict[str, Any]] = Field(default_factory=list)


class Card(BaseModel):
    model_config = ConfigDict(extra="forbid")
    uuid: str
    summary: str = Field(max_length=139)  # the spec: "<140 characters"
    detail: str | None = None
    indicator: Literal["info", "warning", "critical"]
    source: Source
    suggestions: list[Suggestion] | None = None
    selectionBehavior: Literal["at-most-one", "any"] | None = None
    overrideReasons: list[Coding] | None = None
    links: list[Link] | None = None


class CdsResponse(BaseModel):
    cards: list[Card] = Field(default_factory=list)
    systemActions: list[dict[str, Any]] = Field(default_factory=list)


class ServiceDefinition(BaseModel):
    hook: str
    id: str
    title: str
    description: str
    prefetch: dict[str, str] = Field(default_factory=dict)
    usageRequirements: str | None = None


class Discovery(BaseModel):
    services: list[ServiceDefinition]
