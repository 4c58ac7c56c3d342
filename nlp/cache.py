"""A small LRU of processed notes keyed by document id + version + attachment + content hash.

Identical texts (Synthea writes each note as a DocumentReference and again as a
DiagnosticReport.presentedForm) share one processed doc through a content-hash index.

Bounded twice: `size` keys, and `max_chars` characters of distinct text held (a processed note
costs ~100-150 bytes of memory per character of its text: benchmarks/soak_probe.py). The
content-hash index holds only texts some live key still points to, so what is held is what the
keys hold: an evicted key's processed note is freed with its last key.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["NoteCache", "NoteKey", "content_hash"]

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
class _CacheStats:
    hits: int = 0
    shared: int = 0  # misses served by another document's identical text
    computed: int = 0  # NLP runs

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "shared": self.shared, "computed": self.computed}


@dataclass(slots=True)
class _Held(Generic[V]):
    value: V
    chars: int
    keys: int  # live keys pointing at this text


class NoteCache(Generic[V]):
    """LRU mapping NoteKey -> processed value; at most `size` keys and `max_chars` characters
    (`chars(value)`, summed over distinct texts; None: no character bound). A value larger than
    `max_chars` on its own is computed and returned, not kept."""

    def __init__(self, size: int, *, max_chars: int | None = None,
                 chars: Callable[[V], int] | None = None) -> None:
        if max_chars is not None and chars is None:
            raise ValueError("max_chars needs chars(value)")
        self.size = max(0, size)
        self.max_chars = max_chars
        self._chars = chars or (lambda _: 0)
        self._entries: OrderedDict[NoteKey, _Held[V]] = OrderedDict()
        self._by_hash: dict[str, _Held[V]] = {}
        self.held_chars = 0
        self.stats = _CacheStats()

    def __len__(self) -> int:
        return len(self._entries)

    def texts(self) -> int:
        """Distinct texts held (at most len(self))."""
        return len(self._by_hash)

    def get_or_compute(self, key: NoteKey, compute: Callable[[], V]) -> V:
        held = self._entries.get(key)
        if held is not None:
            self._entries.move_to_end(key)
            self.stats.hits += 1
            return held.value
        held = self._by_hash.get(key.sha256)
        if held is None:
            value = compute()
            self.stats.computed += 1
            n = self._chars(value)
            if not self.size or (self.max_chars is not None and n > self.max_chars):
                return value
            held = self._by_hash[key.sha256] = _Held(value, n, 0)
            self.held_chars += n
        else:
            self.stats.shared += 1
        held.keys += 1
        self._entries[key] = held
        while len(self._entries) > self.size or (self.max_chars is not None and self.held_chars > self.max_chars):
            self._release(*self._entries.popitem(last=False))
        return held.value

    def _release(self, key: NoteKey, held: _Held[V]) -> None:
        held.keys -= 1
        if not held.keys:
            del self._by_hash[key.sha256]
            self.held_chars -= held.chars

    def clear(self) -> None:
        self._entries.clear()
        self._by_hash.clear()
        self.held_chars = 0
