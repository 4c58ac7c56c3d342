"""Scoring: BA, macro-F1, false-support rate beside supported recall; patient-cluster
bootstrap intervals; paired cluster randomization tests with Holm correction (numpy only).

Four-way verdicts are collapsed to supported vs not only here, for scoring.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "balanced_accuracy",
    "binary",
    "bootstrap_ci",
    "false_support_rate",
    "holm",
    "macro_f1",
    "paired_randomization",
    "scores",
    "supported_recall",
]


def binary(labels) -> np.ndarray:
    """1 for supported, 0 for every other verdict (or 'not_supported')."""
    return np.array([1 if str(x) == "supported" else 0 for x in labels], dtype=np.int8)


def _rates(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Supported recall (TPR) and specificity (TNR) over the last axis; nan when a class is absent."""
    pos, neg = (y == 1), (y == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = (p * pos).sum(-1) / pos.sum(-1)
        tnr = ((1 - p) * neg).sum(-1) / neg.sum(-1)
    return tpr, tnr


def balanced_accuracy(y, p) -> float | np.ndarray:
    tpr, tnr = _rates(np.asarray(y), np.asarray(p))
    return (tpr + tnr) / 2


def supported_recall(y, p):
    return _rates(np.asarray(y), np.asarray(p))[0]


def false_support_rate(y, p):
    """Share of gold non-supported queries answered supported (1 - specificity)."""
    return 1 - _rates(np.asarray(y), np.asarray(p))[1]


def macro_f1(y, p):
    """Mean of the F1 of the supported class and of the not-supported class."""
    y, p = np.asarray(y), np.asarray(p)

    def f1(yc, pc):
        tp = (yc * pc).sum(-1)
        denom = yc.sum(-1) + pc.sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 1.0)

    return (f1(y, p) + f1(1 - y, 1 - p)) / 2


def scores(y, p) -> dict[str, float]:
    return {
        "ba": float(balanced_accuracy(y, p)),
        "f1": float(macro_f1(y, p)),
        "fsr": float(false_support_rate(y, p)),
        "sup_recall": float(supported_recall(y, p)),
    }


def _cluster_index(clusters) -> tuple[np.ndarray, int]:
    _, inv = np.unique(np.asarray(clusters, dtype=object).astype(str), return_inverse=True)
    return inv, int(inv.max()) + 1 if len(inv) else 0


def bootstrap_ci(y, p, clusters, metric, replicates: int, seed: int = 0, alpha: float = 0.05):
    """Percentile interval resampling patients (clusters) with replacement."""
    y, p = np.asarray(y), np.asarray(p)
    inv, k = _cluster_index(clusters)
    if k == 0 or replicates <= 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, k, size=(replicates, k))
    weights = np.zeros((replicates, k))
    np.add.at(weights, (np.arange(replicates)[:, None], draws), 1)
    w = weights[:, inv]  # case weight = times its patient was drawn
    values = _weighted(metric, y, p, w)
    values = values[~np.isnan(values)]
    if not len(values):
        return (float("nan"), float("nan"))
    return float(np.quantile(values, alpha / 2)), float(np.quantile(values, 1 - alpha / 2))


def _weighted(metric: str, y: np.ndarray, p: np.ndarray, w: np.ndarray) -> np.ndarray:
    pos, neg = w * (y == 1), w * (y == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = (pos * p).sum(1) / pos.sum(1)
        tnr = (neg * (1 - p)).sum(1) / neg.sum(1)
        if metric == "ba":
            return (tpr + tnr) / 2
        if metric == "fsr":
            return 1 - tnr
        if metric == "sup_recall":
            return tpr
        if metric == "f1":
            tp, fp, fn = (pos * p).sum(1), (neg * p).sum(1), (pos * (1 - p)).sum(1)
            tn = (neg * (1 - p)).sum(1)
            f_pos = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 1.0)
            f_neg = np.where(2 * tn + fn + fp > 0, 2 * tn / (2 * tn + fn + fp), 1.0)
            return (f_pos + f_neg) / 2
    raise ValueError(metric)


def paired_randomization(y, pa, pb, clusters, metric: str, replicates: int, seed: int = 0) -> float:
    """Two-sided p for metric(a) != metric(b): swap the two methods' answers per patient."""
    y, pa, pb = np.asarray(y), np.asarray(pa), np.asarray(pb)
    inv, k = _cluster_index(clusters)
    ones = np.ones((1, len(y)))
    observed = abs(_weighted(metric, y, pa, ones)[0] - _weighted(metric, y, pb, ones)[0])
    if replicates <= 0 or k == 0:
        return float("nan")
    rng = np.random.default_rng(seed)
    swap = rng.integers(0, 2, size=(replicates, k)).astype(bool)[:, inv]
    a = np.where(swap, pb, pa)
    b = np.where(swap, pa, pb)
    w = np.ones_like(a, dtype=float)
    diffs = np.abs(_weighted(metric, y, a, w) - _weighted(metric, y, b, w))
    return float((1 + np.sum(diffs >= observed - 1e-12)) / (replicates + 1))


def holm(pvalues: dict[str, float]) -> dict[str, float]:
    """Holm step-down adjusted p-values over one comparison family (nan entries skipped)."""
    items = sorted(((p, k) for k, p in pvalues.items() if not np.isnan(p)), key=lambda t: t[0])
    m = len(items)
    out: dict[str, float] = {k: float("nan") for k in pvalues}
    running = 0.0
    for i, (p, k) in enumerate(items):
        running = max(running, min(1.0, (m - i) * p))
        out[k] = running
    return out
