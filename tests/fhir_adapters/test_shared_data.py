"""Ingest of the shared Synthea bundles and the clinosim Bulk NDJSON cohort."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
from medeventgraph.fhir_adapters import IngestResult, load_paths
from medeventgraph.model.occurrence import Kind

LANCE = "716c6d0a-2a5d-0aaa-9ced-312ed6a943da"


def _check_sources(r: IngestResult) -> None:
    """Every occurrence and note cites a resource that is loaded and owned by its patient."""
    for o in r.occurrences:
        ref = o.source.reference
        assert ref in r.resources, o.id
        assert r.owner[ref] == o.patient, o.id
        assert o.id.split("#", 1)[0] == ref
        assert o.time.start is None or o.time.start.tzinfo is not None
        if o.encounter is not None:
            assert r.owner.get(o.encounter, o.patient) == o.patient
    for d in r.documents:
        assert r.owner[d.reference] == d.patient


SOURCES_MD_TOTALS = {  # ../shared/data/SOURCES.md, over its twelve patients
    "Encounter": 578, "DocumentReference": 578, "DiagnosticReport": 972, "Observation": 2950,
    "Condition": 358, "MedicationRequest": 309, "MedicationAdministration": 40, "Procedure": 1304,
    "Immunization": 156, "AllergyIntolerance": 7,
}


def _raw_totals(files: list[Path]) -> Counter[str]:
    """Resources per type counted straight from the bundles' JSON, without the adapters."""
    totals: Counter[str] = Counter()
    for path in files:
        totals.update(e["resource"]["resourceType"] for e in orjson.loads(path.read_bytes())["entry"])
    return totals


def test_every_synthea_bundle(synthea_results, synthea_files):
    assert len(synthea_results) == len(synthea_files) >= 4  # 12 shared patients, or the 4 bundled ones
    for name, r in synthea_results.items():
        errors = [i for i in r.issues if i.severity in ("error", "fatal")]
        assert not errors, (name, errors[:3])
        assert len(r.patient_ids()) == 1, name
        kinds = Counter(o.kind for o in r.occurrences)
        for k in (Kind.ENCOUNTER, Kind.DOCUMENT, Kind.REPORT):
            assert kinds[k] > 0, (name, k)
        assert kinds[Kind.ENCOUNTER] == kinds[Kind.DOCUMENT]  # one note per encounter in this Synthea
        _check_sources(r)
        # nothing silently dropped: every mapped-type resource yields an occurrence
        mapped = {o.source.reference for o in r.occurrences}
        for key in r.resources:
            if key.split("/")[0] in ("Observation", "Condition", "Encounter", "MedicationAdministration",
                                     "MedicationRequest", "Procedure", "Immunization", "DiagnosticReport",
                                     "DocumentReference", "AllergyIntolerance"):
                assert key in mapped, key


def test_synthea_totals_match_the_bundles(synthea_results, synthea_files):
    """Every resource of a mapped type becomes one occurrence: the counts equal the bundles' own
    (and, over the twelve shared patients, the figures SOURCES.md states)."""
    by_type: Counter[str] = Counter()
    kinds: Counter[Kind] = Counter()
    docs = 0
    for r in synthea_results.values():
        by_type.update(o.extra_value("resource") for o in r.occurrences if "#" not in o.id)
        kinds.update(o.kind for o in r.occurrences)
        docs += len(r.documents)
    raw = _raw_totals(synthea_files)
    for rtype, total in SOURCES_MD_TOTALS.items():
        assert by_type[rtype] == raw[rtype], rtype
        if len(synthea_files) == 12:
            assert raw[rtype] == total, rtype
    assert sum(raw[t] for t in SOURCES_MD_TOTALS) > 0
    for k in (Kind.LAB, Kind.VITAL, Kind.OBSERVATION, Kind.CONDITION, Kind.MEDICATION, Kind.PROCEDURE,
              Kind.IMMUNIZATION):
        assert kinds[k] > 0, k
    assert kinds[Kind.ALLERGY] == raw["AllergyIntolerance"]
    assert docs == raw["DocumentReference"] * 2  # DocumentReference and DiagnosticReport copies both kept


def test_lance_vancomycin_in_sepsis_encounter(synthea_results):
    r = next(v for k, v in synthea_results.items() if k.startswith("Lance203"))
    vanco = [o for o in r.occurrences
             if o.extra_value("resource") == "MedicationAdministration" and "vancomycin" in o.concept.normalized]
    assert len(vanco) == 1
    v = vanco[0]
    assert v.patient == LANCE and v.time.resolved
    enc = next(o for o in r.occurrences if o.id == v.encounter)
    assert enc.extra_value("class") == "EMER"
    assert enc.time.start <= v.time.start <= enc.time.end
    sepsis = [o for o in r.occurrences if o.kind is Kind.CONDITION and o.encounter == v.encounter
              and "sepsis" in o.concept.normalized]
    assert sepsis
    notes = [d for d in r.documents if d.encounter == v.encounter]
    assert notes and any("sepsis" in t.text for d in notes for t in d.texts)


def test_companion_bundles_load_with_patient(synthea_dir, synthea_files):
    lance = next(p for p in synthea_files if p.name.startswith("Lance203"))
    hosp = next(synthea_dir.glob("hospitalInformation*.json"))
    prac = next(synthea_dir.glob("practitionerInformation*.json"))
    r = load_paths([lance, hosp, prac])
    assert not [i for i in r.issues if i.severity in ("error", "fatal")]
    assert r.patient_ids() == [LANCE]
    assert any(k.startswith("Organization/") for k in r.resources)
    rec = r.for_patient(LANCE)
    assert rec.excluded == {}
    assert any(k.startswith("Practitioner/") for k in rec.resources)  # shared, not patient-owned


def test_clinosim_ndjson_gz_folder(clinosim_result):
    r = clinosim_result
    assert len(r.patient_ids()) == 25
    errors = [i for i in r.issues if i.severity in ("error", "fatal")]
    assert not errors, errors[:3]
    by_type = Counter(o.extra_value("resource") for o in r.occurrences if "#" not in o.id)
    assert by_type["MedicationAdministration"] == 1196
    assert by_type["Observation"] == 8663
    assert by_type["Encounter"] == 50
    assert by_type["DocumentReference"] == 479
    assert by_type["Composition"] == 207
    assert sum(1 for d in r.documents if d.resource_type == "Composition") == 207
    _check_sources(r)
    aki = {o.patient for o in r.occurrences
           if o.kind is Kind.CONDITION and any(c.code == "N17.9" for c in o.concept.codings)}
    assert len(aki) >= 5
    # ED -> inpatient encounters linked by partOf
    assert any(rel == "partOf" for o in r.occurrences if o.kind is Kind.ENCOUNTER for rel, _ in o.links)
    rec = r.for_patient(r.patient_ids()[0])
    assert sum(rec.excluded.values()) > 0 and rec.occurrences
    assert all(o.patient == rec.patient for o in rec.occurrences)
