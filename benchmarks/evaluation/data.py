"""The public corpora the protocols are generated from: per-patient records, loaded once.

Two datasets (see ../shared/data/SOURCES.md): Synthea bundles (many short encounters per
patient, second-precision times, template notes) and clinosim inpatient stays (hourly
timelines). Records are kept as `PatientRecord`s; protocol variants (masking, distractors)
are derived from them in `variants.py`, never written back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from medeventgraph.api import load
from medeventgraph.evaluation.gold import display_term, gold_matches, instance_of
from medeventgraph.fhir_adapters.record import PatientRecord
from medeventgraph.model.occurrence import Granularity, Kind, Occurrence, Origin, TimeType

__all__ = [
    "DATASETS",
    "Corpus",
    "PatientData",
    "default_data_dir",
    "display_term",
    "gold_matches",
    "instance_of",
    "load_corpus",
    "precise",
]

# dataset name -> folder under the shared data root
DATASETS = {"synthea": "synthea", "clinosim": "clinosim/fhir_r4"}

# Order is only claimed between times recorded to the minute or better.
_PRECISE = frozenset({Granularity.SECOND, Granularity.MINUTE})


def default_data_dir() -> Path:
    """`../shared/data` beside the repository root (the layout in development and in CI)."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


@dataclass
class PatientData:
    dataset: str
    patient: str
    record: PatientRecord
    latest: datetime | None  # latest resolved event time, for the T8 latest-time split

    @property
    def structured(self) -> list[Occurrence]:
        return [o for o in self.record.occurrences if o.origin is Origin.STRUCTURED]


@dataclass
class Corpus:
    root: Path
    patients: dict[str, PatientData] = field(default_factory=dict)

    def of_dataset(self, dataset: str) -> list[PatientData]:
        return [p for p in self.patients.values() if p.dataset == dataset]


def precise(occ: Occurrence) -> bool:
    # an encounter-bounded time is the whole stay, however precise its ends
    return (occ.time.resolved and occ.time.granularity in _PRECISE and occ.time.start is not None
            and occ.time.type is not TimeType.ENCOUNTER_BOUNDED)


def load_corpus(root: Path, *, max_patients: int | None = None) -> Corpus:
    """Load both datasets; `max_patients` per dataset (smallest records first) for smoke runs."""
    corpus = Corpus(root)
    for name, folder in DATASETS.items():
        path = root / folder
        if not path.exists():
            raise FileNotFoundError(f"dataset {name!r} not found at {path}; pass --data")
        if name == "synthea":
            # companion Organization/Practitioner bundles hold no patient; skip their cost
            paths = sorted(p for p in path.glob("*.json") if not p.name.startswith(("hospital", "practitioner")))
            result = load(paths)
        else:
            result = load(path)
        ids = result.patient_ids()
        records = [result.for_patient(p) for p in ids]
        if max_patients is not None:
            records = sorted(records, key=lambda r: (len(r.occurrences), r.patient))[:max_patients]
        for rec in records:
            times = [o.time.start for o in rec.occurrences if o.time.resolved and o.time.start]
            key = f"{name}:{rec.patient}"
            corpus.patients[key] = PatientData(name, rec.patient, rec, max(times) if times else None)
    return corpus


def clinical(occ: Occurrence) -> bool:
    return occ.kind in (Kind.MEDICATION, Kind.PROCEDURE, Kind.CONDITION, Kind.LAB) and instance_of(occ.kind.value, occ)
