"""The order cue rules' leave-one-report-out check judges each rule by where its gains lie."""

from __future__ import annotations

from types import ModuleType

import pytest

UNITS = {"q1": "r1", "q2": "r1", "q3": "r2", "q4": "r3"}
BASE = {"q1": True, "q2": True, "q3": True, "q4": False}


@pytest.fixture(scope="module")
def checker(benchmarks_on_path) -> ModuleType:
    import check_order_rules

    return check_order_rules


@pytest.mark.parametrize(("without", "status", "held_out"), [
    ({"q1": True, "q2": True, "q3": True, "q4": False}, "no effect", 0),  # it changes no answer
    ({"q1": False, "q2": False, "q3": True, "q4": False}, "fits one report", 0),  # r1 only
    ({"q1": False, "q2": True, "q3": False, "q4": False}, "kept", 1),  # r1 and r2: one report held out
    ({"q1": False, "q2": False, "q3": True, "q4": True}, "fits one report", -1),  # gains in r1 only, loses in r3
    ({"q1": False, "q2": True, "q3": False, "q4": True}, "does not help", 0),  # r2's gain cancelled by r3's loss
])
def test_a_rule_is_judged_by_where_it_gains(checker, without, status, held_out):
    judged = checker.judge(BASE, without, UNITS)
    assert judged["status"] == status and judged["held_out"] == held_out


def test_each_rule_is_answered_without_it_alone(checker):
    asked = []

    def answer(left_out):
        asked.append(left_out)
        return BASE if left_out != "b" else {**BASE, "q3": False}

    rules = checker.check(["a", "b"], answer, UNITS)
    assert asked == [None, "a", "b"]
    assert [(r["id"], r["status"]) for r in rules] == [("a", "no effect"), ("b", "fits one report")]
