"""`medeventgraph verify --queries`: a question line reads "started on" against its own patient's
record, as `verify --question` does (issue #13), though the line is parsed before that record."""

from __future__ import annotations

from pathlib import Path

import orjson
from medeventgraph.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "cds_hooks" / "data"
QUESTION = "Was the patient started on vancomycin within 1 hour of the lactate?"
# Both patients: lactate 10:00, vancomycin ordered 10:10; meg-given-1's first dose at 12:05.
LINES = [
    {"id": "given", "question": QUESTION, "patient": "meg-given-1"},
    {"id": "ordered", "question": QUESTION, "patient": "Patient/meg-ordered-1"},
    {"id": "json", "patient": "meg-given-1", "scope": "patient",
     "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"}, {"id": "e1", "text": "lactate", "kind": "lab"}],
     "relations": [{"from": "e0", "to": "e1", "type": "after", "within": "PT1H"}]},
]


def test_question_lines_read_started_on_against_their_patients_record(tmp_path, capsys):
    queries, out = tmp_path / "q.jsonl", tmp_path / "out.jsonl"
    queries.write_bytes(b"\n".join(orjson.dumps(line) for line in LINES) + b"\n")
    code = main(["verify", "--bundle", str(DATA / "meg-given-patient.json"), "--bundle",
                 str(DATA / "meg-ordered-patient.json"), "--no-notes", "--queries", str(queries), "--out", str(out)])
    capsys.readouterr()
    rows = {r["id"]: r for r in map(orjson.loads, out.read_text().splitlines())}
    assert code == 0 and set(rows) == {"given", "ordered", "json"}

    given = rows["given"]  # the record holds doses: "started on" asks for one, and the order does not count
    assert given["verdict"] == "refuted" and given["patient"] == "meg-given-1"
    assert "read as administered" in given["search"]["grounding"]["actions"]["e0"]
    assert [e["source"]["reference"] for e in given["evidence"] if "e0" in e["events"]] \
        == ["MedicationAdministration/meg-given-1-vanc-dose"]

    ordered = rows["ordered"]  # orders only: any medication record, and the verdict says so
    assert ordered["verdict"] == "supported"
    assert ordered["search"]["grounding"]["actions"]["e0"] == \
        "'started on' read as any medication record: the record holds no medication administrations"

    sent_as_json = rows["json"]  # a query object says its own actions: nothing is decided for it
    assert sent_as_json["verdict"] == "supported" and "actions" not in sent_as_json["search"]["grounding"]
