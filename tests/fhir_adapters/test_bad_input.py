"""Bad input gives a clear Issue, never a crash, and loses nothing for the rest."""

from __future__ import annotations

import copy
import gzip

import orjson
import pytest
from medeventgraph.fhir_adapters import ingest_json, load_paths
from medeventgraph.model.occurrence import Granularity
from medeventgraph.model.outcome import InputError

SUBJ = {"reference": "Patient/p1"}
SECRET = "Zebediah Quux-Secretname"  # must never appear in any diagnostics


def _obs(oid: str, **kw):
    r = {"resourceType": "Observation", "id": oid, "status": "final", "subject": SUBJ,
         "code": {"text": SECRET}, "effectiveDateTime": "2015-02-04T06:00:00Z",
         "valueString": SECRET}
    r.update(kw)
    return r


def _no_phi(result):
    for i in result.issues:
        assert SECRET not in i.diagnostics
        assert "Zebediah" not in repr(i)


def test_malformed_file_among_good_files(tmp_path, make_bundle):
    (tmp_path / "a.json").write_bytes(orjson.dumps(make_bundle(_obs("o1"))))
    (tmp_path / "b.json").write_text('{"resourceType": "Bundle", "entry": [')
    (tmp_path / "c.ndjson").write_bytes(orjson.dumps(_obs("o2")) + b"\n{oops\n" + orjson.dumps(_obs("o3")) + b"\n")
    with gzip.open(tmp_path / "d.ndjson.gz", "wb") as f:
        f.write(orjson.dumps(_obs("o4")) + b"\n")
    (tmp_path / "e.json.gz").write_bytes(b"\x1f\x8bnot really gzip")
    (tmp_path / "notes.txt").write_text("ignored: not a FHIR file suffix")
    r = load_paths([tmp_path])
    ids = {o.id for o in r.occurrences}
    assert {"Observation/o1", "Observation/o2", "Observation/o3", "Observation/o4"} <= ids
    diags = [i.diagnostics for i in r.issues]
    assert any("b.json" in d and "malformed JSON" in d for d in diags)
    assert any("c.ndjson line 2" in d and "malformed JSON" in d for d in diags)
    assert any("e.json.gz" in d and "gzip" in d for d in diags)
    assert all(i.severity != "fatal" for i in r.issues)
    _no_phi(r)


def test_not_fhir_json_file(tmp_path, make_bundle):
    (tmp_path / "a.json").write_bytes(orjson.dumps(make_bundle(_obs("o1"))))
    (tmp_path / "meta.json").write_text('{"generator": "x"}')
    r = load_paths([tmp_path / "a.json", tmp_path / "meta.json"])
    assert [o.id for o in r.occurrences] == ["Observation/o1"]
    assert any("meta.json" in i.diagnostics and "not a FHIR resource" in i.diagnostics for i in r.issues)


def test_unreadable_path_raises(tmp_path):
    with pytest.raises(InputError) as e:
        load_paths([tmp_path / "missing.json"])
    assert e.value.issue.code == "not-found"


def test_ingest_json_malformed_raises():
    with pytest.raises(InputError):
        ingest_json(b"{nope")


def test_wrong_resource_types_and_entries(make_bundle):
    bundle = make_bundle(_obs("o1"), {"resourceType": "Observatoin", "id": "x"}, {"id": "noType"},
                         {"resourceType": 7, "id": "y"})
    bundle["entry"] += [42, {"resource": ["not", "a", "resource"]}, {"fullUrl": "urn:uuid:z"}]
    r = ingest_json(bundle)
    assert [o.id for o in r.occurrences] == ["Observation/o1"]
    by_loc = {i.diagnostics.split(":")[0]: i for i in r.issues}
    assert by_loc["Bundle.entry[2]"].code == "not-supported" and by_loc["Bundle.entry[2]"].severity == "error"
    assert "Observatoin" not in by_loc["Bundle.entry[2]"].diagnostics
    assert by_loc["Bundle.entry[3]"].code == "required"
    assert by_loc["Bundle.entry[4]"].code == "required"
    assert by_loc["Bundle.entry[5]"].code == "structure"  # a number, not an entry
    assert by_loc["Bundle.entry[6]"].code == "structure"  # a list, not a resource
    assert by_loc["Bundle.entry[7]"].severity == "warning"  # entry without resource
    _no_phi(r)


