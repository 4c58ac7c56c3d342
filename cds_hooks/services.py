"""The services this CDS Hooks endpoint offers, as published by discovery."""

from __future__ import annotations

from medeventgraph.cds_hooks.models import ServiceDefinition
from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH

__all__ = ["ORDER_SELECT", "ORDER_SIGN", "PATIENT_VIEW", "SERVICES", "VERIFY", "VERIFY_HOOK"]

PATIENT_VIEW = "medeventgraph-patient-view"
ORDER_SELECT = "medeventgraph-order-select"
ORDER_SIGN = "medeventgraph-order-sign"
VERIFY = "medeventgraph-verify"
VERIFY_HOOK = "medeventgraph-verify"  # a custom hook: context {patientId, encounterId?, query}

_USAGE = ("Send the patient's record as prefetch, or fhirServer with fhirAuthorization. "
          "Cards cite the FHIR resources (and note spans) each verdict rests on.")

SERVICES: dict[str, ServiceDefinition] = {
    s.id: s
    for s in [
        ServiceDefinition(
            hook="patient-view", id=PATIENT_VIEW, title="MedEventGraph: drug-safety and care-timing watch list",
            description="Checks the watch list of clinical event relations (e.g. kidney injury within 7 days "
                        "of a nephrotoxic drug) against the record and shows each one that is documented "
                        "or has conflicting evidence.",
            prefetch=dict(PATIENT_PREFETCH), usageRequirements=_USAGE),
        ServiceDefinition(
            hook="order-select", id=ORDER_SELECT, title="MedEventGraph: earlier adverse events of a selected drug",
            description="For selected draft MedicationRequests, checks whether the record documents an "
                        "adverse event after earlier exposure to the same drug or drug class.",
            prefetch=dict(PATIENT_PREFETCH), usageRequirements=_USAGE),
        ServiceDefinition(
            hook="order-sign", id=ORDER_SIGN, title="MedEventGraph: earlier adverse events of drugs being signed",
            description="For draft MedicationRequests about to be signed, checks whether the record documents "
                        "an adverse event after earlier exposure to the same drug or drug class.",
            prefetch=dict(PATIENT_PREFETCH), usageRequirements=_USAGE),
        ServiceDefinition(
            hook=VERIFY_HOOK, id=VERIFY, title="MedEventGraph: verify a clinical event relation",
            description="Custom hook. context.query is a MedEventGraph query (JSON) or a question; the "
                        "answer is one card with the verdict (supported, conflicting, refuted, "
                        "insufficient) and its evidence.",
            prefetch=dict(PATIENT_PREFETCH), usageRequirements=_USAGE),
    ]
}
