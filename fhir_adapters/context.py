"""State shared by the mappers during one ingest: lookups in, occurrences and issues out."""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.elements import as_list, concept
from medeventgraph.fhir_adapters.limits import InputLimits
from medeventgraph.fhir_adapters.references import ReferenceIndex, reference_string
from medeventgraph.fhir_adapters.resource_types import OCCURRENCE_TYPES
from medeventgraph.model.occurrence import Concept, EventTime, NoteDocument, Occurrence
from medeventgraph.model.outcome import Issue

__all__ = ["MapContext"]


class MapContext:
    def __init__(
        self,
        index: ReferenceIndex,
        resources: dict[str, dict[str, Any]],
        owner: dict[str, str],
        encounter_episode: dict[str, str],
        limits: InputLimits,
        encounter_bounds: dict[str, EventTime] | None = None,
    ):
        self.index = index
        self.resources = resources
        self.owner = owner
        self.encounter_episode = encounter_episode
        self.limits = limits
        self.max_note_chars = limits.max_note_chars
        # Encounter key -> its period as an encounter-bounded time (times.encounter_bound).
        self.encounter_bounds = encounter_bounds or {}
        self.occurrences: list[Occurrence] = []
        self.documents: list[NoteDocument] = []
        self.issues: list[Issue] = []
        self.location = ""
        self.key = ""

    def issue(self, severity: str, code: str, message: str, expression: str | None = None) -> None:
        """Diagnostics name the position, the resource key and the rule broken: never values."""
        where = f"{self.location} {self.key}" if self.location else self.key
        self.issues.append(
            Issue(severity, code, f"{where}: {message}", (expression,) if expression else ())  # type: ignore[arg-type]
        )

    def context_of(self, raw: dict[str, Any], *fields: str) -> tuple[str | None, str | None]:
        """(encounter key, episode key) from the first of `fields` that resolves.

        A context reference may point at an EpisodeOfCare directly (R4 `context`)."""
        encounter: str | None = None
        episode: str | None = None
        for f in fields:
            for ref in as_list(raw.get(f)):
                key = self.index.resolve(ref)
                if key is None:
                    continue
                if key.startswith("Encounter/"):
                    encounter = key
                    episode = self.encounter_episode.get(key)
                    return encounter, episode
                if key.startswith("EpisodeOfCare/") and episode is None:
                    episode = key
        return encounter, episode

    def links(self, raw: dict[str, Any], relations: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
        """(relation, target occurrence id) for each resolvable reference in the named fields."""
        out: list[tuple[str, str]] = []
        for field, relation in relations:
            value = raw.get(field)
            if value is None:
                continue
            for ref in as_list(value):
                key = self.index.resolve(ref)
                if key is not None and key.partition("/")[0] in OCCURRENCE_TYPES:
                    out.append((relation, key))
        return out

    def medication(self, raw: dict[str, Any]) -> tuple[Concept, str]:
        """Drug concept from medicationCodeableConcept or the referenced Medication resource."""
        cc = raw.get("medicationCodeableConcept")
        if cc is not None:
            return concept(cc), "medicationCodeableConcept"
        ref = raw.get("medicationReference")
        if ref is None:
            return Concept(), ""
        s = reference_string(ref)
        med: Any = None
        if s is not None and s.startswith("#"):
            med = next(
                (c for c in as_list(raw.get("contained")) if isinstance(c, dict) and c.get("id") == s[1:]),
                None,
            )
        else:
            key = self.index.resolve(ref)
            if key is not None:
                med = self.resources.get(key)
        if isinstance(med, dict):
            return concept(med.get("code")), "medicationReference"
        display = ref.get("display") if isinstance(ref, dict) else None
        self.issue("warning", "not-found", "medicationReference does not resolve to a Medication",
                   "medicationReference")
        return Concept((), display if isinstance(display, str) else ""), "medicationReference"
