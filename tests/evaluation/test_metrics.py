"""Metrics on hand-made inputs: BA, macro-F1, FSR beside supported recall, bootstrap, Holm."""

from __future__ import annotations

import math

import pytest
from medeventgraph.evaluation import metrics as M


def test_binary_collapses_four_way_verdicts():
    assert M.binary(["supported", "refuted", "conflicting", "insufficient", "not_supported"]).tolist() == [1, 0, 0, 0, 0]


def test_ba_f1_fsr_on_hand_counts():
    y = [1, 1, 1, 1, 0, 0, 0, 0]
    p = [1, 1, 1, 0, 1, 0, 0, 0]  # TPR 3/4, TNR 3/4
    s = M.scores(y, p)
    assert s["ba"] == pytest.approx(0.75)
    assert s["sup_recall"] == pytest.approx(0.75)
    assert s["fsr"] == pytest.approx(0.25)
    # F1(pos) = 2*3/(2*3+1+1) = .75, F1(neg) = .75
    assert s["f1"] == pytest.approx(0.75)


def test_abstaining_everywhere_is_not_safe_looking():
    s = M.scores([1, 1, 0, 0], [0, 0, 0, 0])
    assert s["fsr"] == 0 and s["sup_recall"] == 0 and s["ba"] == 0.5
    assert s["f1"] == pytest.approx((0 + 2 * 2 / (2 * 2 + 2)) / 2)


def test_bootstrap_interval_brackets_point_and_is_degenerate_when_constant():
    y = [1, 0] * 10
    perfect = M.bootstrap_ci(y, y, [f"p{i // 2}" for i in range(20)], "ba", 300, seed=1)
    assert perfect == (1.0, 1.0)
    p = [1, 1] * 5 + [1, 0] * 5
    lo, hi = M.bootstrap_ci(y, p, [f"p{i // 2}" for i in range(20)], "ba", 500, seed=1)
    assert lo <= M.scores(y, p)["ba"] <= hi and lo < hi


def test_paired_randomization_identical_methods_give_p_one():
    y = [1, 0, 1, 0]
    assert M.paired_randomization(y, [1, 0, 0, 0], [1, 0, 0, 0], ["a", "a", "b", "b"], "ba", 200) == 1.0


def test_holm_step_down():
    adj = M.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": float("nan")})
    assert adj["a"] == pytest.approx(0.03)
    assert adj["c"] == pytest.approx(0.06)
    assert adj["b"] == pytest.approx(0.06)  # monotone: never below the previous step
    assert math.isnan(adj["d"])
