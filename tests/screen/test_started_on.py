"""Screening reads a watch-list question's "started on" against each patient's own record, as
`verify` does (issue 13): doses where the record keeps them, any medication record otherwise."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
from medeventgraph.model.settings import Settings
from medeventgraph.screen import ScreenJob, run_screen

DATA = Path(__file__).resolve().parents[1] / "cds_hooks" / "data"
QUESTION = "Was the patient started on vancomycin within 1 hour of the lactate?"


def test_a_question_item_reads_started_on_per_patient(tmp_path: Path) -> None:
    export = tmp_path / "export"
    export.mkdir()
    # Both: lactate 10:00, vancomycin ordered 10:10; only meg-given-1 has a dose (12:05).
    for name in ("meg-given-patient.json", "meg-ordered-patient.json"):
        shutil.copy(DATA / name, export / name)
    watch = tmp_path / "watch.jsonl"
    watch.write_bytes(orjson.dumps({"id": "vanc-1h", "question": QUESTION}) + b"\n")
    out = tmp_path / "out"
    run_screen(ScreenJob(export, watch, out, progress=False), Settings(notes=False))
    rows = {r["patient"]: r for r in map(orjson.loads, (out / "verdicts.ndjson").read_bytes().splitlines())}
    given, ordered = rows["meg-given-1"], rows["meg-ordered-1"]
    assert given["verdict"] == "refuted" and "read as administered" in given["read_as"]["e0"]
    assert not any(c.startswith("MedicationRequest/") for c in given["citations"])
    assert ordered["verdict"] == "supported"
    assert ordered["read_as"]["e0"].startswith("'started on' read as any medication record")