def test_resource_with_no_time_is_kept(make_bundle):
    bad = _obs("abc")
    del bad["effectiveDateTime"]
    worse = _obs("def", effectiveDateTime="03/02/2015")
    r = ingest_json(make_bundle(_obs("o1"), bad, worse))
    o = next(x for x in r.occurrences if x.id == "Observation/abc")
    assert o.time.granularity is Granularity.UNKNOWN and not o.time.resolved
    assert [i.diagnostics for i in r.issues if "abc" in i.diagnostics] == [
        "Bundle.entry[2] Observation/abc: no effective[x] or issued time; time unknown"]
    d = next(x for x in r.occurrences if x.id == "Observation/def")
    assert not d.time.resolved
    assert any(i.code == "invalid" and "Observation/def" in i.diagnostics for i in r.issues)
    assert all(i.severity == "warning" for i in r.issues)
    _no_phi(r)


def test_invalid_base64_note(make_bundle, b64encode):
    doc = {"resourceType": "DocumentReference", "id": "d1", "status": "current", "subject": SUBJ,
           "date": "2015-02-03", "content": [
               {"attachment": {"contentType": "text/plain", "data": "!!!not base64" + SECRET}},
               {"attachment": {"contentType": "text/plain", "data": b64encode("Good note.")}}]}
    r = ingest_json(make_bundle(doc, _obs("o1")))
    d = r.documents[0]
    assert [t.text for t in d.texts] == ["Good note."] and d.texts[0].attachment == 1
    issue = next(i for i in r.issues if "DocumentReference/d1" in i.diagnostics)
    assert issue.severity == "error" and issue.code == "invalid"
    assert "content[0]" in issue.diagnostics and "base64" in issue.diagnostics
    assert any(o.id == "Observation/o1" for o in r.occurrences)
    _no_phi(r)


def test_huge_note_truncated(make_bundle, b64encode):
    text = ("word " * 100) + SECRET
    doc = {"resourceType": "DocumentReference", "id": "d1", "status": "current", "subject": SUBJ,
           "date": "2015-02-03", "content": [{"attachment": {"contentType": "text/plain", "data": b64encode(text)}}]}
    r = ingest_json(make_bundle(doc), max_note_chars=50)
    assert len(r.documents[0].texts[0].text) == 50
    assert [i.code for i in r.issues] == ["too-long"]
    _no_phi(r)


def test_bundle_mixing_two_patients(make_bundle):
    other = {"resourceType": "Patient", "id": "p2"}
    o2 = _obs("o2", subject={"reference": "urn:uuid:p2"})
    r = ingest_json(make_bundle(_obs("o1"), other, o2, _obs("o3")))
    assert r.patient_ids() == ["p1", "p2"]
    rec = r.for_patient("p1")
    assert {o.id for o in rec.occurrences} == {"Observation/o1", "Observation/o3"}
    assert rec.excluded == {"Patient": 1, "Observation": 1}
    assert "Observation/o2" not in rec.resources and "Patient/p2" not in rec.resources
    rec2 = r.for_patient("p2")
    assert [o.id for o in rec2.occurrences] == ["Observation/o2"]


def test_unresolvable_subject_is_excluded(make_bundle):
    lost = _obs("o9", subject={"reference": "urn:uuid:nobody"})
    nosubj = _obs("o8")
    del nosubj["subject"]
    grp = _obs("o7", subject={"reference": "Group/g1"})
    r = ingest_json(make_bundle(_obs("o1"), lost, nosubj, grp))
    assert [o.id for o in r.occurrences] == ["Observation/o1"]
    assert "Observation/o9" not in r.resources and "Observation/o8" not in r.resources
    codes = {i.diagnostics.split(" ")[1].rstrip(":"): (i.severity, i.code) for i in r.issues}
    assert codes["Observation/o9"] == ("error", "not-found")
    assert codes["Observation/o8"] == ("error", "required")
    assert codes["Observation/o7"][0] == "information"
    # the exclusion keeps it out of every patient's record
    assert "Observation/o9" not in r.for_patient("p1").resources


def test_duplicate_with_different_content_warns(make_bundle):
    a, b = _obs("o1"), _obs("o1", valueString="changed")
    r = ingest_json([make_bundle(a), make_bundle(a, with_patient=False), make_bundle(b, with_patient=False)])
    assert [i.code for i in r.issues] == ["duplicate"]
    assert [o.id for o in r.occurrences] == ["Observation/o1"]


