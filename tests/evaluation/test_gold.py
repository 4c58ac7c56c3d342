"""The gold rules' matcher is the evaluation's own: independent of the verifier's code."""

from __future__ import annotations

import ast
from pathlib import Path

from medeventgraph.evaluation.gold import display_term, gold_matches, norm, phrase_in
from medeventgraph.model.occurrence import Coding, Concept, EventTime, Kind, Occurrence, Origin, SourceRef

EVAL = Path(__file__).resolve().parents[2] / "benchmarks" / "evaluation"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_gold_and_protocol_rules_import_nothing_from_the_core():
    for name in ("gold.py", "protocols.py"):
        core = {m for m in _imports(EVAL / name) if m.startswith("medeventgraph.core")}
        assert not core, (name, core)


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
