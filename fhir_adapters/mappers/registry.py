"""resourceType -> mapper. A mapper turns one raw resource into zero or more Occurrences (and
NoteDocuments) appended to the MapContext; it never raises for bad content, it records Issues.

Types not listed here (Claim, ExplanationOfBenefit, Provenance, SupplyDelivery, CareTeam,
CarePlan, ImagingStudy, Device, Medication, Specimen, ...) are kept as raw
resources with their ownership but give no occurrence; Medication is read through
medicationReference by the medication mappers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.mappers.clinical import (
    map_allergy,
    map_condition,
    map_encounter,
    map_episode_of_care,
    map_immunization,
    map_observation,
    map_procedure,
)
from medeventgraph.fhir_adapters.mappers.documents import (
    map_composition,
    map_diagnostic_report,
    map_document_reference,
)
from medeventgraph.fhir_adapters.mappers.medication import (
    map_medication_administration,
    map_medication_dispense,
    map_medication_request,
    map_medication_statement,
)
from medeventgraph.fhir_adapters.mappers.requests import map_service_request

__all__ = ["MAPPERS", "Mapper"]

Mapper = Callable[[MapContext, dict[str, Any], str, str], None]

MAPPERS: dict[str, Mapper] = {
    "Encounter": map_encounter,
    "EpisodeOfCare": map_episode_of_care,
    "Condition": map_condition,
    "Observation": map_observation,
    "Procedure": map_procedure,
    "Immunization": map_immunization,
    "AllergyIntolerance": map_allergy,
    "MedicationAdministration": map_medication_administration,
    "MedicationRequest": map_medication_request,
    "MedicationStatement": map_medication_statement,
    "DiagnosticReport": map_diagnostic_report,
    "DocumentReference": map_document_reference,
    "Composition": map_composition,
    "MedicationDispense": map_medication_dispense,
    "ServiceRequest": map_service_request,
}