_JUNK = [None, 42, "x", [], {}, [42], {"a": 1}, True, [{"reference": 5}]]


@pytest.mark.parametrize("junk", _JUNK)
def test_wrong_shapes_never_crash(make_bundle, junk, b64encode):
    """Every element of every mapped type replaced by junk: an Issue at worst, never an exception."""
    base = [
        {"resourceType": "Encounter", "id": "e1", "status": "finished", "class": {"code": "IMP"},
         "subject": SUBJ, "period": {"start": "2015-02-03", "end": "2015-02-05"},
         "episodeOfCare": [{"reference": "EpisodeOfCare/ep"}], "partOf": {"reference": "Encounter/e0"}},
        _obs("o1", component=[{"code": {"text": "c"}, "valueQuantity": {"value": 1}}],
             referenceRange=[{"low": {"value": 1}}], interpretation=[{"coding": [{"code": "H"}]}],
             category=[{"coding": [{"code": "laboratory"}]}], issued="2015-02-04"),
        {"resourceType": "Condition", "id": "c1", "subject": SUBJ, "onsetDateTime": "2015",
         "abatementPeriod": {"end": "2016"}, "verificationStatus": {"coding": [{"code": "refuted"}]},
         "evidence": [{"detail": [{"reference": "Observation/o1"}]}]},
        {"resourceType": "MedicationAdministration", "id": "m1", "status": "completed", "subject": SUBJ,
         "medicationReference": {"reference": "#med"}, "contained": [{"resourceType": "Medication", "id": "med"}],
         "effectivePeriod": {"start": "2015"}, "dosage": {"dose": {"value": 1}, "route": {"text": "IV"}},
         "context": {"reference": "Encounter/e1"}},
        {"resourceType": "MedicationRequest", "id": "r1", "status": "active", "intent": "order", "subject": SUBJ,
         "medicationCodeableConcept": {"text": "x"}, "authoredOn": "2015", "category": [{"coding": [{"code": "x"}]}]},
        {"resourceType": "MedicationStatement", "id": "s1", "status": "active", "subject": SUBJ,
         "medicationCodeableConcept": {"text": "x"}, "dateAsserted": "2015"},
        {"resourceType": "Procedure", "id": "pr1", "status": "completed", "subject": SUBJ,
         "performedDateTime": "2015", "category": {"coding": [{"code": "x"}]}},
        {"resourceType": "Immunization", "id": "i1", "status": "completed", "patient": SUBJ,
         "occurrenceDateTime": "2015", "vaccineCode": {"text": "v"}},
        {"resourceType": "AllergyIntolerance", "id": "a1", "patient": SUBJ, "recordedDate": "2015",
         "category": ["food"], "criticality": "low"},
        {"resourceType": "EpisodeOfCare", "id": "ep", "patient": SUBJ, "period": {"start": "2015"}},
        {"resourceType": "DiagnosticReport", "id": "dr1", "status": "final", "subject": SUBJ,
         "effectiveDateTime": "2015", "result": [{"reference": "Observation/o1"}],
         "presentedForm": [{"contentType": "text/plain", "data": b64encode("x")}]},
        {"resourceType": "DocumentReference", "id": "d1", "status": "current", "subject": SUBJ, "date": "2015",
         "content": [{"attachment": {"contentType": "text/plain", "data": b64encode("x")}}],
         "context": {"encounter": [{"reference": "Encounter/e1"}], "period": {"start": "2015"}},
         "relatesTo": [{"code": "replaces", "target": {"reference": "DocumentReference/d0"}}]},
    ]
    for i, res in enumerate(base):
        for field in res:
            if field in ("resourceType",):
                continue
            broken = copy.deepcopy(base)
            broken[i][field] = junk
            r = ingest_json(make_bundle(*broken))  # must not raise
            for other in base[:i] + base[i + 1:]:
                key = f"{other['resourceType']}/{other['id']}"
                assert any(o.source.reference == key for o in r.occurrences) or \
                    any(key in iss.diagnostics for iss in r.issues), (field, key)
            assert not [x for x in r.issues if x.code == "exception"], (res["resourceType"], field, junk)


def test_gc_state_restored(tmp_path):
    import gc

    assert gc.isenabled()
    with pytest.raises(InputError):
        load_paths([tmp_path / "missing.json"])
    assert gc.isenabled()
    ingest_json({"resourceType": "Patient", "id": "p"})
    assert gc.isenabled()


