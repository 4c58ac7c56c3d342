"""Small FHIR R4 records written out in full, so the core tests that use them need no shared data."""

from __future__ import annotations

from typing import Any

PATIENT = "meg-bind-1"
ENCOUNTER = "Encounter/meg-bind-enc-1"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
SNOMED = "http://snomed.info/sct"
LOINC = "http://loinc.org"
_SUBJECT = {"reference": f"Patient/{PATIENT}"}
_CTX = {"reference": ENCOUNTER}


def _med(rid: str, code: str, display: str, when: str, status: str = "completed") -> dict[str, Any]:
    return {
        "resourceType": "MedicationAdministration", "id": rid, "status": status,
        "medicationCodeableConcept": {"coding": [{"system": RXNORM, "code": code, "display": display}],
                                      "text": display},
        "subject": _SUBJECT, "context": _CTX, "effectiveDateTime": when,
    }


def _condition(rid: str, code: str, display: str, onset: str) -> dict[str, Any]:
    return {
        "resourceType": "Condition", "id": rid,
        "clinicalStatus": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/condition-clinical",
                                       "code": "active"}]},
        "verificationStatus": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/condition-ver-status",
                                           "code": "confirmed"}]},
        "code": {"coding": [{"system": SNOMED, "code": code, "display": display}], "text": display},
        "subject": _SUBJECT, "encounter": _CTX, "onsetDateTime": onset,
    }


def _creatinine(rid: str, value: float, when: str) -> dict[str, Any]:
    return {
        "resourceType": "Observation", "id": rid, "status": "final",
        "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category",
                                  "code": "laboratory"}]}],
        "code": {"coding": [{"system": LOINC, "code": "2160-0", "display": "Creatinine [Mass/volume] in Serum or Plasma"}],
                 "text": "Creatinine"},
        "subject": _SUBJECT, "encounter": _CTX, "effectiveDateTime": when,
        "valueQuantity": {"value": value, "unit": "mg/dL", "system": "http://unitsofmeasure.org", "code": "mg/dL"},
    }


def septic_shock_record() -> dict[str, Any]:
    """Vancomycin, then septic shock and norepinephrine; creatinine flat; no kidney injury anywhere."""
    resources = [
        {"resourceType": "Patient", "id": PATIENT, "gender": "male", "birthDate": "1948-07-12"},
        {"resourceType": "Encounter", "id": "meg-bind-enc-1", "status": "finished",
         "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
         "subject": _SUBJECT, "period": {"start": "2023-05-01T08:00:00Z", "end": "2023-05-09T12:00:00Z"}},
        _med("meg-bind-vanc-1", "11124", "vancomycin", "2023-05-01T10:00:00Z"),
        _med("meg-bind-vanc-2", "11124", "vancomycin", "2023-05-02T10:00:00Z"),
        _condition("meg-bind-shock-1", "76571007", "Septic shock", "2023-05-03T09:00:00Z"),
        _med("meg-bind-norepi-1", "7512", "norepinephrine", "2023-05-03T10:00:00Z"),
        _creatinine("meg-bind-cr-1", 0.9, "2023-05-01T07:00:00Z"),
        _creatinine("meg-bind-cr-2", 1.0, "2023-05-04T07:00:00Z"),
    ]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]}


def two_encounter_record() -> dict[str, Any]:
    """The septic-shock stay, then a second admission where acute kidney injury is recorded."""
    record = septic_shock_record()
    enc2 = {"reference": "Encounter/meg-bind-enc-2"}
    aki = _condition("meg-bind-aki-2", "14669001", "Acute kidney injury", "2023-08-02T09:00:00Z")
    aki["encounter"] = enc2
    record["entry"] += [
        {"resource": {"resourceType": "Encounter", "id": "meg-bind-enc-2", "status": "finished",
                      "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
                      "subject": _SUBJECT,
                      "period": {"start": "2023-08-01T08:00:00Z", "end": "2023-08-05T12:00:00Z"}}},
        {"resource": aki},
    ]
    return record


def _lab(rid: str, code: str, display: str, value: float, unit: str, when: str) -> dict[str, Any]:
    obs = _creatinine(rid, value, when)
    obs["code"] = {"coding": [{"system": LOINC, "code": code, "display": display}], "text": display}
    obs["valueQuantity"] = {"value": value, "unit": unit, "system": "http://unitsofmeasure.org", "code": unit}
    return obs


def values_record() -> dict[str, Any]:
    """The septic-shock stay with values past the derive rules' limits and no coded condition
    for them: creatinine 0.9 -> 1.6 (a KDIGO rise), potassium 6.1, lactate 3.0 (elevated, below 4)."""
    record = septic_shock_record()
    record["entry"] += [{"resource": r} for r in (
        _creatinine("meg-bind-cr-3", 1.6, "2023-05-05T07:00:00Z"),
        _lab("meg-bind-k-1", "2823-3", "Potassium [Moles/volume] in Serum or Plasma", 6.1, "mmol/L",
             "2023-05-05T07:00:00Z"),
        _lab("meg-bind-lac-1", "2524-7", "Lactate [Moles/volume] in Serum or Plasma", 3.0, "mmol/L",
             "2023-05-05T07:00:00Z"),
    )]
    return record
