"""Each resource type's mapping, on small hand-written R4 JSON."""

from __future__ import annotations

from datetime import UTC, datetime

from medeventgraph.fhir_adapters import ingest_json
from medeventgraph.model.occurrence import Granularity, Kind, TimeType

SUBJ = {"reference": "Patient/p1"}
ENC = {"reference": "Encounter/e1"}
LOINC = "http://loinc.org"


def _encounter(**kw):
    r = {"resourceType": "Encounter", "id": "e1", "status": "finished",
         "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "EMER"},
         "type": [{"coding": [{"system": "http://snomed.info/sct", "code": "50849002",
                               "display": "Emergency room admission"}]}],
         "subject": SUBJ, "period": {"start": "2015-02-03T10:00:00Z", "end": "2015-02-09T12:00:00Z"}}
    r.update(kw)
    return r


def _one(result, oid):
    matches = [o for o in result.occurrences if o.id == oid]
    assert len(matches) == 1, [o.id for o in result.occurrences]
    return matches[0]


def test_encounter_and_episode(make_bundle):
    ep = {"resourceType": "EpisodeOfCare", "id": "ep1", "status": "finished", "patient": SUBJ,
          "period": {"start": "2015-02-01", "end": "2015-03-01"}}
    parent = _encounter(episodeOfCare=[{"reference": "EpisodeOfCare/ep1"}])
    child = _encounter(id="e2", partOf=ENC, period={"start": "2015-02-04T10:00:00Z", "end": "2015-02-05T10:00:00Z"})
    obs = {"resourceType": "Observation", "id": "o1", "status": "final", "subject": SUBJ,
           "encounter": {"reference": "Encounter/e2"}, "code": {"text": "x"},
           "effectiveDateTime": "2015-02-04T11:00:00Z"}
    r = ingest_json(make_bundle(ep, parent, child, obs))
    assert not r.issues
    e1 = _one(r, "Encounter/e1")
    assert e1.kind is Kind.ENCOUNTER and e1.patient == "p1"
    assert e1.time.start == datetime(2015, 2, 3, 10, tzinfo=UTC) and e1.time.end == datetime(2015, 2, 9, 12, tzinfo=UTC)
    assert e1.extra_value("class") == "EMER" and e1.extra_value("status") == "finished"
    assert e1.concept.text == "Emergency room admission"
    assert e1.episode == "EpisodeOfCare/ep1"
    assert ("episodeOfCare", "EpisodeOfCare/ep1") in e1.links
    e2 = _one(r, "Encounter/e2")
    assert ("partOf", "Encounter/e1") in e2.links
    assert e2.episode == "EpisodeOfCare/ep1"  # inherited through partOf
    o1 = _one(r, "Observation/o1")
    # e2 lies within e1: for encounter scope it is part of e1; the stay itself stays a link
    assert o1.encounter == "Encounter/e1" and o1.episode == "EpisodeOfCare/ep1"
    assert ("encounter", "Encounter/e2") in o1.links
    epo = _one(r, "EpisodeOfCare/ep1")
    assert epo.kind is Kind.EPISODE and epo.time.granularity is Granularity.DAY


