"""Dev-only selection of tau+/tau- (and B5's score threshold), and freezing them.

Assessor verdicts are a pure function of (S+, S-) and the thresholds (paper Eq. 7), so the
dev grid search re-labels recorded axes instead of re-running; the test split is never read
here (callers pass dev rows only).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import orjson
from medeventgraph.evaluation.metrics import balanced_accuracy, false_support_rate
from medeventgraph.model.packaged import packaged_path

__all__ = ["TAU_MINUS_GRID", "TAU_PLUS_GRID", "freeze", "histogram", "label_of", "select_b5", "select_taus",
           "thresholds_path"]

TAU_PLUS_GRID = [round(float(x), 2) for x in np.arange(0.30, 1.0001, 0.05)]
# tau- stays above 0.5, the weight of one uncertain piece (core/decide/counter.py): uncertain evidence
# weighs half, so one uncertain negation alone must never refute, whatever dev would prefer.
TAU_MINUS_GRID = [round(float(x), 2) for x in np.arange(0.55, 1.0001, 0.05)]


def label_of(s_plus: float, s_minus: float, tau_plus: float, tau_minus: float) -> str:
    """Eq. 7, as in core.assess."""
    if s_plus >= tau_plus:
        return "conflicting" if s_minus >= tau_minus else "supported"
    return "refuted" if s_minus >= tau_minus else "insufficient"


def select_taus(rows: list[tuple[int, float, float, str]], current: tuple[float, float]) -> dict:
    """rows: (gold binary, S+, S-, gold four-way) on dev. Max binary BA; ties -> lower FSR ->
    tau+ nearest the current one -> more four-way verdicts as expected -> tau- nearest the
    current one. Binary BA and FSR place tau+ (supported or not); they cannot tell refuted from
    insufficient, so the four-way verdicts place tau-. They never move tau+: the dev protocols
    are structured records, and a tau+ raised to turn their few conflicting verdicts into
    refuted ones would drop every note-ordered support (S+ below 0.9) elsewhere."""
    y = np.array([r[0] for r in rows])
    best = None
    for tp in TAU_PLUS_GRID:
        for tm in TAU_MINUS_GRID:
            labels = [label_of(sp, sm, tp, tm) for _, sp, sm, _ in rows]
            p = np.array([v == "supported" for v in labels], dtype=int)
            ba, fsr = float(balanced_accuracy(y, p)), float(false_support_rate(y, p))
            four = sum(v == r[3] for v, r in zip(labels, rows, strict=True)) / len(rows)
            key = (round(ba, 6), -round(fsr, 6), -round(abs(tp - current[0]), 6), round(four, 6),
                   -round(abs(tm - current[1]), 6))
            if best is None or key > best[0]:
                best = (key, {"tau_plus": tp, "tau_minus": tm, "dev_ba": ba, "dev_fsr": fsr, "dev_four_way": four})
    assert best is not None
    return best[1]


def histogram(values: list[float], bins: int = 10) -> list[dict]:
    """Counts of scores in [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0] (the last bin closed)."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins + 1e-9)))] += 1
    return [{"lo": round(k / bins, 2), "hi": round((k + 1) / bins, 2), "n": n} for k, n in enumerate(counts)]


def select_b5(rows: list[tuple[int, float]]) -> dict:
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows])
    best = (-1.0, 0.5)
    for th in sorted({float(x) for x in np.round(s, 6)} | {0.5}):
        ba = float(balanced_accuracy(y, (s >= th).astype(int)))
        if ba > best[0] + 1e-12:
            best = (ba, th)
    return {"threshold": best[1], "dev_ba": best[0]}


def thresholds_path() -> Path:
    return packaged_path("medeventgraph.core", "thresholds.json")


def freeze(choice: dict, b5: dict, dev_summary: dict, n_dev: int) -> dict:
    """Write the dev-selected operating point into core/resources/thresholds.json."""
    path = thresholds_path()
    old = orjson.loads(path.read_bytes())
    new = {
        "tau_plus": choice["tau_plus"],
        "tau_minus": choice["tau_minus"],
        "how_chosen": (
            "Grid search on the DEV split only of `python -m medeventgraph.evaluation --freeze` (protocols T3, T5, "
            f"T6, T9; {n_dev} dev queries; tau_plus in {TAU_PLUS_GRID[0]}..{TAU_PLUS_GRID[-1]} step 0.05, tau_minus in "
            f"{TAU_MINUS_GRID[0]}..{TAU_MINUS_GRID[-1]} step 0.05, above the 0.5 of one uncertain piece of "
            "counter-evidence so that it never refutes alone): maximise B6 binary balanced accuracy, ties broken by "
            "lower false-support rate, then by tau_plus nearest the previous one, then by more four-way verdicts as "
            "the gold expects (what places tau-, which binary accuracy cannot), then by tau_minus nearest the "
            "previous one. Verdicts were re-labelled from recorded (S+, S-) by Eq. 7 over the "
            "graded scale of core/decide/assess.py and core/decide/counter.py. The test split never informed this choice."
        ),
        "chosen_on": "dev split (patient-disjoint), benchmarks/README.md",
        "dev_figures": {"ba": round(choice["dev_ba"], 4), "fsr": round(choice["dev_fsr"], 4),
                        "four_way": round(choice["dev_four_way"], 4), **dev_summary},
        "previous": {"tau_plus": old.get("tau_plus"), "tau_minus": old.get("tau_minus")},
        "evaluation_baselines": {"B5_score_threshold": b5["threshold"], "B5_dev_ba": round(b5["dev_ba"], 4)},
        "frozen": dt.date.today().isoformat(),
    }
    path.write_bytes(orjson.dumps(new, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    from medeventgraph.core.decide.assess import load_thresholds

    load_thresholds.cache_clear()
    return new