def _deep(levels: int) -> dict:
    value: dict = {"url": "x"}
    for _ in range(levels):
        value = {"url": "x", "extension": [value]}
    return value


def test_too_deep_resource_is_skipped_with_an_issue(tmp_path, make_bundle):
    """orjson (the record hasher) stops at 255 levels: a deeper resource used to crash the CLI."""
    (tmp_path / "a.json").write_bytes(orjson.dumps(make_bundle(_obs("o1"), _obs("deep", extension=[_deep(60)]))))
    r = load_paths([tmp_path / "a.json"])
    assert [o.id for o in r.occurrences] == ["Observation/o1"]
    [issue] = [i for i in r.issues if "nested deeper" in i.diagnostics]
    assert issue.severity == "error" and issue.code == "structure"
    assert "nested deeper than 100 levels at extension[0].extension[0]" in issue.diagnostics
    assert "Bundle.entry[2]" in issue.diagnostics
    from medeventgraph.core.index.patient_index import content_hash

    content_hash(r.for_patient("p1"))  # the kept record hashes
    _no_phi(r)


def test_unencodable_values_from_the_python_api_are_skipped(make_bundle):
    r = ingest_json(make_bundle(_obs("o1"), _obs("s", valueString="a\ud800"), _obs("i", valueInteger=2**70),
                                _obs("k", extension=[{1: "x"}])))
    assert [o.id for o in r.occurrences] == ["Observation/o1"]
    rules = sorted(i.diagnostics.split(": ", 2)[-1] for i in r.issues)
    assert rules == ["integer outside the 64-bit range at valueInteger; skipped",
                     "object key is not a string at extension[0]; skipped",
                     "string is not valid Unicode (lone UTF-16 surrogate) at valueString; skipped"]


def test_non_finite_number_is_no_value(make_bundle):
    r = ingest_json(make_bundle(_obs("o1", valueQuantity={"value": float("inf")}),
                                _obs("o2", valueInteger=float("nan"), valueString=None)))
    values = {o.id: o.value for o in r.occurrences}
    assert {o: (v.quantity if v else None) for o, v in values.items()} == {"Observation/o1": None, "Observation/o2": None}


def _gzip_bomb(path, inflated_mib: int) -> int:
    """`inflated_mib` MiB of zeros as repeated gzip members: small on disk, huge inflated."""
    member = gzip.compress(b"\0" * (16 * 1024 * 1024), compresslevel=9)
    with open(path, "wb") as f:
        f.writelines(member for _ in range(inflated_mib // 16))
    return path.stat().st_size


def test_gzip_bomb_is_refused_in_bounded_memory(tmp_path, make_bundle):
    import tracemalloc

    size = _gzip_bomb(tmp_path / "bomb.ndjson.gz", 1024)  # 1 GiB inflated
    assert size < 2 * 1024 * 1024
    with gzip.open(tmp_path / "good.ndjson.gz", "wb") as f:
        f.write(orjson.dumps(_obs("o4")) + b"\n")
    from medeventgraph.fhir_adapters.limits import InputLimits

    tracemalloc.start()
    try:
        r = load_paths([tmp_path], limits=InputLimits(max_inflated_bytes=4 * 1024 * 1024))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024  # the cap (4 MiB) and the file (1 MiB), not the gigabyte
    assert [o.id for o in r.occurrences] == ["Observation/o4"]
    [issue] = [i for i in r.issues if "bomb" in i.diagnostics]
    assert issue.code == "too-long" and "decompresses to more than 4194304 bytes" in issue.diagnostics


def test_multi_member_and_truncated_gzip(tmp_path):
    good = gzip.compress(orjson.dumps(_obs("o1")) + b"\n") + gzip.compress(orjson.dumps(_obs("o2")) + b"\n")
    (tmp_path / "two.ndjson.gz").write_bytes(good)
    (tmp_path / "cut.ndjson.gz").write_bytes(gzip.compress(orjson.dumps(_obs("o3")) * 50)[:-30])
    r = load_paths([tmp_path])
    assert sorted(o.id for o in r.occurrences) == ["Observation/o1", "Observation/o2"]
    assert any("cut.ndjson.gz" in i.diagnostics and "gzip" in i.diagnostics for i in r.issues)