def test_condition_onset_abatement_and_status(make_bundle):
    base = {"resourceType": "Condition", "subject": SUBJ, "encounter": ENC,
            "code": {"coding": [{"system": "http://snomed.info/sct", "code": "91302008", "display": "Sepsis"}]}}
    c1 = dict(base, id="c1", onsetDateTime="2015-02-03T11:00:00Z", abatementDateTime="2015-02-08",
              recordedDate="2015-02-03T12:00:00Z",
              clinicalStatus={"coding": [{"code": "resolved"}]},
              verificationStatus={"coding": [{"code": "confirmed"}]})
    c2 = dict(base, id="c2", recordedDate="2015-02-04", verificationStatus={"coding": [{"code": "refuted"}]})
    c3 = dict(base, id="c3", onsetDateTime="2015", verificationStatus={"coding": [{"code": "provisional"}]})
    c4 = dict(base, id="c4", onsetDateTime="2015-02", verificationStatus={"coding": [{"code": "entered-in-error"}]})
    r = ingest_json(make_bundle(_encounter(), c1, c2, c3, c4))
    o1 = _one(r, "Condition/c1")
    assert o1.kind is Kind.CONDITION and o1.concept.text == "Sepsis"
    assert o1.time.type is TimeType.OCCURRENCE and o1.source.json_path == "onsetDateTime"
    assert o1.time.end == datetime(2015, 2, 8, tzinfo=UTC)
    assert o1.time.granularity is Granularity.DAY  # coarser of onset and abatement
    assert o1.documented.type is TimeType.RECORDED
    assert o1.extra_value("clinicalStatus") == "resolved" and o1.encounter == "Encounter/e1"
    o2 = _one(r, "Condition/c2")
    assert o2.time.type is TimeType.RECORDED and o2.time.granularity is Granularity.DAY
    assert o2.assertion.negated
    o3 = _one(r, "Condition/c3")
    assert o3.assertion.uncertain and o3.time.granularity is Granularity.YEAR
    o4 = _one(r, "Condition/c4")
    assert o4.status == "entered-in-error" and o4.time.granularity is Granularity.MONTH


def test_observation_lab_vital_components(make_bundle):
    lab = {"resourceType": "Observation", "id": "cr1", "status": "final", "subject": SUBJ, "encounter": ENC,
           "category": [{"coding": [{"code": "laboratory"}]}],
           "code": {"coding": [{"system": LOINC, "code": "2160-0", "display": "Creatinine"}], "text": "Creatinine"},
           "effectiveDateTime": "2015-02-04T06:00:00Z", "issued": "2015-02-04T07:00:00Z",
           "valueQuantity": {"value": 2.1, "unit": "mg/dL"},
           "interpretation": [{"coding": [{"code": "H"}]}],
           "referenceRange": [{"low": {"value": 0.7}, "high": {"value": 1.3}}]}
    bp = {"resourceType": "Observation", "id": "bp1", "status": "final", "subject": SUBJ,
          "category": [{"coding": [{"code": "vital-signs"}]}],
          "code": {"coding": [{"system": LOINC, "code": "85354-9"}], "text": "Blood pressure"},
          "effectivePeriod": {"start": "2015-02-04T06:00:00Z", "end": "2015-02-04T06:05:00Z"},
          "component": [
              {"code": {"coding": [{"system": LOINC, "code": "8480-6", "display": "Systolic"}]},
               "valueQuantity": {"value": 90, "code": "mm[Hg]"}},
              {"code": {"coding": [{"system": LOINC, "code": "8462-4", "display": "Diastolic"}]},
               "valueQuantity": {"value": 50, "code": "mm[Hg]"}}],
          "hasMember": [{"reference": "Observation/cr1"}]}
    survey = {"resourceType": "Observation", "id": "s1", "status": "entered-in-error", "subject": SUBJ,
              "category": [{"coding": [{"code": "survey"}]}], "code": {"text": "Smoking"},
              "issued": "2015-02-04T07:00:00.000Z", "valueCodeableConcept": {"text": "Never smoker"}}
    r = ingest_json(make_bundle(_encounter(), lab, bp, survey))
    o = _one(r, "Observation/cr1")
    assert o.kind is Kind.LAB
    assert o.value.quantity == 2.1 and o.value.unit == "mg/dL" and o.value.interpretation == "H"
    assert (o.value.low, o.value.high) == (0.7, 1.3)
    assert o.source.json_path == "valueQuantity"
    assert o.time.start == datetime(2015, 2, 4, 6, tzinfo=UTC) and o.documented.type is TimeType.DOCUMENTATION
    b = _one(r, "Observation/bp1")
    assert b.kind is Kind.VITAL and b.time.end is not None and ("hasMember", "Observation/cr1") in b.links
    sys_ = _one(r, "Observation/bp1#component[0]")
    assert sys_.kind is Kind.VITAL and sys_.concept.codings[0].code == "8480-6"
    assert sys_.value.quantity == 90 and sys_.value.unit == "mm[Hg]"
    assert sys_.source.json_path == "component[0].valueQuantity" and sys_.source.reference == "Observation/bp1"
    assert ("componentOf", "Observation/bp1") in sys_.links
    dia = _one(r, "Observation/bp1#component[1]")
    assert dia.value.quantity == 50
    s = _one(r, "Observation/s1")
    assert s.kind is Kind.OBSERVATION and s.status == "entered-in-error"
    assert s.time.type is TimeType.DOCUMENTATION and s.value.text == "Never smoker"


