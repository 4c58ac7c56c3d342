"""Dev-only threshold selection (benchmarks/evaluation/tuning.py): what it may choose and why."""

from __future__ import annotations

from medeventgraph.evaluation.tuning import TAU_MINUS_GRID, histogram, label_of, select_taus


def test_tau_minus_is_never_low_enough_for_one_uncertain_piece_to_refute():
    # Dev rows that would be "refuted" only if an S- of 0.5 (one uncertain negation) refuted.
    rows = [(0, 0.0, 0.5, "refuted")] * 5 + [(1, 1.0, 0.0, "supported")] * 5
    choice = select_taus(rows, (0.6, 0.75))
    assert min(TAU_MINUS_GRID) > 0.5 and choice["tau_minus"] > 0.5
    assert label_of(0.0, 0.5, choice["tau_plus"], choice["tau_minus"]) == "insufficient"


def test_four_way_agreement_places_tau_minus_where_binary_accuracy_cannot():
    # Binary BA is the same for every tau-: only the four-way verdicts tell refuted from insufficient.
    rows = ([(1, 1.0, 0.0, "supported")] * 4 + [(0, 0.55, 0.62, "refuted")] * 3
            + [(0, 0.55, 0.4, "insufficient")] * 3 + [(0, 0.0, 0.0, "insufficient")] * 2)
    choice = select_taus(rows, (0.6, 0.75))
    assert (choice["dev_ba"], choice["dev_fsr"], choice["dev_four_way"]) == (1.0, 0.0, 1.0)
    assert 0.55 <= choice["tau_minus"] <= 0.6  # low enough for the 0.62 reversals, nearest 0.75 among ties
    assert select_taus(rows[:4] + rows[7:], (0.6, 0.75))["tau_minus"] == 0.75  # no reversals: stays put


def test_histogram_bins_every_score_once():
    h = histogram([0.0, 0.05, 0.1, 0.62, 0.99, 1.0])
    assert [b["n"] for b in h] == [2, 1, 0, 0, 0, 0, 1, 0, 0, 2]
    assert (h[0]["lo"], h[-1]["hi"]) == (0.0, 1.0)


def test_four_way_agreement_never_moves_tau_plus():
    # Conflicting on dev (a note-bounded chain against a recorded reversal) would become refuted
    # with tau+ above 0.855, at the cost of every note-ordered support elsewhere: tau+ stays.
    rows = [(1, 1.0, 0.0, "supported")] * 4 + [(0, 0.855, 1.0, "refuted")] * 3 + [(0, 0.55, 0.0, "insufficient")] * 3
    choice = select_taus(rows, (0.6, 0.75))
    assert choice["tau_plus"] == 0.6 and choice["dev_four_way"] == 0.7
