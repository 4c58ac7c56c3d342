"""validate_resource, attachment decoding and reference parsing in isolation."""

from __future__ import annotations

import base64

from medeventgraph.fhir_adapters import validate_resource
from medeventgraph.fhir_adapters.notes import decode_attachment, html_to_text
from medeventgraph.fhir_adapters.references import ReferenceIndex, key_from_full_url

SECRET = "SECRETVALUE42"


def test_validate_synthea_resources_clean(synthea_results):
    r = next(v for k, v in synthea_results.items() if k.startswith("Lance203"))
    sample = [k for k in r.resources if k.split("/")[0] in (
        "Observation", "MedicationAdministration", "Condition", "Encounter", "DocumentReference")][:60]
    for key in sample:
        assert validate_resource(r.resources[key]) == [], key


def test_validate_reports_paths_not_values():
    bad = {"resourceType": "Observation", "id": "o1", "code": {"text": "x"}, "status": "final",
           "valueQuantity": {"value": SECRET}, "effectiveDateTime": SECRET, "bogus": SECRET,
           "component": [{"valueString": SECRET}]}
    issues = validate_resource(bad)
    paths = {i.expression[0] for i in issues}
    assert {"Observation.valueQuantity.value", "Observation.effectiveDateTime", "Observation.bogus",
            "Observation.component[0].code"} <= paths
    assert all(SECRET not in i.diagnostics for i in issues)
    assert {i.code for i in issues} <= {"required", "structure", "value", "invalid"}
    missing = next(i for i in issues if i.expression[0] == "Observation.component[0].code")
    assert missing.code == "required"


def test_validate_odd_inputs():
    assert validate_resource({"resourceType": "Patient", "id": "p"}) == []
    assert validate_resource({"resourceType": "NotAThing"})[0].severity == "error"
    assert validate_resource([]) [0].code == "structure"  # type: ignore[arg-type]


def _att(data: bytes, content_type: str = "text/plain") -> dict:
    return {"contentType": content_type, "data": base64.b64encode(data).decode()}


def test_decode_charsets_and_whitespace():
    text, problems = decode_attachment(_att("café".encode("latin-1"), "text/plain; charset=ISO-8859-1"), 0, 100)
    assert text.text == "café" and not problems
    text, problems = decode_attachment(_att(b"\xff\xfe bad utf8"), 0, 100)
    assert text is not None and problems[0].code == "invalid"
    wrapped = base64.encodebytes(b"x" * 200).decode()  # MIME-style line breaks
    text, problems = decode_attachment({"contentType": "text/plain", "data": wrapped}, 0, 1000)
    assert text.text == "x" * 200 and not problems
    text, problems = decode_attachment({"contentType": "text/plain", "url": "http://x/y"}, 2, 100)
    assert text is None and problems[0].severity == "information" and "[2]" in problems[0].message


def test_html_to_text():
    html = "<html><head><title>T</title><style>p{}</style></head><body><h1>Plan</h1><p>A &lt; B</p>" \
           "<ul><li>one</li><li>two</li></ul></body></html>"
    assert html_to_text(html) == "Plan\nA < B\none\ntwo"


def test_reference_forms():
    idx = ReferenceIndex({})
    idx.add_full_url("urn:uuid:1", "Patient/1")
    idx.add_full_url("http://s/fhir/Patient/9", "Patient/9")
    assert idx.resolve({"reference": "urn:uuid:1"}) == "Patient/1"
    assert idx.resolve({"reference": "urn:uuid:2"}) is None
    assert idx.is_unresolvable_literal({"reference": "urn:uuid:2"})
    assert idx.resolve("Observation/5") == "Observation/5"
    assert idx.resolve({"reference": "Observation/5/_history/3"}) == "Observation/5"
    assert idx.resolve({"reference": "https://other/fhir/Encounter/e"}) == "Encounter/e"
    assert idx.resolve({"reference": "http://s/fhir/Patient/9"}) == "Patient/9"
    assert idx.resolve({"reference": "#contained"}) is None
    assert idx.resolve({"identifier": {"value": "x"}}) is None
    assert idx.resolve({"reference": "Nonsense/5"}) is None
    assert idx.resolve({"reference": "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|1"}) is None
    assert key_from_full_url("urn:uuid:abc", "Observation") == "Observation/abc"
    assert key_from_full_url("https://s/Observation/abc", "Observation") == "Observation/abc"
    assert key_from_full_url("https://s/Patient/abc", "Observation") is None


def test_occurrence_types_match_mappers():
    from medeventgraph.fhir_adapters.mappers.registry import MAPPERS
    from medeventgraph.fhir_adapters.resource_types import KNOWN_RESOURCE_TYPES, OCCURRENCE_TYPES

    assert set(MAPPERS) == OCCURRENCE_TYPES
    assert OCCURRENCE_TYPES <= KNOWN_RESOURCE_TYPES


def test_html_table_cells_stay_separate_words():
    html = "<table><tr><th>Problem</th><th>Value</th></tr><tr><td>acute kidney injury</td><td>2.1</td></tr></table>"
    assert html_to_text(html) == "Problem Value\nacute kidney injury 2.1"
