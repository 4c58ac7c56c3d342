"""A small LRU of processed notes keyed by document id + version + attachment + content hash.

Identical texts (Synthea writes each note as a DocumentReference and again as a
DiagnosticReport.presentedForm) share one processed doc through a content-hash index.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["CacheStats", "NoteCache", "NoteKey", "content_hash"]

V = TypeVar("V")


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class NoteKey:
    reference: str  # "DocumentReference/9"
    version: str | None
    attachment: int
    sha256: str


@dataclass(slots=True)
class CacheStats:
    hits: int = 0
    shared: int = 0  # misses served by another document's identical text
    computed: int = 0  # NLP runs

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "shared": self.shared, "computed": self.computed}


class NoteCache(Generic[V]):
    """LRU mapping NoteKey -> processed value; `size` bounds the number of keys kept."""

    def __init__(self, size: int) -> None:
        self.size = max(0, size)
        self._entries: OrderedDict[NoteKey, V] = OrderedDict()
        self._by_hash: dict[str, V] = {}
        self.stats = CacheStats()

    def __len__(self) -> int:
        return len(self._entries)

    def get_or_compute(self, key: NoteKey, compute: Callable[[], V]) -> V:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
            self.stats.hits += 1
            return value
        value = self._by_hash.get(key.sha256)
        if value is None:
            value = compute()
            self.stats.computed += 1
        else:
            self.stats.shared += 1
        if self.size:
            self._entries[key] = value
            self._by_hash[key.sha256] = value
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            if len(self._by_hash) > 2 * self.size:
                live = {k.sha256 for k in self._entries}
                self._by_hash = {h: v for h, v in self._by_hash.items() if h in live}
        return value

    def clear(self) -> None:
        self._entries.clear()
        self._by_hash.clear()