def test_medication_administration_request_statement(make_bundle):
    med = {"resourceType": "Medication", "id": "m1",
           "code": {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "11124",
                                "display": "vancomycin"}]}}
    req = {"resourceType": "MedicationRequest", "id": "mr1", "status": "active", "intent": "order",
           "subject": SUBJ, "encounter": ENC, "medicationReference": {"reference": "Medication/m1"},
           "authoredOn": "2015-02-03T12:00:00Z", "reasonReference": [{"reference": "Condition/c1"}]}
    cond = {"resourceType": "Condition", "id": "c1", "subject": SUBJ, "code": {"text": "Sepsis"},
            "onsetDateTime": "2015-02-03"}
    adm = {"resourceType": "MedicationAdministration", "id": "ma1", "status": "completed", "subject": SUBJ,
           "context": ENC, "medicationReference": {"reference": "urn:uuid:m1"},
           "effectiveDateTime": "2015-02-03T13:00:00+01:00", "request": {"reference": "MedicationRequest/mr1"},
           "dosage": {"dose": {"value": 1000, "unit": "mg"}, "route": {"text": "IV"}}}
    skipped = {"resourceType": "MedicationAdministration", "id": "ma2", "status": "not-done", "subject": SUBJ,
               "medicationCodeableConcept": {"text": "Vancomycin", "coding": [{"code": "11124"}]},
               "effectivePeriod": {"start": "2015-02-04T13:00:00Z", "end": "2015-02-04T14:00:00Z"}}
    contained = {"resourceType": "MedicationStatement", "id": "ms1", "status": "not-taken", "subject": SUBJ,
                 "contained": [{"resourceType": "Medication", "id": "x", "code": {"text": "aspirin"}}],
                 "medicationReference": {"reference": "#x"}, "dateAsserted": "2015-02-01"}
    r = ingest_json(make_bundle(_encounter(), req, adm, med, cond, skipped, contained))
    assert not [i for i in r.issues if i.severity in ("error", "fatal")]
    a = _one(r, "MedicationAdministration/ma1")
    assert a.kind is Kind.MEDICATION and a.concept.text == "vancomycin"
    assert a.time.start == datetime(2015, 2, 3, 12, tzinfo=UTC)
    assert a.encounter == "Encounter/e1" and ("request", "MedicationRequest/mr1") in a.links
    assert a.extra_value("resource") == "MedicationAdministration" and a.value.quantity == 1000
    assert a.source.json_path == "effectiveDateTime"
    q = _one(r, "MedicationRequest/mr1")
    assert q.extra_value("resource") == "MedicationRequest" and q.extra_value("intent") == "order"
    assert q.time.type is TimeType.OCCURRENCE and q.source.json_path == "authoredOn"
    assert q.concept.codings[0].code == "11124"  # resolved though Medication comes later in the bundle
    assert ("reasonReference", "Condition/c1") in q.links
    n = _one(r, "MedicationAdministration/ma2")
    assert n.assertion.negated and n.status == "not-done" and n.time.end is not None
    s = _one(r, "MedicationStatement/ms1")
    assert s.concept.text == "aspirin" and s.assertion.negated
    assert s.time.type is TimeType.DOCUMENTATION and s.extra_value("resource") == "MedicationStatement"
    assert "Medication/m1" in r.resources and "Medication/m1" not in r.owner


