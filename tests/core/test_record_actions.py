"""Event actions and encounter-bounded times through verification (issue #13).

Data: tests/data (one clinosim sepsis stay, three MIMIC-IV demo patients), and hand-written
R4 JSON where a case must be exact.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from medeventgraph.api import verify_index
from medeventgraph.core.answer import verify_query
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.fhir_adapters.ingest import load_paths
from medeventgraph.model.settings import Settings

from .conftest import index_of

DATA = Path(__file__).resolve().parents[1] / "data"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
LOINC = "http://loinc.org"
ICD9 = "http://fhir.mimic.mit.edu/CodeSystem/diagnosis-icd9"
SUBJ = {"reference": "Patient/p1"}
VANCO = {"system": RXNORM, "code": "11124"}
LACTATE = {"system": LOINC, "code": "2524-7"}


def _query(e0: dict, e1: dict, typ: str = "after", within: str | None = None, scope: str = "patient"):
    rel = {"from": "e0", "to": "e1", "type": typ} | ({"within": within} if within else {})
    return VerificationQuery.model_validate({"id": "q", "events": [{"id": "e0", **e0}, {"id": "e1", **e1}],
                                             "relations": [rel], "scope": scope})


STAY = "pt-61bd7599b2bf"


@pytest.fixture(scope="module")
def clinosim_stay(clinosim_dir: Path, settings: Settings):
    """Vancomycin ordered 8 min after the first lactate, first given 37 min after it."""
    return build_index(load_paths([clinosim_dir]).for_patient(STAY), settings)


@pytest.fixture(scope="module")
def mimic(settings: Settings):
    result = load_paths([DATA / "mimic-iv-demo"])
    return build_index(result.for_patient("dd2bf984-33c3-5874-8f68-84113327877e"), settings)


def test_query_schema_shows_action_and_refuses_a_wrong_one():
    out = subprocess.run([sys.executable, "-m", "medeventgraph.cli", "schema", "query"],
                         capture_output=True, text=True, check=True).stdout
    action = orjson.loads(out)["$defs"]["EventSpec"]["properties"]["action"]
    assert {"administered", "ordered", "dispensed", "reported", "resulted", "collected", "performed", "any"} \
        == set(action["anyOf"][0]["enum"])
    assert "ServiceRequest" in action["description"]
    with pytest.raises(ValueError, match="cannot be 'administered'"):
        _query({"text": "sepsis", "kind": "condition", "action": "administered"}, {"text": "x"})
    with pytest.raises(ValueError, match="needs a kind"):
        _query({"text": "vancomycin", "action": "ordered"}, {"text": "x"})
    assert _query({"text": "x", "kind": "lab"}, {"text": "y", "kind": "procedure"}).events[0].effective_action == "collected"


def test_an_order_in_the_window_does_not_support_given(clinosim_stay, settings):
    given = _query({"codes": [VANCO], "kind": "medication", "action": "administered"},
                   {"codes": [LACTATE], "kind": "lab"}, within="PT20M")
    v = verify_query(clinosim_stay, given, settings)
    assert v.verdict.value != "supported"
    assert all(e.action == "administered" for e in v.evidence if "e0" in e.events)
    # the same question without an action is what the record's order answers (the old behaviour)
    anything = given.model_copy(update={"events": [given.events[0].model_copy(update={"action": None}),
                                                   given.events[1]]})
    v_any = verify_query(clinosim_stay, anything, settings)
    assert v_any.verdict.value == "supported"
    assert any(e.source.reference.startswith("MedicationRequest/") and e.polarity == "supports" for e in v_any.evidence)
    ordered = given.model_copy(update={"events": [given.events[0].model_copy(update={"action": "ordered"}),
                                                  given.events[1]]})
    v_ord = verify_query(clinosim_stay, ordered, settings)
    assert v_ord.verdict.value == "supported"
    assert "ordered" in v_ord.relations[0].explanation
    wider = given.model_copy(update={"relations": [given.relations[0].model_copy(update={"within": "PT45M"})]})
    v_wide = verify_query(clinosim_stay, wider, settings)
    assert v_wide.verdict.value == "supported"
    assert [e.source.reference.split("/")[0] for e in v_wide.evidence if e.polarity == "supports" and "e0" in e.events] \
        == ["MedicationAdministration"]


def test_question_words_reach_the_verdict(clinosim_stay, settings):
    v = verify_index(clinosim_stay, "Was vancomycin given within 20 minutes of the lactate?", settings)
    assert v.verdict.value != "supported"
    v = verify_index(clinosim_stay, "Was vancomycin ordered within 20 minutes of the lactate?", settings)
    assert v.verdict.value == "supported"
    v = verify_index(clinosim_stay, "Was the patient started on vancomycin within 20 minutes of the lactate?", settings)
    assert v.verdict.value != "supported"
    assert "administered" in v.search["grounding"]["actions"]["e0"]


def _lab_bundle(*extra: dict) -> dict:
    enc = {"resourceType": "Encounter", "id": "e1", "status": "finished", "subject": SUBJ, "class": {"code": "IMP"},
           "period": {"start": "2024-06-15T08:00:00Z", "end": "2024-06-20T08:00:00Z"}}
    lab = {"resourceType": "Observation", "id": "lac", "status": "final", "subject": SUBJ,
           "encounter": {"reference": "Encounter/e1"}, "category": [{"coding": [{"code": "laboratory"}]}],
           "code": {"coding": [{**LACTATE, "display": "Lactate"}]}, "effectiveDateTime": "2024-06-15T10:00:00Z",
           "issued": "2024-06-15T11:00:00Z", "valueQuantity": {"value": 4.2, "unit": "mmol/L"}}
    dose = {"resourceType": "MedicationAdministration", "id": "ma1", "status": "completed", "subject": SUBJ,
            "context": {"reference": "Encounter/e1"}, "medicationCodeableConcept": {"coding": [VANCO]},
            "effectiveDateTime": "2024-06-15T10:30:00Z"}
    entries = [{"resourceType": "Patient", "id": "p1"}, enc, lab, dose, *extra]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in entries]}


def test_resulted_uses_the_result_time(settings):
    index = index_of(_lab_bundle(), settings)
    collected = _query({"codes": [VANCO], "kind": "medication"}, {"codes": [LACTATE], "kind": "lab"}, typ="after")
    assert verify_query(index, collected, settings).verdict.value == "supported"  # dose 10:30 after draw 10:00
    resulted = _query({"codes": [VANCO], "kind": "medication"},
                      {"codes": [LACTATE], "kind": "lab", "action": "resulted"}, typ="before")
    v = verify_query(index, resulted, settings)
    assert v.verdict.value == "supported"  # dose 10:30 before the result at 11:00
    lab = next(e for e in v.evidence if "e1" in e.events)
    assert lab.action == "resulted" and lab.time.start == "2024-06-15T11:00:00Z"
    assert "time of the result" in v.relations[0].explanation


def test_not_given_counts_against_given_never_for(settings):
    missed = {"resourceType": "MedicationAdministration", "id": "ma2", "status": "not-done", "subject": SUBJ,
              "context": {"reference": "Encounter/e1"}, "medicationCodeableConcept": {"coding": [VANCO]},
              "effectiveDateTime": "2024-06-15T10:20:00Z"}
    error = dict(missed, id="ma3", status="entered-in-error", effectiveDateTime="2024-06-15T10:10:00Z")
    bundle = _lab_bundle(missed, error)
    bundle["entry"] = [e for e in bundle["entry"] if e["resource"].get("id") != "ma1"]
    index = index_of(bundle, settings)
    q = _query({"codes": [VANCO], "kind": "medication", "action": "administered"}, {"codes": [LACTATE], "kind": "lab"},
               within="PT1H")
    v = verify_query(index, q, settings)
    assert v.verdict.value != "supported"
    polar = {e.source.reference: e.polarity for e in v.evidence}
    assert polar.get("MedicationAdministration/ma2") == "counters"
    assert "MedicationAdministration/ma3" in polar and polar["MedicationAdministration/ma3"] != "supports"


def test_a_procedure_order_is_not_the_procedure(settings):
    order = {"resourceType": "ServiceRequest", "id": "sr1", "status": "completed", "intent": "order", "subject": SUBJ,
             "encounter": {"reference": "Encounter/e1"}, "authoredOn": "2024-06-15T09:00:00Z",
             "code": {"coding": [{"system": LOINC, "code": "600-7", "display": "Blood culture"}]}}
    index = index_of(_lab_bundle(order), settings)
    performed = _query({"text": "blood culture", "kind": "procedure"}, {"codes": [VANCO], "kind": "medication"},
                       typ="before")
    assert verify_query(index, performed, settings).verdict.value == "insufficient"
    ordered = _query({"text": "blood culture", "kind": "procedure", "action": "ordered"},
                     {"codes": [VANCO], "kind": "medication"}, typ="before")
    v = verify_query(index, ordered, settings)
    assert v.verdict.value == "supported" and any(e.source.reference == "ServiceRequest/sr1" for e in v.evidence)


def _dx(code: str) -> dict:
    return {"codes": [{"system": ICD9, "code": code}], "kind": "condition"}


def test_diagnoses_ordered_across_admissions_by_their_periods(mimic, settings):
    # 0389 septicemia: only the Dec 2133 admission; 42833 heart failure: only the Sep 2134 one.
    v = verify_query(mimic, _query(_dx("0389"), _dx("42833"), typ="before"), settings)
    assert v.verdict.value == "supported"
    assert all(e.time.type == "encounter-bounded" for e in v.evidence)
    assert "no time of its own" in v.relations[0].explanation
    assert verify_query(mimic, _query(_dx("42833"), _dx("0389"), typ="before"), settings).verdict.value == "refuted"
    # 1120 oral candidiasis: the same admission as 0389, so their order is unknown
    same = verify_query(mimic, _query(_dx("0389"), _dx("1120"), typ="before"), settings)
    assert same.verdict.value == "insufficient"
    asked = "Was acute on chronic diastolic heart failure diagnosed after unspecified septicemia?"
    assert verify_index(mimic, asked, settings).verdict.value == "supported"


def test_timeline_shows_encounter_bounded_times(capsys):
    from medeventgraph.cli.main import main

    code = main(["timeline", "--bundle", str(DATA / "mimic-iv-demo"), "--patient",
                 "dd2bf984-33c3-5874-8f68-84113327877e", "--kind", "condition", "--format", "json"])
    rows = orjson.loads(capsys.readouterr().out)
    assert code == 0 and rows
    assert all(r["time"] != "unknown" and r["time_type"].startswith("encounter-bounded (to ") for r in rows)


def test_the_contract_rechecks_the_action_whatever_discovery_nominates(clinosim_stay, settings):
    from medeventgraph.core.discover.exhaustive import Discovery
    from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
    from medeventgraph.core.evidence.contract import Candidate

    given = _query({"codes": [VANCO], "kind": "medication", "action": "administered"},
                   {"codes": [LACTATE], "kind": "lab"}, within="PT20M")
    code = f"{VANCO['system']}|{VANCO['code']}"
    orders = [o for o in clinosim_stay.occurrences.values()
              if o.source.resource_type == "MedicationRequest" and any(c.code == "11124" for c in o.concept.codings)]
    labs = [o for o in clinosim_stay.occurrences.values() if any(c.code == "2524-7" for c in o.concept.codings)]
    forged = [Candidate(o, (BindingBasis("e0", BasisKind.CODE, code),)) for o in orders]
    forged += [Candidate(o, (BindingBasis("e1", BasisKind.CODE, "http://loinc.org|2524-7"),)) for o in labs]

    def discover(index, query, s):
        return Discovery(forged, {"discovery": "adversarial"})

    v = verify_query(clinosim_stay, given, settings, discover=discover)
    assert orders and v.verdict.value != "supported"
    assert not any(e.source.reference.startswith("MedicationRequest/") for e in v.evidence)
    assert any(u.startswith(orders[0].id) for u in v.unbound)
