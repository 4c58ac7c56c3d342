"""The CLI and Python API end to end, including bad input (issue 2)."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from medeventgraph import verify
from medeventgraph.cli.main import main
from medeventgraph.model.settings import Settings

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
BOYCE = "9c5b16dc-8a47-896c-4d74-f96f8c98891b"
QUERY = {
    "id": "asa-clop",
    "events": [{"id": "a", "text": "aspirin", "kind": "medication"}, {"id": "b", "text": "clopidogrel"}],
    "relations": [{"from": "a", "to": "b", "type": "before", "within": "P3D"}],
    "scope": "patient",
}


def _patient(pid: str) -> dict:
    return {"resourceType": "Patient", "id": pid}


def _admin(rid: str, pid: str, drug: str, when: str | None) -> dict:
    res = {
        "resourceType": "MedicationAdministration",
        "id": rid,
        "status": "completed",
        "medicationCodeableConcept": {"text": drug},
        "subject": {"reference": f"Patient/{pid}"},
    }
    if when:
        res["effectiveDateTime"] = when
    return res


def _note(rid: str, pid: str, data: str, when: str = "2024-01-05T10:00:00Z") -> dict:
    return {
        "resourceType": "DocumentReference",
        "id": rid,
        "status": "current",
        "subject": {"reference": f"Patient/{pid}"},
        "date": when,
        "content": [{"attachment": {"contentType": "text/plain", "data": data}}],
    }


def _bundle(*resources: dict) -> dict:
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]}


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_schema_query_is_printable(capsys):
    code, out, _ = _run(["schema", "query"], capsys)
    schema = json.loads(out)
    assert code == 0 and "events" in schema["properties"] and "relations" in schema["properties"]


def test_verify_one_query_json(capsys, tmp_path):
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps(QUERY))
    code, out, _ = _run(["verify", "--bundle", str(EXAMPLES / "synthea"), "--patient", BOYCE, "--query", f"@{qfile}"], capsys)
    assert code == 0
    verdict = json.loads(out)
    assert verdict["id"] == "asa-clop" and verdict["verdict"] == "supported" and verdict["binary"] == "supported"
    assert all(c.startswith(("MedicationAdministration/", "MedicationRequest/", "DocumentReference/")) for c in verdict["citations"])
    assert verdict["excluded"] and verdict["bundle_hash"].startswith("sha256:")
    assert verdict["search"]["discovery"] == "exhaustive"  # the default path on every surface (issue 20)
    assert verdict["coverage"] and all(c.split()[-1].split("/")[0] == c.split()[-1].split("/")[1]
                                       for c in verdict["coverage"])  # exhaustive grounding holds it all
    for item in verdict["evidence"]:
        assert {"occurrence", "context", "time", "scope", "source"} <= item.keys()
        assert item["time"]["type"] in ("occurrence", "documentation", "recorded")


def test_table_format_names_the_verdict(capsys):
    code, out, _ = _run(
        ["verify", "--bundle", str(EXAMPLES / "synthea"), "--patient", BOYCE, "--no-notes",
         "--query", json.dumps(QUERY), "--format", "table"],
        capsys,
    )
    assert code == 0 and "SUPPORTED" in out and "MedicationAdministration/" in out


def test_several_patients_without_patient_flag_is_a_clear_error(capsys):
    code, out, err = _run(["verify", "--bundle", str(EXAMPLES / "synthea"), "--query", json.dumps(QUERY)], capsys)
    outcome = json.loads(err)
    assert code == 2 and out == ""
    assert outcome["resourceType"] == "OperationOutcome" and "--patient" in outcome["issue"][0]["diagnostics"]


def test_batch_keeps_going_past_bad_lines(capsys, tmp_path):
    lines = [
        "{not json",
        json.dumps({"id": "no-events", "events": [], "relations": []}),
        json.dumps(QUERY),
        json.dumps({**QUERY, "id": "unknown-patient", "patient": "nobody"}),
        json.dumps({**QUERY, "id": "reverse", "relations": [{"from": "b", "to": "a", "type": "before"}]}),
    ]
    qfile, ofile = tmp_path / "q.jsonl", tmp_path / "out.jsonl"
    qfile.write_text("\n".join(lines) + "\n")
    code, _, err = _run(
        ["verify", "--bundle", str(EXAMPLES / "synthea"), "--patient", BOYCE, "--no-notes",
         "--queries", str(qfile), "--out", str(ofile)],
        capsys,
    )
    rows = [json.loads(line) for line in ofile.read_text().splitlines()]
    assert code == 0 and len(rows) == 5
    assert [r["id"] for r in rows] == ["line-1", "no-events", "asa-clop", "unknown-patient", "reverse"]
    assert "error" in rows[0] and "malformed JSON" in rows[0]["error"]["issue"][0]["diagnostics"]
    assert "error" in rows[1] and "error" in rows[3]
    assert rows[2]["verdict"] == "supported" and rows[4]["verdict"] in ("supported", "refuted", "insufficient", "conflicting")
    assert "5 lines, 3 errors" in err


def test_timeline_lists_events_in_order(capsys):
    boyce = next((EXAMPLES / "synthea").glob("Boyce638*.json"))
    code, out, _ = _run(["timeline", "--bundle", str(boyce), "--kind", "medication", "--format", "json"], capsys)
    rows = json.loads(out)
    assert code == 0 and rows and all(r["kind"] == "medication" for r in rows)
    times = [r["time"] for r in rows if r["time"] != "unknown"]
    assert times == sorted(times)


def test_bad_inputs_are_reported_and_the_rest_goes_on(capsys, tmp_path):
    folder = tmp_path / "input"
    folder.mkdir()
    (folder / "broken.json").write_text('{"resourceType": "Bundle", "entry": [')
    good = _bundle(
        _patient("p1"),
        _admin("a1", "p1", "aspirin 81 MG Oral Tablet", "2024-01-01T08:00:00Z"),
        _admin("a2", "p1", "clopidogrel 75 MG Oral Tablet", "2024-01-02T08:00:00Z"),
        _admin("a3", "p1", "clopidogrel 75 MG Oral Tablet", None),  # no time
        {"resourceType": "NotAResource", "id": "x"},
        _note("n1", "p1", "!!!not base64!!!"),
        _patient("p2"),
        _admin("b1", "p2", "clopidogrel 75 MG Oral Tablet", "2023-12-01T08:00:00Z"),
    )
    (folder / "good.json").write_text(json.dumps(good))
    code, out, err = _run(["verify", "--bundle", str(folder), "--patient", "p1", "--no-notes",
                           "--query", json.dumps(QUERY)], capsys)
    verdict = json.loads(out)
    assert code == 0 and verdict["verdict"] == "supported"
    assert not any("b1" in c for c in verdict["citations"])
    assert verdict["excluded"] == {"MedicationAdministration": 1, "Patient": 1}
    diagnostics = " ".join(i["diagnostics"] for i in verdict["issues"]) + err
    assert "broken.json" in diagnostics  # the malformed file is named


def test_python_api_accepts_in_memory_json():
    bundle = _bundle(
        _patient("p1"),
        _admin("a1", "p1", "heparin 5000 UNT/ML Injection", "2024-01-01T08:00:00Z"),
        _note("n1", "p1", base64.b64encode(b"No bleeding. Patient denies melena.").decode(), "2024-01-02T09:00:00Z"),
    )
    q = {
        "id": "bleed",
        "events": [{"id": "h", "text": "heparin", "kind": "medication"}, {"id": "b", "text": "bleeding", "kind": "condition"}],
        "relations": [{"from": "h", "to": "b", "type": "before", "within": "P7D"}],
    }
    verdict = verify(bundle, q)
    assert Settings().discovery == "exhaustive" and verdict.search["discovery"] == "exhaustive"
    assert verdict.verdict.value in ("refuted", "insufficient")
    assert verdict.binary == "not_supported"
    assert verify(orjson.dumps(bundle).decode(), q).bundle_hash == verdict.bundle_hash


@pytest.mark.parametrize("backend", ["whoosh"])
def test_lexical_backends_agree(backend):
    boyce = next((EXAMPLES / "synthea").glob("Boyce638*.json"))
    base = verify(boyce, QUERY, settings=Settings(notes=False))
    other = verify(boyce, QUERY, settings=Settings(notes=False, lexical_backend=backend))
    assert (other.verdict, other.bundle_hash) == (base.verdict, base.bundle_hash)


def test_console_script_runs():
    exe = shutil.which("medeventgraph", path=str(Path(sys.executable).parent))
    assert exe, "console script not installed"
    done = subprocess.run([exe, "--version"], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "medeventgraph" in done.stdout


def test_cited_resources_are_validated_with_fhir_resources():
    bad = _admin("a1", "p1", "aspirin 81 MG Oral Tablet", "2024-01-01T08:00:00Z")
    bad["dosage"] = {"dose": {"value": "lots"}}  # Quantity.value must be a decimal
    bundle = _bundle(_patient("p1"), bad, _admin("a2", "p1", "clopidogrel 75 MG Oral Tablet", "2024-01-02T08:00:00Z"))
    verdict = verify(bundle, QUERY, settings=Settings(notes=False))
    assert verdict.verdict.value == "supported"
    problems = [i["diagnostics"] for i in verdict.issues]
    assert any("MedicationAdministration/a1" in d and "dosage" in d for d in problems), problems
    assert not any("a2" in d for d in problems)
    assert not any("lots" in d for d in problems)  # field paths only, never values


# Lines a batch must survive (issue 10): each gives its own error line, the rest go on.
_BAD_LINES = [
    json.dumps({**QUERY, "id": "patient-is-a-number", "patient": 5}),
    json.dumps({**QUERY, "id": "patient-is-a-list", "patient": ["x"]}),
    json.dumps({**QUERY, "id": "patient-is-an-object", "patient": {"reference": "Patient/1"}}),
    json.dumps({**QUERY, "id": "patient-unknown", "patient": "nobody"}),
    json.dumps({"id": "question-is-a-number", "question": 5}),
    json.dumps({"id": "question-empty", "question": ""}),
    json.dumps({"id": "question-not-understood", "question": "what?"}),
    json.dumps({"id": "question-and-events", "question": "Was aspirin given before clopidogrel?", "events": []}),
    json.dumps({**QUERY, "id": {"nested": 1}}),
    json.dumps({**QUERY, "id": "events-is-a-string", "events": "aspirin"}),
    json.dumps({**QUERY, "id": "relations-wrong", "relations": [{"from": "a", "to": "a", "type": "before"}]}),
    json.dumps({**QUERY, "id": "scope-unknown", "scope": "galaxy"}),
    json.dumps({**QUERY, "id": "within-negative", "relations": [{"from": "a", "to": "b", "type": "before",
                                                                  "within": "-P1D"}]}),
    json.dumps({**QUERY, "id": "extra-field", "colour": "red"}),
    json.dumps([QUERY]),
    json.dumps("a string"),
    "42",
    "null",
    "{not json",
    '{"id": "truncated", "events": [{"id": "a", "text": "asp',
    "   ",
    json.dumps({**QUERY, "id": "deep", "events": [{"id": "a", "text": "x", "codes": [[[[[[[]]]]]]]}]}),
    json.dumps({"id": "empty-object"}),
]


def _good(i: int) -> str:
    if i % 3 == 0:
        return json.dumps({"id": f"good-{i}", "question": "Was aspirin given before clopidogrel?"})
    return json.dumps({**QUERY, "id": f"good-{i}", "patient": BOYCE if i % 2 else f"Patient/{BOYCE}"})


def test_batch_line_with_a_number_for_patient_does_not_end_the_batch(capsys, tmp_path):
    """The reported case: 30 lines, line 13 with "patient": 5; every other line gets its verdict."""
    lines = [_good(i) for i in range(30)]
    lines[12] = json.dumps({**QUERY, "id": "bad", "patient": 5})
    qfile, ofile = tmp_path / "q.jsonl", tmp_path / "out.jsonl"
    qfile.write_text("\n".join(lines) + "\n")
    code, _, err = _run(["verify", "--bundle", str(EXAMPLES / "synthea"), "--patient", BOYCE, "--no-notes",
                         "--queries", str(qfile), "--out", str(ofile)], capsys)
    rows = [json.loads(line) for line in ofile.read_text().splitlines()]
    assert code == 0 and len(rows) == 30 and "30 lines, 1 errors" in err
    assert rows[12]["id"] == "bad" and "patient" in rows[12]["error"]["issue"][0]["diagnostics"]
    assert all(r["verdict"] == "supported" for i, r in enumerate(rows) if i != 12)


def test_batch_fuzz_every_good_line_gets_its_verdict(capsys, tmp_path):
    import random

    rng = random.Random(10)
    bad = _BAD_LINES * 2 + [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).decode("latin-1")
                            for _ in range(10)]
    good = [_good(i) for i in range(20)]
    lines = bad + good
    rng.shuffle(lines)
    qfile, ofile = tmp_path / "q.jsonl", tmp_path / "out.jsonl"
    qfile.write_bytes(b"\n".join(line.encode("utf-8", "surrogateescape") for line in lines) + b"\n"
                      + b'{"id": "not-utf8", "question": "\xff\xfe"}\n')
    n_in = len(qfile.read_bytes().splitlines())
    code, _, _ = _run(["verify", "--bundle", str(EXAMPLES / "synthea"), "--patient", BOYCE, "--no-notes",
                       "--queries", str(qfile), "--out", str(ofile)], capsys)
    rows = [json.loads(line) for line in ofile.read_text().splitlines()]
    assert code == 0 and len(rows) == n_in
    by_id = {r["id"]: r for r in rows if isinstance(r["id"], str) and r["id"].startswith("good-")}
    assert sorted(by_id) == sorted(f"good-{i}" for i in range(20))
    assert all(r.get("verdict") == "supported" for r in by_id.values())
    errors = [r for r in rows if "error" in r]
    assert len(errors) == n_in - 20
    for r in errors:
        [issue] = r["error"]["issue"]
        assert issue["code"] != "exception", issue  # each bad line is named as invalid input
        assert issue["diagnostics"].startswith("line ")


def test_malformed_input_file_is_in_the_verdict_issues(capsys, tmp_path):
    folder = tmp_path / "input"
    folder.mkdir()
    boyce = next((EXAMPLES / "synthea").glob("Boyce638*.json"))
    shutil.copy(boyce, folder / "boyce.json")
    (folder / "truncated.json").write_bytes(boyce.read_bytes()[:5000])
    qfile, ofile = tmp_path / "q.jsonl", tmp_path / "out.jsonl"
    qfile.write_text(json.dumps(QUERY) + "\n")
    code, _, err = _run(["verify", "--bundle", str(folder), "--no-notes", "--queries", str(qfile),
                         "--out", str(ofile)], capsys)
    [row] = [json.loads(line) for line in ofile.read_text().splitlines()]
    assert code == 0 and row["verdict"] == "supported"
    [issue] = [i for i in row["issues"] if "truncated.json" in i["diagnostics"]]
    assert issue["severity"] == "error" and "malformed JSON" in issue["diagnostics"]
    assert "truncated.json" in err
    code, out, _ = _run(["verify", "--bundle", str(folder), "--no-notes", "--query", json.dumps(QUERY)], capsys)
    assert any("truncated.json" in i["diagnostics"] for i in json.loads(out)["issues"])


@pytest.fixture(scope="module")
def boyce_verify():
    from medeventgraph.api import load, select_patient
    from medeventgraph.core.answer import verify_query
    from medeventgraph.core.index.patient_index import build_index

    settings = Settings(notes=False)
    index = build_index(select_patient(load(EXAMPLES / "synthea", settings=settings), BOYCE), settings)

    def run(query, patient, question=None):
        if patient not in (None, BOYCE, f"Patient/{BOYCE}"):
            from medeventgraph.model.outcome import InputError, Issue

            raise InputError(Issue("error", "not-found", "the requested patient is not in the input"))
        return verify_query(index, query, settings).model_dump(mode="json")

    return run


def _line_strategy():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
    values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                          max_leaves=12)
    keys = st.sampled_from(["id", "patient", "question", "events", "relations", "scope", "x"])
    mutated = st.dictionaries(keys, values, max_size=4).map(lambda d: json.dumps({**QUERY, **d}))
    return st.one_of(values.map(json.dumps), mutated, st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


def test_answer_line_property(boyce_verify):
    """Any line gives exactly one row: its verdict or an error naming the line; never an exception."""
    from hypothesis import HealthCheck, given
    from hypothesis import settings as hsettings
    from medeventgraph.api import parse_query
    from medeventgraph.batch import answer_line

    @hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_line_strategy())
    def check(line):
        row = answer_line(line.encode("utf-8", "surrogatepass"), 7, boyce_verify, parse_query)
        assert "id" in row and (("error" in row) != ("verdict" in row))
        if "error" in row:
            [issue] = row["error"]["issue"]
            assert issue["code"] != "exception" and issue["diagnostics"].startswith("line 7: ")

    check()