def test_procedure_immunization_allergy(make_bundle):
    proc = {"resourceType": "Procedure", "id": "pr1", "status": "completed", "subject": SUBJ, "encounter": ENC,
            "code": {"text": "Intubation"}, "performedPeriod": {"start": "2015-02-03T11:00:00Z"}}
    nd = {"resourceType": "Procedure", "id": "pr2", "status": "not-done", "subject": SUBJ,
          "code": {"text": "Dialysis"}, "performedDateTime": "2015-02-04"}
    imm = {"resourceType": "Immunization", "id": "i1", "status": "completed", "patient": SUBJ,
           "vaccineCode": {"coding": [{"system": "http://hl7.org/fhir/sid/cvx", "code": "140",
                                       "display": "Influenza"}]},
           "occurrenceDateTime": "2014-10-01", "encounter": ENC}
    alg = {"resourceType": "AllergyIntolerance", "id": "a1", "patient": SUBJ,
           "code": {"text": "Penicillin"}, "recordedDate": "2010-05-05T10:00:00Z",
           "clinicalStatus": {"coding": [{"code": "active"}]}, "criticality": "high",
           "verificationStatus": {"coding": [{"code": "unconfirmed"}]}}
    r = ingest_json(make_bundle(_encounter(), proc, nd, imm, alg))
    p = _one(r, "Procedure/pr1")
    assert p.kind is Kind.PROCEDURE and p.time.end is None and p.source.json_path == "performedPeriod"
    assert _one(r, "Procedure/pr2").assertion.negated
    i = _one(r, "Immunization/i1")
    assert i.kind is Kind.IMMUNIZATION and i.patient == "p1" and i.time.granularity is Granularity.DAY
    a = _one(r, "AllergyIntolerance/a1")
    assert a.kind is Kind.ALLERGY and a.time.type is TimeType.RECORDED and a.assertion.uncertain
    assert a.extra_value("criticality") == "high"


def test_document_reference_and_report(make_bundle, b64encode):
    note = "2015-02-03\n\n# Chief Complaint\nFever.\n"
    doc = {"resourceType": "DocumentReference", "id": "d1", "status": "current", "subject": SUBJ,
           "meta": {"versionId": "3"}, "type": {"coding": [{"system": LOINC, "code": "34117-2",
                                                            "display": "History and physical note"}]},
           "date": "2015-02-03T12:00:00Z",
           "content": [{"attachment": {"contentType": "text/plain; charset=utf-8", "data": b64encode(note)}},
                       {"attachment": {"contentType": "text/html",
                                       "data": b64encode("<div><p>Plan:&nbsp;vancomycin</p><br/>IV</div>")}},
                       {"attachment": {"contentType": "application/pdf", "data": b64encode("%PDF")}}],
           "context": {"encounter": [ENC], "period": {"start": "2015-02-03T10:00:00Z"}}}
    rep = {"resourceType": "DiagnosticReport", "id": "r1", "status": "final", "subject": SUBJ, "encounter": ENC,
           "code": {"text": "Lab panel"}, "effectiveDateTime": "2015-02-04T06:00:00Z",
           "issued": "2015-02-04T08:00:00Z", "result": [{"reference": "Observation/o1"}],
           "presentedForm": [{"contentType": "text/plain", "data": b64encode(note)}]}
    obs = {"resourceType": "Observation", "id": "o1", "status": "final", "subject": SUBJ, "code": {"text": "K"},
           "effectiveDateTime": "2015-02-04T06:00:00Z", "valueQuantity": {"value": 4.0}}
    r = ingest_json(make_bundle(_encounter(), doc, rep, obs))
    d = next(x for x in r.documents if x.resource_id == "d1")
    assert d.resource_type == "DocumentReference" and d.patient == "p1" and d.encounter == "Encounter/e1"
    assert d.version == "3" and d.title == "History and physical note"
    # Dated after the encounter started: the note keeps its own date as its documentation bound.
    assert d.date.type is TimeType.DOCUMENTATION and d.date.start == datetime(2015, 2, 3, 12, tzinfo=UTC)
    assert [t.attachment for t in d.texts] == [0, 1]
    assert d.texts[0].text == note
    assert d.texts[1].text == "Plan:\xa0vancomycin\n\nIV" or "vancomycin" in d.texts[1].text
    assert "<" not in d.texts[1].text
    occ = _one(r, "DocumentReference/d1")
    assert occ.kind is Kind.DOCUMENT and occ.time.type is TimeType.DOCUMENTATION
    # the PDF is skipped with an informational issue, not an error
    assert [i.severity for i in r.issues] == ["information"]
    rep_o = _one(r, "DiagnosticReport/r1")
    assert rep_o.kind is Kind.REPORT and ("result", "Observation/o1") in rep_o.links
    rd = next(x for x in r.documents if x.resource_id == "r1")
    assert rd.resource_type == "DiagnosticReport" and rd.texts[0].text == note
    assert rd.date.start == datetime(2015, 2, 4, 8, tzinfo=UTC)


