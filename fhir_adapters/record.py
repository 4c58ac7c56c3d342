"""What ingestion produces: occurrences, note documents, raw resources and issues."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from medeventgraph.model.occurrence import NoteDocument, Occurrence
from medeventgraph.model.outcome import Issue

__all__ = ["IngestResult", "PatientRecord"]


@dataclass
class IngestResult:
    """Everything read from one or more inputs, for any number of patients.

    `resources` maps "Type/id" to the raw resource JSON (kept so that cited resources can be
    validated and shown); `owner` maps "Type/id" to the patient id it belongs to (absent for
    resources that belong to no patient, such as Organization or Practitioner).
    """

    occurrences: list[Occurrence] = field(default_factory=list)
    documents: list[NoteDocument] = field(default_factory=list)
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)

    def patient_ids(self) -> list[str]:
        """Patients present, as Patient resources or as subjects of other resources."""
        return sorted(set(self.owner.values()))

    def for_patient(self, patient: str) -> PatientRecord:
        """The queried patient's part; other patients' resources are counted, never kept."""
        excluded: Counter[str] = Counter()
        for ref, pid in self.owner.items():
            if pid != patient:
                excluded[ref.split("/", 1)[0]] += 1
        resources = {
            ref: res for ref, res in self.resources.items() if self.owner.get(ref, patient) == patient
        }
        return PatientRecord(
            patient=patient,
            occurrences=[o for o in self.occurrences if o.patient == patient],
            documents=[d for d in self.documents if d.patient == patient],
            resources=resources,
            excluded=dict(excluded),
            issues=list(self.issues),
        )

    def extend(self, other: IngestResult) -> None:
        self.occurrences.extend(other.occurrences)
        self.documents.extend(other.documents)
        self.resources.update(other.resources)
        self.owner.update(other.owner)
        self.issues.extend(other.issues)


@dataclass
class PatientRecord:
    """One patient's occurrences and notes; `excluded` counts other patients' resources by type."""

    patient: str
    occurrences: list[Occurrence]
    documents: list[NoteDocument]
    resources: dict[str, dict[str, Any]]
    excluded: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
