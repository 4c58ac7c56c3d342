"""The CLI's --format table speaks like the cards: finding, what was checked, deciding entries
newest first, and the codes and scores only in the last (audit) line."""

from __future__ import annotations

import json
import re
from pathlib import Path

from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Verdict
from medeventgraph.wording.table import verdict_table

INPUTS = Path(__file__).resolve().parents[1] / "cds_hooks" / "golden" / "inputs"
INTERNAL = re.compile(r"S\+|S−|\bP\d+[DWH]\b|\bPT\d|sha256|missing_endpoint|opposite_order|granularity|\(second\)")


def _case(name: str) -> tuple[Verdict, VerificationQuery]:
    case = json.loads((INPUTS / f"{name}.json").read_text())
    return Verdict.model_validate(case["verdict"]), VerificationQuery.model_validate(case["query"])


def test_table_leads_with_the_finding_and_ends_with_the_audit_line():
    verdict, query = _case("supported-aki-after-vancomycin")
    lines = verdict_table(verdict, query).splitlines()
    assert lines[0] == "finding   AKI documented 2 days after vancomycin (2 → 4 Mar 2023)"
    assert lines[1].startswith("checked   The record has vancomycin on 2 Mar 2023 10:00")
    assert lines[-1].startswith("audit     SUPPORTED · S+ 1.00 · S− 0.00 · failure none · bundle sha256:")
    assert not INTERNAL.search("\n".join(lines[:-1]))
    rows = [ln for ln in lines if ln.startswith("for ")]
    assert [r.split()[1:4] for r in rows] == [["4", "Mar", "2023"], ["2", "Mar", "2023"]]  # newest first
    assert "Condition/golden-aki-1" in rows[0] and "MedicationAdministration/golden-vanc-1" in rows[1]


def test_table_shows_counter_evidence_and_the_note_span():
    verdict, query = _case("conflicting-bleeding-denied")
    text = verdict_table(verdict, query)
    assert text.startswith("finding   Conflicting: bleeding documented and denied after heparin")
    against = next(ln for ln in text.splitlines() if ln.startswith("against "))
    assert "Note (stated as absent)" in against and "DocumentReference/golden-note-2 characters 10–18" in against
    assert "failure negated" in text.splitlines()[-1]


def test_a_note_stated_order_reads_as_the_note_with_its_cue_in_bold():
    from medeventgraph.core.query.verdict import EvidenceOut, SourceOut, TimeOut
    from medeventgraph.wording.evidence import evidence_line, markdown_lines
    from medeventgraph.wording.templates import load_wording

    # The row core.stated.stated_evidence makes for "after starting vancomycin she developed AKI".
    item = EvidenceOut(occurrence="DocumentReference/n1#s10-24", events=["e0", "e1"], kind="relation", origin="note",
                       concept="e0 before e1 (stated: 'after starting')",
                       context="after starting vancomycin she developed acute kidney injury",
                       time=TimeOut(start=None, type="occurrence", granularity="unknown"), scope="valid",
                       source=SourceOut(reference="DocumentReference/n1", start=10, end=24),
                       derived_from=["DocumentReference/n1#s25-35", "DocumentReference/n1#s50-69"], polarity="supports")
    line = evidence_line(item, load_wording())
    assert line.label == "Note states the order" and line.mention == "after starting"
    text = "\n".join(markdown_lines([line], load_wording()))
    assert "> **after starting** vancomycin she developed acute kidney injury" in text
    assert "e0" not in text and "stated:" not in text


def test_an_order_by_counted_times_says_where_the_times_came_from():
    from medeventgraph.core.query.verdict import EvidenceOut, SourceOut, TimeOut
    from medeventgraph.wording.evidence import evidence_line
    from medeventgraph.wording.templates import load_wording

    # The row core.stated.stated_evidence makes for "rash on hospital day 4 ... vancomycin on hospital day 2".
    item = EvidenceOut(occurrence="DocumentReference/n1#s80-94/a/b", events=["e0", "e1"], kind="relation",
                       origin="note", concept="e0 before e1 (dated by the times told: 'hospital day 2' first)",
                       context="She developed a rash on hospital day 4. … She received vancomycin on hospital day 2.",
                       time=TimeOut(start=None, type="occurrence", granularity="unknown"), scope="valid",
                       source=SourceOut(reference="DocumentReference/n1", start=80, end=94),
                       basis=["relation:counted-times"], polarity="supports")
    line = evidence_line(item, load_wording())
    assert line.label == "Note times each event (dated by the times told: 'hospital day 2' first)"
    assert "hospital day 4" in line.words and "e0" not in line.label


def test_a_finding_from_note_values_reads_as_a_finding_with_its_value_not_as_a_quote():
    from medeventgraph.core.query.verdict import EvidenceOut, SourceOut, TimeOut
    from medeventgraph.wording.evidence import evidence_line, markdown_lines
    from medeventgraph.wording.templates import load_wording

    # What core.derive makes of "Creatinine up from 0.9 to 2.1 mg/dL": its context is the row rendering.
    item = EvidenceOut(occurrence="derived:kdigo:DocumentReference/n1#s16-51", events=["e1"], kind="derived",
                       origin="derived", concept="Creatinine rise (KDIGO)",
                       context="DocumentReference | Creatinine rise (KDIGO) | 2.1 mg/dL | occurrence time unknown",
                       time=TimeOut(start=None, type="occurrence", granularity="unknown"), scope="valid",
                       value={"quantity": 2.1, "unit": "mg/dL"},
                       source=SourceOut(reference="DocumentReference/n1", start=16, end=51), polarity="supports")
    line = evidence_line(item, load_wording())
    text = "\n".join(markdown_lines([line], load_wording()))
    assert line.label == "Finding from values in a note" and not line.is_note
    assert "Finding from values in a note: **Creatinine rise (KDIGO)**, 2.1 mg/dL" in text
    assert "`DocumentReference/n1` characters 16–51" in text
    assert "DocumentReference \\|" not in text and "> " not in text
