"""What happened (action), times bounded by the encounter, and partOf stays (issue #13)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from medeventgraph.fhir_adapters import ingest_json, load_paths
from medeventgraph.model.occurrence import Action, Granularity, Kind, TimeType

from ..conftest import missing

SUBJ = {"reference": "Patient/p1"}
MIMIC = Path(__file__).resolve().parents[1] / "data" / "mimic-iv-demo"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
VANCO = {"coding": [{"system": RXNORM, "code": "11124", "display": "vancomycin"}]}


def _enc(eid: str, start: str, end: str | None, **kw) -> dict:
    period = {"start": start} if end is None else {"start": start, "end": end}
    return {"resourceType": "Encounter", "id": eid, "status": "finished", "subject": SUBJ,
            "class": {"code": "IMP"}, "period": period, **kw}


def _by_id(result) -> dict:
    return {o.id: o for o in result.occurrences}


def test_each_medication_resource_says_what_happened(make_bundle):
    common = {"subject": SUBJ, "medicationCodeableConcept": VANCO}
    res = [
        {"resourceType": "MedicationRequest", "id": "mr", "status": "active", "intent": "order",
         "authoredOn": "2024-06-15T10:00:00Z", **common},
        {"resourceType": "MedicationAdministration", "id": "ma", "status": "completed",
         "effectiveDateTime": "2024-06-15T10:30:00Z", **common},
        {"resourceType": "MedicationDispense", "id": "md", "status": "completed",
         "whenHandedOver": "2024-06-15T10:10:00Z", **common},
        {"resourceType": "MedicationStatement", "id": "ms", "status": "active",
         "effectiveDateTime": "2024-06-01", **common},
        {"resourceType": "Procedure", "id": "pr", "status": "completed", "subject": SUBJ,
         "code": {"text": "blood culture"}, "performedDateTime": "2024-06-15T09:50:00Z"},
        {"resourceType": "ServiceRequest", "id": "sr", "status": "completed", "intent": "order", "subject": SUBJ,
         "code": {"coding": [{"system": "http://loinc.org", "code": "600-7", "display": "Blood culture"}]},
         "authoredOn": "2024-06-15T09:40:00Z", "occurrenceDateTime": "2024-06-15T09:45:00Z"},
    ]
    occ = _by_id(ingest_json(make_bundle(*res)))
    assert occ["MedicationRequest/mr"].action is Action.ORDERED
    assert occ["MedicationAdministration/ma"].action is Action.ADMINISTERED
    assert occ["MedicationDispense/md"].action is Action.DISPENSED
    assert occ["MedicationStatement/ms"].action is Action.REPORTED
    assert occ["Procedure/pr"].action is Action.PERFORMED
    sr = occ["ServiceRequest/sr"]
    assert sr.kind is Kind.PROCEDURE and sr.action is Action.ORDERED
    assert sr.time.start == datetime(2024, 6, 15, 9, 40, tzinfo=UTC)  # ordered at authoredOn, not occurrence[x]
    assert sr.source.reference == "ServiceRequest/sr" and sr.concept.text == "Blood culture"


def test_lab_keeps_collection_time_and_result_time(make_bundle):
    obs = {"resourceType": "Observation", "id": "lac", "status": "final", "subject": SUBJ,
           "category": [{"coding": [{"code": "laboratory"}]}], "code": {"text": "lactate"},
           "effectiveDateTime": "2024-06-15T10:00:00Z", "issued": "2024-06-15T10:47:00Z",
           "valueQuantity": {"value": 4.1, "unit": "mmol/L"}}
    o = _by_id(ingest_json(make_bundle(obs)))["Observation/lac"]
    assert o.action is Action.COLLECTED
    assert o.time.start == datetime(2024, 6, 15, 10, 0, tzinfo=UTC)
    assert o.issued is not None and o.issued.start == datetime(2024, 6, 15, 10, 47, tzinfo=UTC)


@pytest.mark.parametrize(("status", "own_time", "negated"), [
    ("not-done", True, True), ("entered-in-error", True, True), ("cancelled", False, True),
    ("stopped", False, True), ("stopped", True, False), ("completed", True, False),
])
def test_statuses_that_mean_it_did_not_happen(make_bundle, status, own_time, negated):
    ma = {"resourceType": "MedicationAdministration", "id": "ma", "status": status, "subject": SUBJ,
          "medicationCodeableConcept": VANCO, "context": {"reference": "Encounter/e1"}}
    pr = {"resourceType": "Procedure", "id": "pr", "status": status, "subject": SUBJ, "code": {"text": "intubation"},
          "encounter": {"reference": "Encounter/e1"}}
    if own_time:
        ma["effectiveDateTime"] = "2024-06-15T10:30:00Z"
        pr["performedDateTime"] = "2024-06-15T10:30:00Z"
    occ = _by_id(ingest_json(make_bundle(_enc("e1", "2024-06-15T08:00:00Z", "2024-06-20T08:00:00Z"), ma, pr)))
    assert occ["MedicationAdministration/ma"].assertion.negated is negated
    assert occ["Procedure/pr"].assertion.negated is negated
    assert occ["MedicationAdministration/ma"].status == status  # the recorded status is kept as is


def test_no_own_time_is_bounded_by_the_encounter(make_bundle):
    enc = _enc("e1", "2015-02-03T10:00:00Z", "2015-02-09T12:30Z")
    cond = {"resourceType": "Condition", "id": "c1", "subject": SUBJ, "encounter": {"reference": "Encounter/e1"},
            "code": {"text": "acute kidney failure"}}
    proc = {"resourceType": "Procedure", "id": "p1", "status": "completed", "subject": SUBJ,
            "encounter": {"reference": "Encounter/e1"}, "code": {"text": "dialysis"}}
    obs = {"resourceType": "Observation", "id": "o1", "status": "final", "subject": SUBJ,
           "encounter": {"reference": "Encounter/e1"}, "code": {"text": "creatinine"}}
    note = {"resourceType": "DocumentReference", "id": "d1", "status": "current", "subject": SUBJ,
            "context": {"encounter": [{"reference": "Encounter/e1"}]},
            "content": [{"attachment": {"contentType": "text/plain", "data": "Tm8gY29tcGxhaW50cy4="}}]}
    result = ingest_json(make_bundle(enc, cond, proc, obs, note))
    occ = _by_id(result)
    for oid in ("Condition/c1", "Procedure/p1", "Observation/o1", "DocumentReference/d1"):
        t = occ[oid].time
        assert t.type is TimeType.ENCOUNTER_BOUNDED, oid
        assert t.start == datetime(2015, 2, 3, 10, tzinfo=UTC) and t.end == datetime(2015, 2, 9, 12, 30, tzinfo=UTC)
        assert t.granularity is Granularity.MINUTE  # the coarser of the period's two ends
    assert not [i for i in result.issues if "time unknown" in i.diagnostics]
    doc = next(d for d in result.documents if d.resource_id == "d1")
    assert doc.date.type is TimeType.DOCUMENTATION and doc.date.start == datetime(2015, 2, 9, 12, 30, tzinfo=UTC)


def test_own_time_wins_and_an_open_encounter_bounds_from_its_start(make_bundle):
    open_enc = _enc("e1", "2015-02-03T10:00:00Z", None)
    with_onset = {"resourceType": "Condition", "id": "c1", "subject": SUBJ, "code": {"text": "sepsis"},
                  "encounter": {"reference": "Encounter/e1"}, "onsetDateTime": "2015-02-04"}
    in_open = {"resourceType": "Condition", "id": "c2", "subject": SUBJ, "code": {"text": "sepsis"},
               "encounter": {"reference": "Encounter/e1"}}
    occ = _by_id(ingest_json(make_bundle(open_enc, with_onset, in_open)))
    assert occ["Condition/c1"].time.type is TimeType.OCCURRENCE
    assert occ["Condition/c1"].time.granularity is Granularity.DAY
    open_bound = occ["Condition/c2"].time
    assert open_bound.type is TimeType.ENCOUNTER_BOUNDED and open_bound.end is None
    assert open_bound.start == datetime(2015, 2, 3, 10, tzinfo=UTC)
    no_period = {"resourceType": "Condition", "id": "c3", "subject": SUBJ, "code": {"text": "sepsis"},
                 "encounter": {"reference": "Encounter/e2"}}
    bare = {"resourceType": "Encounter", "id": "e2", "status": "planned", "subject": SUBJ, "class": {"code": "IMP"}}
    occ = _by_id(ingest_json(make_bundle(bare, no_period)))
    assert not occ["Condition/c3"].time.resolved  # no period: nothing bounds it


def test_a_stay_within_its_admission_shares_its_encounter_scope(make_bundle):
    adm = _enc("adm", "2024-01-01T08:00:00Z", "2024-01-10T08:00:00Z")
    icu = _enc("icu", "2023-12-31T23:00:00Z", "2024-01-03T08:00:00Z", partOf={"reference": "Encounter/adm"})
    ed = _enc("ed", "2024-02-01T08:00:00Z", "2024-02-01T12:00:00Z")
    after_ed = _enc("ward", "2024-02-01T12:00:00Z", "2024-02-05T12:00:00Z", partOf={"reference": "Encounter/ed"})
    obs = {"resourceType": "Observation", "id": "o1", "status": "final", "subject": SUBJ, "code": {"text": "lactate"},
           "encounter": {"reference": "Encounter/icu"}}
    obs2 = {"resourceType": "Observation", "id": "o2", "status": "final", "subject": SUBJ, "code": {"text": "lactate"},
            "encounter": {"reference": "Encounter/ward"}, "effectiveDateTime": "2024-02-02T10:00:00Z"}
    occ = _by_id(ingest_json(make_bundle(adm, icu, ed, after_ed, obs, obs2)))
    o1 = occ["Observation/o1"]
    assert o1.encounter == "Encounter/adm" and ("encounter", "Encounter/icu") in o1.links
    assert o1.time.start == datetime(2023, 12, 31, 23, tzinfo=UTC)  # bounded by the stay, not the admission
    assert occ["Encounter/icu"].encounter == "Encounter/adm"
    # a partOf that only touches its parent's end is a separate visit: encounter scope stays its own
    assert occ["Observation/o2"].encounter == "Encounter/ward"


def test_mimic_diagnoses_are_never_unknown_when_their_admission_has_a_period():
    result = load_paths([MIMIC])
    assert not [i for i in result.issues if i.severity in ("error", "fatal")]
    encounters = {o.id: o for o in result.occurrences if o.kind is Kind.ENCOUNTER}
    conditions = [o for o in result.occurrences if o.kind is Kind.CONDITION]
    assert len(conditions) == 305 and len(encounters) == 24
    for c in conditions:
        enc = encounters[c.encounter]
        assert c.time.type is TimeType.ENCOUNTER_BOUNDED
        assert (c.time.start, c.time.end) == (enc.time.start, enc.time.end)
    icu = [o for o in encounters.values() if ("partOf", o.encounter) in o.links]
    assert len(icu) == 7  # every ICU stay overlaps its admission, so shares its encounter scope


def test_shared_mimic_conditions_all_bounded(shared_data):
    folder = shared_data / "mimic-iv-demo-fhir-partial"
    if not folder.is_dir():
        missing("MIMIC-IV demo data neither in ../shared/data nor in tests/data")
    result = load_paths([folder])
    periods = {o.id for o in result.occurrences if o.kind is Kind.ENCOUNTER and o.time.end is not None}
    unknown = [o for o in result.occurrences
               if o.kind is Kind.CONDITION and o.encounter in periods and not o.time.resolved]
    assert not unknown
