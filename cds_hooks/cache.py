"""A bounded, thread-safe LRU of built patient indexes keyed by (patient, content hash).

Hooks fire again and again on one chart (patient-view, then order-select on each keystroke);
the record rarely changes between calls, so the index built from identical content is reused.
A change anywhere in the record changes the hash, so a stale index is never served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["IndexCache"]

T = TypeVar("T")


class IndexCache(Generic[T]):
    def __init__(self, max_size: int):
        self.max_size = max_size
        self._items: OrderedDict[tuple[str, str], T] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[tuple[str, str], threading.Lock] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get_or_build(self, patient: str, content_hash: str, build: Callable[[], T]) -> T:
        key = (patient, content_hash)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            # One build per key at a time: concurrent hooks for one chart wait, not rebuild.
            gate = self._building.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    self.hits += 1
                    return self._items[key]
            try:
                value = build()
            except BaseException:
                # a refused or abandoned build leaves nothing behind (its gate included)
                with self._lock:
                    self._building.pop(key, None)
                raise
            with self._lock:
                self.misses += 1
                self._items[key] = value
                self._items.move_to_end(key)
                while len(self._items) > self.max_size:
                    self._items.popitem(last=False)
                self._building.pop(key, None)
            return value

    def building(self) -> int:
        """Builds in progress (or waited on); for tests and the soak benchmark."""
        with self._lock:
            return len(self._building)