def test_start_of_stay_note_stamp_is_bounded_by_the_encounter_end(make_bundle):
    r = ingest_json(make_bundle(
        _encounter(),
        {"resourceType": "DocumentReference", "id": "d9", "status": "current", "subject": SUBJ,
         "date": "2015-02-03T10:00:00.446Z", "context": {"encounter": [ENC]},
         "content": [{"attachment": {"contentType": "text/plain", "data": "dmFuY29teWNpbg=="}}]},
    ))
    [doc] = r.documents
    assert doc.date.start == datetime(2015, 2, 9, 12, tzinfo=UTC)


def test_references_all_forms(make_bundle):
    """urn:uuid fullUrls, relative, absolute and versioned references all resolve to Type/id."""
    enc = _encounter()
    obs = [
        {"resourceType": "Observation", "id": f"o{i}", "status": "final", "subject": subj, "encounter": enc_ref,
         "code": {"text": "x"}, "effectiveDateTime": "2015-02-04"}
        for i, (subj, enc_ref) in enumerate([
            ({"reference": "urn:uuid:p1"}, {"reference": "urn:uuid:e1"}),
            ({"reference": "Patient/p1"}, {"reference": "Encounter/e1/_history/2"}),
            ({"reference": "https://fhir.example.org/r4/Patient/p1"}, {"reference": "https://x.org/Encounter/e1"}),
        ])
    ]
    r = ingest_json(make_bundle(enc, *obs))
    for i in range(3):
        o = _one(r, f"Observation/o{i}")
        assert o.patient == "p1" and o.encounter == "Encounter/e1"
        assert r.owner[f"Observation/o{i}"] == "p1"


def test_conditional_reference_resolves_with_companion(make_bundle):
    org = {"resourceType": "Organization", "id": "org1",
           "identifier": [{"system": "https://github.com/synthetichealth/synthea", "value": "abc"}]}
    enc = _encounter(serviceProvider={"reference": "Organization?identifier=https://github.com/synthetichealth/synthea|abc"})
    r = ingest_json([make_bundle(enc), {"resourceType": "Bundle", "type": "batch", "entry": [{"resource": org}]}])
    assert not r.issues
    from medeventgraph.fhir_adapters.references import ReferenceIndex

    idx = ReferenceIndex(r.resources)
    assert idx.resolve(enc["serviceProvider"]) == "Organization/org1"
    assert idx.resolve({"reference": "Organization?identifier=https://x|missing"}) is None
    assert "Organization/org1" not in r.owner


