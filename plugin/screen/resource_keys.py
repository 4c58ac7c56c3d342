"""What the regrouping needs from one resource: its key, its patient, and its latest date.

Bulk Data files are grouped by resource type; screening needs them grouped by patient. The
patient of a resource is the Patient itself, or the first `subject`/`patient`/`beneficiary`
reference that names a Patient (relative, absolute, or a Bundle's urn:uuid full URL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from medeventgraph.fhir_adapters.resource_types import PATIENT_FIELDS

__all__ = ["Owner", "latest_date", "owner_of", "resource_key"]

# Top-level elements holding a clinical or record time; `--since` compares their maximum.
_DATE_FIELDS = ("effectiveDateTime", "effectiveInstant", "onsetDateTime", "abatementDateTime", "authoredOn",
                "issued", "recordedDate", "date", "occurrenceDateTime", "performedDateTime", "recorded",
                "created", "sent", "dateAsserted")
_PERIOD_FIELDS = ("effectivePeriod", "period", "performedPeriod", "onsetPeriod", "occurrencePeriod")


@dataclass(frozen=True, slots=True)
class Owner:
    """patient id, or `shared` (belongs to no patient), or `problem` (a rule that failed)."""

    patient: str | None = None
    shared: bool = False
    problem: str | None = None


def resource_key(res: dict[str, Any], full_url: str | None) -> str | None:
    rtype, rid = res.get("resourceType"), res.get("id")
    if not isinstance(rtype, str) or not rtype:
        return None
    if isinstance(rid, str) and rid and "/" not in rid:
        return f"{rtype}/{rid}"
    if isinstance(full_url, str) and full_url.startswith("urn:uuid:"):
        return f"{rtype}/{full_url[9:]}"
    return None


def _patient_ref(ref: str, patients_by_url: dict[str, str]) -> str | None:
    if ref in patients_by_url:
        return patients_by_url[ref]
    parts = ref.split("?", 1)[0].rstrip("/").split("/")
    if len(parts) >= 2 and parts[-2] == "Patient" and parts[-1]:
        return parts[-1]
    if len(parts) >= 4 and parts[-4] == "Patient" and parts[-2] == "_history":
        return parts[-3]
    return None


def owner_of(res: dict[str, Any], patients_by_url: dict[str, str]) -> Owner:
    """The patient a resource belongs to; `patients_by_url` maps a Bundle's Patient full URLs."""
    if res.get("resourceType") == "Patient":
        rid = res.get("id")
        return Owner(patient=rid) if isinstance(rid, str) and rid else Owner(problem="Patient without id")
    for field in PATIENT_FIELDS:
        value = res.get(field)
        if value is None:
            continue
        refs = value if isinstance(value, list) else [value]
        for ref in refs:
            text = ref.get("reference") if isinstance(ref, dict) else None
            if not isinstance(text, str):
                continue
            patient = _patient_ref(text, patients_by_url)
            if patient is not None:
                return Owner(patient=patient)
            if text.startswith(("urn:uuid:", "Patient?")):
                return Owner(problem=f"{field} reference cannot be resolved to a Patient")
        return Owner(shared=True)  # a Group, a Location...: not one patient's
    return Owner(shared=True)


def latest_date(res: dict[str, Any]) -> str | None:
    """The latest ISO date string among meta.lastUpdated and the resource's usual time elements."""
    found: list[str] = []
    meta = res.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("lastUpdated"), str):
        found.append(meta["lastUpdated"])
    for field in _DATE_FIELDS:
        value = res.get(field)
        if isinstance(value, str):
            found.append(value)
    for field in _PERIOD_FIELDS:
        value = res.get(field)
        if isinstance(value, dict):
            found.extend(v for k in ("start", "end") if isinstance(v := value.get(k), str))
    return max(found) if found else None
