"""R1 (cross-admission order, MIMIC-IV) and R2 (ordered vs given, clinosim): rules and scoring
on the copies in tests/data, and label rules kept apart from the verifier."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from medeventgraph.evaluation import protocol_admissions, protocol_given
from medeventgraph.evaluation.protocols import STANDALONE
from medeventgraph.evaluation.standalone import run_standalone, section

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("module", [protocol_admissions, protocol_given])
def test_label_rules_import_no_project_code_but_the_case_type(module):
    tree = ast.parse(Path(module.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    project = {m for m in imported if m and m.startswith("medeventgraph")}
    assert project == {"medeventgraph.evaluation.standalone"}


def test_registered():
    assert {"protocol_admissions", "protocol_given"} <= set(STANDALONE)


def test_cross_admission_rules_on_mimic_subset():
    cases = protocol_admissions.cases(DATA / "mimic-iv-demo", smoke=False)
    fams = {c.family for c in cases}
    assert fams == {"cross", "reversed", "same"}
    by_id = {c.id: c for c in cases}
    for c in cases:
        if c.family == "reversed":  # the reversal of its cross case: same events, swapped
            twin = by_id[c.id[:-1] + "c"]
            assert [e["codes"] for e in c.query["events"]] == [e["codes"] for e in reversed(twin.query["events"])]
    assert {c.expected for c in cases if c.family == "same"} == {"insufficient"}


def test_ordered_vs_given_rules_on_clinosim(clinosim_dir):
    cases = protocol_given.cases(clinosim_dir, smoke=False)
    traps = [c for c in cases if c.family == "order_only" and c.patient == "pt-61bd7599b2bf"]
    # vancomycin (11124): ordered 8 min after the first lactate, first given 37 min after it
    vanco = next(c for c in traps if c.query["events"][0]["codes"][0]["code"] == "11124")
    within = vanco.query["relations"][0]["within"]
    assert within == "PT22M" and vanco.expected == "refuted"
    assert "action" not in vanco.baseline["events"][0]
    assert {"given", "ordered", "order_only"} <= {c.family for c in cases}


def test_run_and_report_on_the_subsets(tmp_path, clinosim_dir):
    root = tmp_path / "data"
    (root / "clinosim").mkdir(parents=True)
    (root / "mimic-iv-demo-fhir-partial").symlink_to(DATA / "mimic-iv-demo")
    (root / "clinosim" / "fhir_r4").symlink_to(clinosim_dir)
    res = run_standalone(root, smoke=True, log=lambda *a: None)
    r1, r2 = res["R1"], res["R2"]
    assert r1["B6"]["n"] > 0 and r2["B6"]["n"] > 0
    # what the protocols are for: no false support, and the old any-record reading has it
    assert r1["B6"]["fsr"] == 0.0 and r2["B6"]["fsr"] == 0.0
    assert r2["baseline"]["fsr"] == 1.0
    assert all(r["verdict"] == r["expected"] for r in r1["rows"])
    text = "\n".join(section(res))
    assert "## R1" in text and "## R2" in text and "FSR" in text