def test_resource_without_id_takes_fullurl():
    bundle = {"resourceType": "Bundle", "type": "transaction", "entry": [
        {"fullUrl": "urn:uuid:aaa", "resource": {"resourceType": "Patient"}, "request": {"method": "POST"}},
        {"fullUrl": "urn:uuid:bbb", "resource": {"resourceType": "Observation", "status": "final",
                                                 "subject": {"reference": "urn:uuid:aaa"}, "code": {"text": "x"},
                                                 "effectiveDateTime": "2015"}}]}
    r = ingest_json(bundle)
    assert not r.issues
    assert r.owner == {"Patient/aaa": "aaa", "Observation/bbb": "aaa"}
    assert _one(r, "Observation/bbb").time.granularity is Granularity.YEAR


def test_composition_sections_and_dispense(make_bundle):
    comp = {"resourceType": "Composition", "id": "c1", "status": "final", "subject": SUBJ, "encounter": ENC,
            "type": {"text": "Discharge summary"}, "date": "2015-02-09T12:00:00Z", "title": "DS",
            "section": [
                {"title": "Hospital course", "text": {"status": "generated",
                                                      "div": "<div>Vancomycin &amp; pip/tazo given.</div>"}},
                "junk",
                {"title": "Plan", "section": [{"text": {"div": "<div>Follow up</div>"}}]}]}
    disp = {"resourceType": "MedicationDispense", "id": "md1", "status": "completed", "subject": SUBJ,
            "medicationCodeableConcept": {"text": "aspirin"}, "whenHandedOver": "2015-02-09",
            "authorizingPrescription": [{"reference": "MedicationRequest/mr1"}]}
    req = {"resourceType": "MedicationRequest", "id": "mr1", "status": "active", "intent": "order",
           "subject": SUBJ, "medicationCodeableConcept": {"text": "aspirin"}, "authoredOn": "2015-02-08"}
    r = ingest_json(make_bundle(_encounter(), comp, disp, req))
    d = next(x for x in r.documents if x.resource_type == "Composition")
    assert d.encounter == "Encounter/e1" and d.title == "Discharge summary"
    assert [(t.attachment, t.text) for t in d.texts] == [
        (0, "Hospital course\nVancomycin & pip/tazo given."), (2, "Plan\nFollow up")]
    assert d.date.type is TimeType.DOCUMENTATION
    assert _one(r, "Composition/c1").kind is Kind.DOCUMENT
    assert [i.code for i in r.issues] == ["structure"]
    md = _one(r, "MedicationDispense/md1")
    assert md.kind is Kind.MEDICATION and md.extra_value("resource") == "MedicationDispense"
    assert ("request", "MedicationRequest/mr1") in md.links and md.time.granularity is Granularity.DAY


def test_urn_uuid_references_resolve_by_id_when_full_urls_are_gone():
    # Resources copied out of a transaction Bundle (as a prefetch or NDJSON split by type)
    # keep "urn:uuid:<id>" references but lose the fullUrls that named them.
    resources = [
        {"resourceType": "Patient", "id": "p1"},
        {"resourceType": "Encounter", "id": "e1", "status": "finished",
         "subject": {"reference": "urn:uuid:p1"}, "period": {"start": "2015-02-03T10:00:00Z"}},
        {"resourceType": "MedicationAdministration", "id": "m1", "status": "completed",
         "subject": {"reference": "urn:uuid:p1"}, "context": {"reference": "urn:uuid:e1"},
         "medicationCodeableConcept": {"text": "vancomycin"}, "effectiveDateTime": "2015-02-03T11:00:00Z"},
    ]
    r = ingest_json(resources)
    assert r.patient_ids() == ["p1"]
    assert _one(r, "MedicationAdministration/m1").encounter == "Encounter/e1"
