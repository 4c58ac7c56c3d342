"""Similarity as a binding basis: a score above a frozen threshold, recomputable by anyone.

A `similarity` basis (core.binding) claims "this item's display means what the query event
says, by model M with score s". The claim is only as good as its recomputation: the contract
recomputes s from the event text and the item's displays with the model named in
`resources/similarity.json` and admits the item only when the named model is that one, the
recomputed score matches the claimed one and reaches the frozen threshold. Without the
`dense` extra nothing can be recomputed, so every similarity basis is refused (the
deterministic bases work as before).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
from medeventgraph.core.query.lexicon import normalize_text
from medeventgraph.core.query.model import EventSpec
from medeventgraph.model.packaged import packaged_model

__all__ = ["SCORE_TOLERANCE", "SimilarityRule", "best_similarity", "claim", "load_rule", "parse_claim", "prime", "similarity_basis"]

SCORE_TOLERANCE = 1e-3  # a claimed score is written to 4 places; CPU float noise is far below this


@dataclass(frozen=True)
class SimilarityRule:
    model: str
    threshold: float


@cache
def load_rule() -> SimilarityRule:
    return packaged_model("medeventgraph.core", "similarity.json", SimilarityRule)


def claim(model: str, score: float) -> str:
    """The basis detail: "model|score"."""
    return f"{model}|{score:.4f}"


def parse_claim(detail: str) -> tuple[str, float] | None:
    model, sep, score = detail.rpartition("|")
    if not sep or not model:
        return None
    try:
        value = float(score)
    except ValueError:
        return None
    return (model, value) if math.isfinite(value) else None  # NaN or inf never matches anything


# Embeddings of a pure function of (model, text), kept for the process: a memo, not state that
# changes any answer. Bounded: cleared when it grows past _MAX_VECTORS.
_VECTORS: dict[tuple[str, str], tuple[float, ...]] = {}
_MAX_VECTORS = 50_000


def _usable(model: str) -> bool:
    from medeventgraph.core.index.retrieval.dense_backend import MiniLMIndex, dense_available

    return model == MiniLMIndex.MODEL_KEY and dense_available()


def prime(model: str, texts: list[str]) -> None:
    """Embed the texts not yet embedded, in one batch (a no-op when the model is unusable)."""
    todo = sorted({t for t in texts if t and (model, t) not in _VECTORS})
    if not todo or not _usable(model):
        return
    from medeventgraph.core.index.retrieval.dense_backend import load_model

    if len(_VECTORS) + len(todo) > _MAX_VECTORS:
        _VECTORS.clear()
    vectors = load_model().encode(todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    for t, v in zip(todo, vectors, strict=True):
        _VECTORS[(model, t)] = tuple(float(x) for x in v)


def clear() -> None:
    """Forget every embedding (tests that hide the model use it)."""
    _VECTORS.clear()


def _vector(model: str, text: str) -> tuple[float, ...] | None:
    """One normalised embedding; None when `model` is not the installed one or the extra is absent."""
    if not _usable(model):
        return None
    if (model, text) not in _VECTORS:
        prime(model, [text])
    return _VECTORS.get((model, text))


def best_similarity(model: str, text: str, displays: tuple[str, ...]) -> float | None:
    """max cosine(text, display) over the displays, by `model`; None if it cannot be computed."""
    q = _vector(model, text) if text else None
    if q is None:
        return None
    best = None
    for d in displays:
        v = _vector(model, d) if d else None
        if v is not None:
            score = sum(a * b for a, b in zip(q, v, strict=True))
            best = score if best is None else max(best, score)
    return best


def similarity_basis(event: EventSpec, displays: tuple[str, ...]) -> BindingBasis | None:
    """A similarity basis for `event` over these (normalised) displays, when the frozen model
    scores them at or above the frozen threshold; None otherwise or without the extra."""
    rule = load_rule()
    if event.hidden or not event.text:
        return None
    score = best_similarity(rule.model, normalize_text(event.text), displays)
    if score is None or score < rule.threshold:
        return None
    return BindingBasis(event.id, BasisKind.SIMILARITY, claim(rule.model, score))
