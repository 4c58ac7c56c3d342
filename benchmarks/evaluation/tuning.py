"""Dev-only selection of tau+/tau- (and B5's score threshold), and freezing them.

Assessor verdicts are a pure function of (S+, S-) and the thresholds (paper Eq. 7), so the
dev grid search re-labels recorded axes instead of re-running; the test split is never read
here (callers pass dev rows only).
"""

from __future__ import annotations

import datetime as dt
from importlib import resources
from pathlib import Path

import numpy as np
import orjson
from medeventgraph.evaluation.metrics import balanced_accuracy, false_support_rate

__all__ = ["TAU_MINUS_GRID", "TAU_PLUS_GRID", "freeze", "label_of", "select_b5", "select_taus", "thresholds_path"]

TAU_PLUS_GRID = [round(float(x), 2) for x in np.arange(0.30, 1.0001, 0.05)]
TAU_MINUS_GRID = [0.25, 0.5, 0.75, 1.0]


def label_of(s_plus: float, s_minus: float, tau_plus: float, tau_minus: float) -> str:
    """Eq. 7, as in core.assess."""
    if s_plus >= tau_plus:
        return "conflicting" if s_minus >= tau_minus else "supported"
    return "refuted" if s_minus >= tau_minus else "insufficient"


def select_taus(rows: list[tuple[int, float, float]], current: tuple[float, float]) -> dict:
    """rows: (gold binary, S+, S-) on dev. Max BA; ties -> lower FSR -> nearest current point."""
    y = np.array([r[0] for r in rows])
    best = None
    for tp in TAU_PLUS_GRID:
        for tm in TAU_MINUS_GRID:
            p = np.array([label_of(sp, sm, tp, tm) == "supported" for _, sp, sm in rows], dtype=int)
            ba, fsr = float(balanced_accuracy(y, p)), float(false_support_rate(y, p))
            key = (round(ba, 6), -round(fsr, 6), -abs(tp - current[0]) - abs(tm - current[1]))
            if best is None or key > best[0]:
                best = (key, {"tau_plus": tp, "tau_minus": tm, "dev_ba": ba, "dev_fsr": fsr})
    assert best is not None
    return best[1]


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
    return Path(str(resources.files("medeventgraph.core").joinpath("resources/thresholds.json")))


def freeze(choice: dict, b5: dict, dev_summary: dict, n_dev: int) -> dict:
    """Write the dev-selected operating point into core/resources/thresholds.json."""
    path = thresholds_path()
    old = orjson.loads(path.read_bytes())
    new = {
        "tau_plus": choice["tau_plus"],
        "tau_minus": choice["tau_minus"],
        "how_chosen": (
            "Grid search on the DEV split only of `python -m medeventgraph.evaluation` (protocols T3, T5, T6, T9; "
            f"{n_dev} dev queries; tau_plus in {TAU_PLUS_GRID[0]}..{TAU_PLUS_GRID[-1]} step 0.05, tau_minus in "
            f"{TAU_MINUS_GRID}): maximise B6 binary balanced accuracy, ties broken by lower false-support rate, "
            "then by distance to the previous point. Verdicts were re-labelled from recorded (S+, S-) by Eq. 7. "
            "The test split never informed this choice."
        ),
        "chosen_on": "dev split (patient-disjoint), benchmarks/README.md",
        "dev_figures": {"ba": round(choice["dev_ba"], 4), "fsr": round(choice["dev_fsr"], 4), **dev_summary},
        "previous": {"tau_plus": old.get("tau_plus"), "tau_minus": old.get("tau_minus")},
        "evaluation_baselines": {"B5_score_threshold": b5["threshold"], "B5_dev_ba": round(b5["dev_ba"], 4)},
        "frozen": dt.date.today().isoformat(),
    }
    path.write_bytes(orjson.dumps(new, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    from medeventgraph.core.assess import load_thresholds

    load_thresholds.cache_clear()
    return new
