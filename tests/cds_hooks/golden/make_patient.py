"""Writes golden-patient.json: one small made-up patient whose entries reach each card template
(see cases.json). Run: python tests/cds_hooks/golden/make_patient.py"""

import base64
import json
from pathlib import Path

P = "golden-1"
RX = "http://www.nlm.nih.gov/research/umls/rxnorm"
SCT = "http://snomed.info/sct"
ICD = "http://hl7.org/fhir/sid/icd-10-cm"
def subj(): return {"reference": f"Patient/{P}"}
def enc(eid, start, end):
    return {"resourceType": "Encounter", "id": eid, "status": "finished",
            "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
            "subject": subj(), "period": {"start": start, "end": end}}
def admin(rid, code, display, text, when, e):
    return {"resourceType": "MedicationAdministration", "id": rid, "status": "completed",
            "medicationCodeableConcept": {"coding": [{"system": RX, "code": code, "display": display}], "text": text},
            "subject": subj(), "context": {"reference": f"Encounter/{e}"}, "effectiveDateTime": when}
def order(rid, code, display, text, when, e):
    return {"resourceType": "MedicationRequest", "id": rid, "status": "active", "intent": "order",
            "medicationCodeableConcept": {"coding": [{"system": RX, "code": code, "display": display}], "text": text},
            "subject": subj(), "encounter": {"reference": f"Encounter/{e}"}, "authoredOn": when}
def cond(rid, system, code, display, onset, e):
    return {"resourceType": "Condition", "id": rid,
            "clinicalStatus": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/condition-clinical", "code": "active"}]},
            "verificationStatus": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/condition-ver-status", "code": "confirmed"}]},
            "code": {"coding": [{"system": system, "code": code, "display": display}], "text": display},
            "subject": subj(), "encounter": {"reference": f"Encounter/{e}"}, "onsetDateTime": onset}
def proc(rid, code, display, e, **when):
    return {"resourceType": "Procedure", "id": rid, "status": "completed",
            "code": {"coding": [{"system": SCT, "code": code, "display": display}], "text": display},
            "subject": subj(), "encounter": {"reference": f"Encounter/{e}"}, **when}
def note(rid, date, text, e):
    return {"resourceType": "DocumentReference", "id": rid, "status": "current",
            "type": {"coding": [{"system": "http://loinc.org", "code": "11506-3", "display": "Progress note"}]},
            "subject": subj(), "date": date, "context": {"encounter": [{"reference": f"Encounter/{e}"}]},
            "content": [{"attachment": {"contentType": "text/plain", "data": base64.b64encode(text.encode()).decode()}}]}
E1, E2 = "golden-enc-1", "golden-enc-2"
res = [
    {"resourceType": "Patient", "id": P, "gender": "female", "birthDate": "1950-04-02"},
    enc(E1, "2023-03-01T08:00:00Z", "2023-03-12T12:00:00Z"),
    enc(E2, "2023-06-01T08:00:00Z", "2023-06-05T12:00:00Z"),
    admin("golden-vanc-1", "11124", "vancomycin", "Vancomycin 1 g IV", "2023-03-02T10:00:00Z", E1),
    cond("golden-aki-1", ICD, "N17.9", "Acute kidney injury", "2023-03-04", E1),
    admin("golden-hep-1", "5224", "heparin", "Heparin 5000 units SC", "2023-03-03T08:00:00Z", E1),
    cond("golden-bleed-1", SCT, "131148009", "Bleeding", "2023-03-06T14:00:00Z", E1),
    order("golden-ceftriaxone-1", "2193", "ceftriaxone", "Ceftriaxone 2 g IV daily", "2023-03-04", E1),
    cond("golden-pna-1", ICD, "J18.9", "Pneumonia", "2023-06-02T10:00:00Z", E2),
    proc("golden-hd-1", "302497006", "Hemodialysis", E1, performedDateTime="2023-03-04"),
    proc("golden-vent-1", "40617009", "Mechanical ventilation", E1,
         performedPeriod={"start": "2023-03-02T08:00:00Z", "end": "2023-03-03T08:00:00Z"}),
    admin("golden-furo-1", "4603", "furosemide", "Furosemide 40 mg IV", "2023-03-09T10:00:00Z", E1),
    cond("golden-hypot-1", SCT, "45007003", "Hypotension", "2023-03-08T10:00:00Z", E1),

    note("golden-note-0", "2023-03-01T12:00:00Z", "Admission note. Alert and oriented, no delirium.", E1),
    note("golden-note-1", "2023-03-05T09:00:00Z", "Progress note. Fluid overload, on furosemide.", E1),
    note("golden-note-2", "2023-03-07T09:00:00Z", "Day 7. No bleeding at the line site. No rash.", E1),
]
b = {"resourceType": "Bundle", "type": "collection", "entry": [{"fullUrl": f"urn:uuid:{r['id']}", "resource": r} for r in res]}
(Path(__file__).resolve().parent / "golden-patient.json").write_text(json.dumps(b, indent=1))
