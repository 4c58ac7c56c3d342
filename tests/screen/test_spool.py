"""The streaming pass: Bulk NDJSON (plain, gzip) and Bundles into the spool; bad lines reported
by file, line and rule (never values) while the rest goes on; --since and --patients."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
from medeventgraph.screen.plan import Selection, connect, shared_resources, todo_patients
from medeventgraph.screen.regroup import patient_groups
from medeventgraph.screen.spool import build_spool

SECRET = "Zyxwvut-secret-value"


def _export(root: Path) -> Path:
    root.mkdir()
    patients = [{"resourceType": "Patient", "id": p} for p in ("p1", "p2", "p3")]
    (root / "Patient.ndjson").write_bytes(b"".join(orjson.dumps(p) + b"\n" for p in patients))
    conds = [
        {"resourceType": "Condition", "id": "c1", "subject": {"reference": "Patient/p1"}, "recordedDate": "2024-05-01"},
        {"resourceType": "Condition", "id": "c2", "subject": {"reference": "Patient/p2"}, "recordedDate": "2021-01-01"},
    ]
    body = orjson.dumps(conds[0]) + b"\n" + b'{"resourceType": "Condition", "note": "' + SECRET.encode() + b'"\n'
    body += orjson.dumps({"resourceType": "Condition", "id": "c9", "subject": {"reference": "urn:uuid:gone"},
                          "note": [{"text": SECRET}]}) + b"\n" + orjson.dumps(conds[1]) + b"\n"
    (root / "Condition.ndjson.gz").write_bytes(gzip.compress(body))
    med = {"resourceType": "Medication", "id": "m1", "code": {"text": "vancomycin"}}
    (root / "Medication.ndjson").write_bytes(orjson.dumps(med) + b"\n")
    bundle = {"resourceType": "Bundle", "type": "collection", "entry": [
        {"fullUrl": "urn:uuid:b-p4", "resource": {"resourceType": "Patient", "id": "p4"}},
        {"fullUrl": "urn:uuid:b-c4", "resource": {"resourceType": "Condition", "id": "c4",
                                                   "subject": {"reference": "urn:uuid:b-p4"}}},
        {"fullUrl": "urn:uuid:b-m4", "resource": {"resourceType": "Medication", "id": "m4"}}]}
    (root / "bundles").mkdir()
    (root / "bundles" / "p4.json").write_bytes(orjson.dumps(bundle))
    (root / "manifest.json").write_bytes(b'{"transactionTime": "2024-01-01", "output": []}')
    return root


def test_spool_groups_by_patient_and_reports_bad_lines(tmp_path: Path) -> None:
    root = _export(tmp_path / "export")
    spool = tmp_path / "spool"
    stats = build_spool(root, spool)
    diags = [i.diagnostics for i in stats.issues]
    assert "Condition.ndjson.gz line 2: malformed JSON; line skipped" in diags
    assert any(d.startswith("Condition.ndjson.gz line 3:") and "cannot be resolved" in d for d in diags)
    assert SECRET not in (spool / "issues.ndjson").read_text() and all(SECRET not in d for d in diags)
    con = connect(tmp_path)
    todo = todo_patients(con, spool, Selection(), set())
    assert todo == ["p1", "p2", "p3", "p4"]
    groups = {p: [r[0] for r in rows] for p, rows in patient_groups(spool, todo)}
    # the Bundle's own Medication goes with its one patient; the NDJSON Medication is shared
    assert groups == {"p1": ["Condition/c1", "Patient/p1"], "p2": ["Condition/c2", "Patient/p2"],
                      "p3": ["Patient/p3"], "p4": ["Condition/c4", "Medication/m4", "Patient/p4"]}
    assert list(shared_resources(con, spool)) == ["Medication/m1"]


def test_since_and_patients_and_done_narrow_the_plan(tmp_path: Path) -> None:
    root = _export(tmp_path / "export")
    spool = tmp_path / "spool"
    build_spool(root, spool)
    con = connect(tmp_path)
    assert todo_patients(con, spool, Selection(since="2024-01-01"), set()) == ["p1"]
    assert todo_patients(con, spool, Selection(patients=frozenset({"p2", "p3"})), {"p3"}) == ["p2"]


def test_a_resource_breaking_a_shape_rule_is_skipped_by_name_and_path_and_the_rest_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "export"
    root.mkdir()
    deep: dict = {"url": "http://example.org/x"}
    for _ in range(300):  # past orjson's nesting limit: the spool could not store it
        deep = {"url": "http://example.org/x", "extension": [deep]}
    lines = [
        orjson.dumps({"resourceType": "Patient", "id": "p1"}),
        # a lone surrogate is JSON that orjson refuses: read, named, skipped
        b'{"resourceType": "Condition", "id": "c1", "subject": {"reference": "Patient/p1"}, "code": {"text": "\\ud800"}}',
        json.dumps({"resourceType": "Condition", "id": "c2", "subject": {"reference": "Patient/p1"},
                    "extension": [deep]}).encode(),  # orjson itself could not write it
        orjson.dumps({"resourceType": "Condition", "id": "c3", "subject": {"reference": "Patient/p1"}}),
    ]
    (root / "Patient.ndjson").write_bytes(lines[0] + b"\n")
    (root / "Condition.ndjson").write_bytes(b"\n".join(lines[1:]) + b"\n")
    stats = build_spool(root, tmp_path / "spool")
    diags = [i.diagnostics for i in stats.issues]
    assert diags[0] == ("Condition.ndjson line 1: Condition: string is not valid Unicode (lone UTF-16 surrogate) "
                        "at code.text; skipped")
    assert diags[1].startswith("Condition.ndjson line 2: Condition: nested deeper than 100 levels at extension[0]")
    assert len(diags) == 2
    groups = {p: [r[0] for r in rows] for p, rows in patient_groups(tmp_path / "spool", ["p1"])}
    assert groups == {"p1": ["Condition/c3", "Patient/p1"]}


def test_a_decompression_bomb_is_cut_off_and_the_other_files_go_on(tmp_path: Path, monkeypatch) -> None:
    import medeventgraph.screen.spool as spool_module

    monkeypatch.setattr(spool_module, "_INFLATION_FLOOR", 1024 * 1024)  # a small bomb suffices to cross it
    root = tmp_path / "export"
    root.mkdir()
    (root / "Patient.ndjson").write_bytes(orjson.dumps({"resourceType": "Patient", "id": "p1"}) + b"\n")
    bomb = gzip.compress(b"0" * (16 * 1024 * 1024), compresslevel=9)  # ~1,000 times its size
    assert len(bomb) * spool_module._MAX_INFLATION < 16 * 1024 * 1024
    (root / "Observation.ndjson.gz").write_bytes(bomb)
    (root / "Bundle.json.gz").write_bytes(bomb)
    stats = build_spool(root, tmp_path / "spool")
    diags = sorted(i.diagnostics for i in stats.issues)
    assert diags == [f"{name} line 1: the file inflates past {spool_module._MAX_INFLATION} times its size; "
                     "rest of file skipped" for name in ("Bundle.json.gz", "Observation.ndjson.gz")]
    assert {p: [r[0] for r in rows] for p, rows in patient_groups(tmp_path / "spool", ["p1"])} == {"p1": ["Patient/p1"]}
