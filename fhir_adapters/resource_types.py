"""Which resourceType strings are FHIR resources at all.

Generated once from the fhir.resources R4B models (so ingest never imports them), plus the R4
types R4B dropped, since our input is R4.
"""

from __future__ import annotations

__all__ = ["KNOWN_RESOURCE_TYPES", "OCCURRENCE_TYPES", "PATIENT_FIELDS"]

_R4B = """
Account ActivityDefinition AdministrableProductDefinition AdverseEvent AllergyIntolerance Appointment
AppointmentResponse AuditEvent Basic Binary BiologicallyDerivedProduct BodyStructure Bundle
CapabilityStatement CarePlan CareTeam CatalogEntry ChargeItem ChargeItemDefinition Citation Claim
ClaimResponse ClinicalImpression ClinicalUseDefinition CodeSystem Communication CommunicationRequest
CompartmentDefinition Composition ConceptMap Condition Consent Contract Coverage
CoverageEligibilityRequest CoverageEligibilityResponse DetectedIssue Device DeviceDefinition
DeviceMetric DeviceRequest DeviceUseStatement DiagnosticReport DocumentManifest DocumentReference
Encounter Endpoint EnrollmentRequest EnrollmentResponse EpisodeOfCare EventDefinition Evidence
EvidenceReport EvidenceVariable ExampleScenario ExplanationOfBenefit FamilyMemberHistory Flag Goal
GraphDefinition Group GuidanceResponse HealthcareService ImagingStudy Immunization
ImmunizationEvaluation ImmunizationRecommendation ImplementationGuide Ingredient InsurancePlan Invoice
Library Linkage List Location ManufacturedItemDefinition Measure MeasureReport Media Medication
MedicationAdministration MedicationDispense MedicationKnowledge MedicationRequest MedicationStatement
MedicinalProductDefinition MessageDefinition MessageHeader MolecularSequence NamingSystem
NutritionOrder NutritionProduct Observation ObservationDefinition OperationDefinition
OperationOutcome Organization OrganizationAffiliation PackagedProductDefinition Parameters Patient
PaymentNotice PaymentReconciliation Person PlanDefinition Practitioner PractitionerRole Procedure
Provenance Questionnaire QuestionnaireResponse RegulatedAuthorization RelatedPerson RequestGroup
ResearchDefinition ResearchElementDefinition ResearchStudy ResearchSubject RiskAssessment Schedule
SearchParameter ServiceRequest Slot Specimen SpecimenDefinition StructureDefinition StructureMap
Subscription SubscriptionStatus SubscriptionTopic Substance SubstanceDefinition SupplyDelivery
SupplyRequest Task TerminologyCapabilities TestReport TestScript ValueSet VerificationResult
VisionPrescription
"""

_R4_ONLY = """
EffectEvidenceSynthesis RiskEvidenceSynthesis MedicinalProduct MedicinalProductAuthorization
MedicinalProductContraindication MedicinalProductIndication MedicinalProductIngredient
MedicinalProductInteraction MedicinalProductManufactured MedicinalProductPackaged
MedicinalProductPharmaceutical MedicinalProductUndesirableEffect SubstanceNucleicAcid
SubstancePolymer SubstanceProtein SubstanceReferenceInformation SubstanceSourceMaterial
SubstanceSpecification
"""

KNOWN_RESOURCE_TYPES: frozenset[str] = frozenset((_R4B + _R4_ONLY).split())

# Elements that tie a resource to its patient, in the order they are tried.
PATIENT_FIELDS: tuple[str, ...] = ("subject", "patient", "beneficiary")

# Types that become occurrences (mappers.MAPPERS keys, checked by a test). Links only point at
# these, so every link target is an occurrence id.
OCCURRENCE_TYPES: frozenset[str] = frozenset({
    "Encounter", "EpisodeOfCare", "Condition", "Observation", "Procedure", "Immunization",
    "AllergyIntolerance", "MedicationAdministration", "MedicationRequest", "MedicationStatement",
    "MedicationDispense", "DiagnosticReport", "DocumentReference", "Composition", "ServiceRequest",
})
