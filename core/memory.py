"""Retrieval-only procedural memory (optional, off by default; paper "Retrieval-only procedural memory").

A frozen bank of patient-independent policies keyed by structured failure type. It may
change what the controller retrieves, never the assessment. Loading refuses any file that
could carry patient content: unknown fields, free text that looks like identifiers,
dates, measured values, FHIR references or verdicts.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Literal

import orjson
from medeventgraph.core.replan import CHANNELS
from medeventgraph.core.verdict import FailureType
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["MemoryRefused", "PolicyMemory", "load_memory"]

# Free text may explain a policy, in words. These patterns are what patient facts look like.
_FACT_LIKE = [
    (re.compile(r"\b[A-Z][A-Za-z]+/[A-Za-z0-9.\-]+"), "a FHIR reference"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}"), "a date"),
    (re.compile(r"\d"), "a number"),
    (re.compile(r"\b(supported|refuted|conflicting|insufficient|verdict|label)\b", re.IGNORECASE), "a verdict word"),
    (re.compile(r"\b(patient|pt|mrn|subject)[-_ ]?(id)?\s*[:=#]", re.IGNORECASE), "a patient identifier"),
    (re.compile(r"\b[0-9a-f]{8,}\b|\b[a-z]{2,4}-[0-9a-z]{4,}\b", re.IGNORECASE), "an identifier"),
    (re.compile(r"@|https?://|urn:", re.IGNORECASE), "an address"),
]


class MemoryRefused(ValueError):
    """The memory file holds something other than patient-independent retrieval policies."""


class _Edits(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    add_channel: Literal["lexical", "metadata", "dense"] | None = None
    widen: float | None = Field(default=None, ge=1.0, le=10.0)
    more_hits: int | None = Field(default=None, ge=1, le=4)
    follow_episode: bool | None = None
    synonyms: bool | None = None
    note_mentions: bool | None = None


class _Evidence(BaseModel):
    """How a learned policy earned its place on the development split: counts only."""

    model_config = ConfigDict(extra="forbid", strict=True)
    seen: int = Field(ge=0)  # dev queries whose search reported this failure
    wrong: int = Field(ge=0)  # of those, answered wrongly without memory
    fixed: int = Field(ge=0)  # wrong without the edit, right with it
    broke: int = Field(ge=0)  # right without the edit, wrong with it


class _Provenance(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    split: Literal["dev"]
    protocols: list[Literal["T3", "T5", "T6", "T9", "T10", "T11"]] = Field(max_length=8)
    queries: int = Field(ge=0)
    seed: int
    smoke: bool = False
    distilled: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    command: Literal["python -m medeventgraph.evaluation distill-memory"]


class _Policy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    failure: FailureType
    edits: _Edits
    why: str = Field(default="", max_length=200)
    evidence: _Evidence | None = None

    @field_validator("why")
    @classmethod
    def _words_only(cls, v: str) -> str:
        for pattern, what in _FACT_LIKE:
            if pattern.search(v):
                raise ValueError(f"policy text looks like it holds {what}")
        return v


class _MemoryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: Literal[1]
    about: str = Field(default="", max_length=600)
    policies: list[_Policy] = Field(max_length=32)
    provenance: _Provenance | None = None  # present when distilled (benchmarks/evaluation/distill.py)

    @field_validator("about")
    @classmethod
    def _about_words_only(cls, v: str) -> str:
        return _Policy._words_only(v)


class PolicyMemory:
    """failure type -> policy edits (a plain mapping the replanner reads)."""

    def __init__(self, policies: dict[FailureType, dict[str, object]]):
        self._policies = policies

    def edits(self) -> dict[FailureType, dict[str, object]]:
        return {k: dict(v) for k, v in self._policies.items()}

    def __len__(self) -> int:
        return len(self._policies)


def load_memory(path: Path | None = None) -> PolicyMemory:
    raw = (
        resources.files("medeventgraph.core").joinpath("resources/memory.json").read_bytes()
        if path is None
        else Path(path).read_bytes()
    )
    try:
        data = _MemoryFile.model_validate(orjson.loads(raw))
    except (ValidationError, orjson.JSONDecodeError) as exc:
        raise MemoryRefused(f"memory refused: {_first_error(exc)}") from None
    policies: dict[FailureType, dict[str, object]] = {}
    for p in data.policies:
        if p.failure in policies:
            raise MemoryRefused(f"memory refused: two policies for {p.failure.value}")
        edits = p.edits.model_dump(exclude_none=True)
        if edits.get("add_channel") not in (None, *CHANNELS):
            raise MemoryRefused("memory refused: unknown channel")
        policies[p.failure] = edits
    return PolicyMemory(policies)


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        return f"{where}: {err['msg']}"  # never echo the offending input: it may be patient data
    return "not valid JSON"
