"""The banner words read from FHIR resources: a patient's name and birth date, an encounter's
kind, type and dates; None (never an id) when the resource does not say."""

from __future__ import annotations

from medeventgraph.wording.record_words import encounter_words, patient_words, person_name
from medeventgraph.wording.templates import load_wording

PATIENT = {"resourceType": "Patient", "id": "p-123",
           "name": [{"use": "old", "family": "Former", "given": ["Ann"]},
                    {"use": "official", "family": "Okafor", "given": ["Ada", "N."], "prefix": ["Ms."]}],
           "birthDate": "1961-04-09"}
ENCOUNTER = {"resourceType": "Encounter", "id": "e-9", "class": {"code": "IMP"},
             "type": [{"coding": [{"system": "http://snomed.info/sct", "code": "183452005",
                                   "display": "Emergency hospital admission (procedure)"}]}],
             "period": {"start": "2024-06-14T22:10:00Z", "end": "2024-06-21T11:00:00Z"}}


def test_patient_words_take_the_official_name_and_a_human_birth_date():
    words = patient_words(PATIENT)
    assert words.name == "Ada N. Okafor" and words.born == "9 Apr 1961"
    assert patient_words({**PATIENT, "birthDate": "1961-04"}).born == "Apr 1961"
    assert patient_words({"resourceType": "Patient", "name": [{"text": "  Ada   Okafor "}]}).name == "Ada Okafor"


def test_a_patient_without_name_or_birth_date_gives_nothing_not_an_id():
    words = patient_words({"resourceType": "Patient", "id": "p-123", "name": [{"use": "anonymous", "text": "X"}]})
    assert words.name is None and words.born is None
    assert patient_words(None).name is None and person_name({"name": "not a list"}) is None


def test_encounter_words_give_kind_type_and_dates():
    w = load_wording()
    assert encounter_words(ENCOUNTER, w) == "Inpatient stay · Emergency hospital admission · 14–21 Jun 2024"
    open_stay = {**ENCOUNTER, "type": [{"text": "Inpatient stay"}], "period": {"start": "2024-06-14"}}
    assert encounter_words(open_stay, w) == "Inpatient stay · from 14 Jun 2024"
    assert encounter_words({"resourceType": "Encounter", "id": "e-9"}, w) is None
    assert encounter_words(None, w) is None
