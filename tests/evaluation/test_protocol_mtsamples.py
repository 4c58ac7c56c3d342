"""N1 (MTSamples development set): labels quote the note's own words, and the verifier answers
the questions over the copied reports as labelled."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from medeventgraph.evaluation import protocol_mtsamples as n1
from medeventgraph.evaluation.standalone import _rates, _verify_all

COPIES = Path(__file__).resolve().parents[1] / "data" / "mtsamples"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "mtsamples" / "bundles"


def _text(bundle: Path) -> str:
    data = json.loads(bundle.read_text())
    doc = next(e["resource"] for e in data["entry"] if e["resource"]["resourceType"] == "DocumentReference")
    return base64.b64decode(doc["content"][0]["attachment"]["data"]).decode()


def test_dev_set_is_balanced_and_every_reason_is_a_documented_one():
    rows = n1.load_dev_set()
    pos = sum(r["label"] == "supported" for r in rows)
    assert pos == len(rows) - pos
    allowed = {"stated", "dated", "negated", "hypothetical", "family", "historical", "reversed", "absent"}
    assert {r["reason"] for r in rows} <= allowed
    assert all(r["label"] == "supported" or r["reason"] not in ("stated", "dated") for r in rows)


def test_each_quote_is_the_notes_own_words():
    folder = SHARED if SHARED.is_dir() else COPIES
    checked = 0
    for r in n1.load_dev_set():
        path = folder / f"{r['patient']}.json"
        if r["quote"].startswith("(") or not path.is_file():
            continue  # "absent" labels quote what is missing, not the text
        text = " ".join(_text(path).split())
        for piece in r["quote"].split(" ... "):
            assert " ".join(piece.split()) in text, (r["id"], piece)
        checked += 1
    assert checked >= 6


def test_verifier_on_the_copied_reports(note_pipeline):
    cases = n1.cases(COPIES, smoke=False)
    assert {c.patient for c in cases} == {"mts-1430", "mts-1559", "mts-3024"}
    rows, _ = _verify_all(COPIES, cases, notes=True)
    rates = _rates([(r["expected"], r["binary"], r["verdict"]) for r in rows])
    assert rates["fsr"] == 0.0 and rates["sup_recall"] >= 0.75, rows


@pytest.mark.parametrize("reason", ["reversed", "absent"])
def test_reversed_and_absent_are_never_supported(reason, note_pipeline):
    cases = [c for c in n1.cases(COPIES, smoke=False) if c.family == reason]
    rows, _ = _verify_all(COPIES, cases, notes=True)
    assert rows and all(r["verdict"] != "supported" for r in rows)
