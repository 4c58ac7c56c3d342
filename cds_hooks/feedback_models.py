"""CDS Hooks feedback bodies, validated field by field so that nothing but ids, enum values,
codes and instants can reach the feedback log (never free text, which may carry PHI).

Rules: `card` and each accepted suggestion `id` a UUID or a bounded token; `outcome` from the
spec's enum; `outcomeTimestamp` a FHIR instant (date, time with seconds, and a zone), stored in
UTC; `overrideReason.reason` a coding whose `code` is a bounded token and `system` an absolute
URI (the route also checks that a code in our own system is one the service declared).
`userComment` is accepted, bounded and never stored.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["AcceptedSuggestion", "FeedbackCoding", "FeedbackItem", "FeedbackRequest", "OverrideReason"]

TOKEN = r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}$"  # UUIDs, FHIR ids, short codes; no spaces
_URI = r"^(https?://|urn:)[\x21-\x7e]{1,250}$"
_INSTANT = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$"


class FeedbackCoding(BaseModel):
    model_config = ConfigDict(extra="ignore")
    system: str | None = Field(default=None, pattern=_URI)
    code: str = Field(pattern=TOKEN)
    display: str | None = Field(default=None, max_length=512)  # not stored


class OverrideReason(BaseModel):
    model_config = ConfigDict(extra="ignore")
    reason: FeedbackCoding | None = None
    userComment: str | None = Field(default=None, max_length=4000)  # free text: never stored


class AcceptedSuggestion(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(pattern=TOKEN)


class FeedbackItem(BaseModel):
    model_config = ConfigDict(extra="ignore")
    card: str = Field(pattern=TOKEN)
    outcome: Literal["accepted", "overridden"]
    acceptedSuggestions: list[AcceptedSuggestion] | None = Field(default=None, max_length=100)
    overrideReason: OverrideReason | None = None
    outcomeTimestamp: str = Field(pattern=_INSTANT)

    @field_validator("outcomeTimestamp")
    @classmethod
    def _instant(cls, value: str) -> str:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("not a valid instant") from None
        return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class FeedbackRequest(BaseModel):
    feedback: list[FeedbackItem] = Field(min_length=1, max_length=500)
