"""FHIR R4 JSON (Bundles, single resources, Bulk NDJSON, folders) -> Occurrences with SourceRefs.

    result = load_paths(["patient.json"])          # or ingest_json(bundle_or_prefetch)
    record = result.for_patient(patient_id)         # other patients excluded and counted
    validate_resource(result.resources["Observation/1"])   # lazily, for cited evidence only
"""

from __future__ import annotations

from medeventgraph.fhir_adapters.ingest import DEFAULT_MAX_NOTE_CHARS, ingest_json, load_paths
from medeventgraph.fhir_adapters.record import IngestResult, PatientRecord
from medeventgraph.fhir_adapters.times import parse_fhir_time
from medeventgraph.fhir_adapters.validate import validate_resource

__all__ = [
    "DEFAULT_MAX_NOTE_CHARS",
    "IngestResult",
    "PatientRecord",
    "ingest_json",
    "load_paths",
    "parse_fhir_time",
    "validate_resource",
]
