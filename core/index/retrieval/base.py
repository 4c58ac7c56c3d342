"""The lexical retrieval interface and its name registry (tantivy | whoosh)."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

__all__ = ["LEXICAL_BACKENDS", "LexicalIndex", "make_lexical", "query_words", "register_lexical"]

_WORD = re.compile(r"[a-z0-9]+")


def query_words(text: str) -> list[str]:
    """Plain lower-case word tokens: query syntax characters never reach a backend."""
    return _WORD.findall(text.lower())


class LexicalIndex(ABC):
    """BM25 over (doc id, text) pairs for one patient; built once, searched many times."""

    @abstractmethod
    def build(self, docs: Sequence[tuple[str, str]]) -> None: ...

    @abstractmethod
    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        """Best `k` documents for the words of `text` (any word may match), best first."""


LEXICAL_BACKENDS: dict[str, Callable[[], LexicalIndex]] = {}


def register_lexical(name: str) -> Callable[[type[LexicalIndex]], type[LexicalIndex]]:
    def wrap(cls: type[LexicalIndex]) -> type[LexicalIndex]:
        LEXICAL_BACKENDS[name] = cls
        return cls

    return wrap


def make_lexical(name: str) -> LexicalIndex:
    # Importing the backend modules registers them; done here so the registry is complete
    # without import-time side effects elsewhere.
    from medeventgraph.core.index.retrieval import tantivy_backend, whoosh_backend  # noqa: F401

    try:
        return LEXICAL_BACKENDS[name]()
    except KeyError:
        raise ValueError(f"unknown lexical backend {name!r}; known: {sorted(LEXICAL_BACKENDS)}") from None
