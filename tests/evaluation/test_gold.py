"""The gold rules' matcher is the evaluation's own: independent of the verifier's code, sharing only
its kind table."""

from __future__ import annotations

import ast
import importlib
from dataclasses import replace
from pathlib import Path

from medeventgraph.core.evidence import binding
from medeventgraph.core.query.actions import action_admits
from medeventgraph.evaluation import gold
from medeventgraph.evaluation.gold import display_term, gold_matches, norm, phrase_in
from medeventgraph.model.occurrence import (
    Action,
    Coding,
    Concept,
    EventTime,
    Kind,
    Occurrence,
    Origin,
    SourceRef,
)

EVAL = Path(__file__).resolve().parents[2] / "benchmarks" / "evaluation"


def _core_imports(path: Path) -> dict[str, list[str]]:
    """{core module: the names imported from it} for one file."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("medeventgraph.core"):
            out.setdefault(node.module, []).extend(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update({a.name: [] for a in node.names if a.name.startswith("medeventgraph.core")})
    return out


def test_gold_and_protocol_rules_take_only_data_from_the_core():
    """No grounding or normalisation code of the verifier: at most its constant tables (gold.py
    says why the kind table is shared)."""
    for name in ("gold.py", "protocols.py"):
        for module, names in _core_imports(EVAL / name).items():
            assert names, (name, module)  # a whole-module import would reach its functions
            for imported in names:
                value = getattr(importlib.import_module(module), imported)
                assert imported.isupper() and not callable(value), (name, module, imported)


def test_the_judge_names_rows_by_the_cores_kind_table():
    assert gold.KIND_ALLOWS is binding.KIND_ALLOWS
    for query_kind in [None, *binding.KIND_ALLOWS]:
        for kind in Kind:
            assert gold.kind_names(query_kind, kind) == binding.kind_allows(query_kind, kind), (query_kind, kind)


def test_the_judge_never_counts_a_procedure_order_the_core_admits_for_ordered():
    order = replace(_occ("Colonoscopy", Kind.PROCEDURE), action=Action.ORDERED)
    done = replace(_occ("Colonoscopy", Kind.PROCEDURE), action=Action.PERFORMED)
    assert binding.kind_allows("procedure", order.kind)
    assert action_admits("ordered", order.action.value, order.kind)
    assert not action_admits("performed", order.action.value, order.kind)
    assert not gold.instance_of("procedure", order) and gold.instance_of("procedure", done)
    assert gold.gold_matches("colonoscopy", "procedure", [order, done]) == [done]


def _occ(display: str, kind: Kind, origin: Origin = Origin.STRUCTURED) -> Occurrence:
    return Occurrence(f"X/{display}", "p", kind, origin, Concept((Coding("s", "1", display),), display),
                      EventTime(None), SourceRef("X", display))


def test_the_documented_rule():
    assert norm("Sodium Chloride 0.9% [Injectable],  IV") == "sodium chloride 0.9 injectable iv"
    assert display_term(_occ("Sepsis (disorder)", Kind.CONDITION)) == "sepsis"
    assert display_term(_occ("Hemoglobin A1c/Hemoglobin.total in Blood", Kind.LAB)) == (
        "hemoglobin a1c/hemoglobin.total in blood")
    assert phrase_in("aki", "stage 2 aki") and not phrase_in("aki", "akinesia")
    rows = [_occ("Septic shock", Kind.CONDITION), _occ("Shock", Kind.CONDITION), _occ("shock", Kind.MEDICATION),
            _occ("Septic shock", Kind.CONDITION, Origin.NOTE), _occ("Creatinine", Kind.OBSERVATION)]
    assert [o.concept.text for o in gold_matches("shock", "condition", rows)] == ["Septic shock", "Shock"]
    assert [o.concept.text for o in gold_matches("septic shock", "condition", rows)] == ["Septic shock"]
    assert [o.concept.text for o in gold_matches("creatinine", "lab", rows)] == ["Creatinine"]
    assert gold_matches("creatinine", "condition", rows) == []
