"""A bounded, expiring, in-memory key -> value store for SMART launches and sessions.

One store object per app (never a module global), so two apps in one process (tests, workers)
never see each other's launches. Entries expire on their own deadline; when the store is full
the entry closest to expiry goes first, so a flood of unfinished launches cannot grow memory.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["TtlStore", "new_token", "same_token", "token_hash"]

T = TypeVar("T")


def new_token() -> str:
    """An opaque, unguessable identifier (256 bits) for state values, sessions and CSRF tokens."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """SHA-256 of a token, hex: kept server-side where only a later comparison is needed, so a
    dump of the store does not hand out the browser's cookie."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_token(token: str | None, stored_hash: str) -> bool:
    """Whether `token` is the one whose hash was stored (constant-time comparison)."""
    return bool(token) and hmac.compare_digest(token_hash(token or ""), stored_hash)


class TtlStore(Generic[T]):
    def __init__(self, ttl_seconds: float, max_items: int, clock: Callable[[], float] = time.monotonic):
        self.ttl = ttl_seconds
        self.max_items = max_items
        self.clock = clock  # injectable so tests can expire entries without sleeping
        self._items: dict[str, tuple[float, T]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._purge()
            return len(self._items)

    def _purge(self) -> None:
        now = self.clock()
        for key in [k for k, (deadline, _) in self._items.items() if deadline <= now]:
            del self._items[key]

    def put(self, key: str, value: T, ttl_seconds: float | None = None) -> None:
        ttl = self.ttl if ttl_seconds is None else min(ttl_seconds, self.ttl)
        with self._lock:
            self._purge()
            while len(self._items) >= self.max_items:
                oldest = min(self._items, key=lambda k: self._items[k][0])
                del self._items[oldest]
            self._items[key] = (self.clock() + ttl, value)

    def get(self, key: str) -> T | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            if item[0] <= self.clock():
                del self._items[key]
                return None
            return item[1]

    def pop(self, key: str) -> T | None:
        """Take an entry out: a second use of the same key finds nothing (one-time `state`)."""
        with self._lock:
            item = self._items.pop(key, None)
        if item is None or item[0] <= self.clock():
            return None
        return item[1]

    def discard(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)
