"""The watch list: relation checks run by the patient-view and order services.

Shipped as `resources/watchlist.json` (replace it with settings.watchlist_path). Each watch is
exposure -> outcome within a window; it expands into one VerificationQuery per outcome
alternative. Event texts are lexicon terms, so a class ("nephrotoxic drug") covers its members.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import orjson
from medeventgraph.core import (
    ActionName,
    EventSpec,
    RelationSpec,
    VerificationQuery,
    parse_duration,
)
from medeventgraph.model.packaged import packaged_model
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["OrderChecks", "Watch", "WatchEvent", "WatchList", "load_watchlist"]

Kind = Literal["medication", "lab", "vital", "condition", "procedure", "derived", "immunization", "allergy"]


class WatchEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=200)
    kind: Kind
    action: ActionName | None = None  # what happened to it (query model); None: the kind's default

    @model_validator(mode="after")
    def _action_fits_kind(self) -> WatchEvent:
        self.spec("check")  # the query model's own rule: a bad action fails when the list loads
        return self

    def spec(self, event_id: str) -> EventSpec:
        return EventSpec(id=event_id, text=self.text, kind=self.kind, action=self.action)


class Watch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9-]{1,64}$")
    title: str = Field(max_length=100)
    topic: str = "drug-safety"
    exposure: WatchEvent
    outcomes: list[WatchEvent] = Field(min_length=1, max_length=6)
    relation: Literal["before", "after", "overlaps"] = "before"
    within: str | None = None
    scope: Literal["encounter", "episode", "patient"] = "patient"
    adverse: bool = True  # a supported adverse relation is a warning; a care-timing one is info

    @field_validator("within")
    @classmethod
    def _duration(cls, v: str | None) -> str | None:
        if v is not None:
            parse_duration(v)
        return v

    def query(self, outcome: WatchEvent, exposure: WatchEvent | None = None, *, qid: str | None = None) -> VerificationQuery:
        exp = exposure or self.exposure
        return VerificationQuery(
            id=(qid or f"{self.id}:{outcome.text}")[:128],
            events=[exp.spec("e0"), outcome.spec("e1")],
            relations=[RelationSpec(source="e0", target="e1", type=self.relation, within=self.within)],
            scope=self.scope,
        )

    def queries(self) -> list[VerificationQuery]:
        return [self.query(o) for o in self.outcomes]


class OrderChecks(BaseModel):
    model_config = ConfigDict(extra="forbid")
    extra_outcomes: list[WatchEvent] = Field(default_factory=list)
    extra_within: str = "P14D"
    max_queries_per_order: int = Field(default=12, ge=1, le=100)


class WatchList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    about: str = ""
    watches: list[Watch] = Field(max_length=100)
    order_checks: OrderChecks = Field(default_factory=OrderChecks)

    def watch(self, watch_id: str) -> Watch:
        return next(w for w in self.watches if w.id == watch_id)


def load_watchlist(path: Path | None = None) -> WatchList:
    if path is None:
        return _default()
    return WatchList.model_validate(orjson.loads(Path(path).read_bytes()))


@lru_cache(maxsize=1)
def _default() -> WatchList:
    return packaged_model("medeventgraph.cds_hooks", "watchlist.json", WatchList)
