"""The JWT replay cache: which `(iss, jti)` pairs were already accepted, until they expire."""

from __future__ import annotations

import heapq
import logging
import threading
import time

__all__ = ["ReplayCache"]

log = logging.getLogger("medeventgraph.cds_hooks")


class ReplayCache:
    """`(iss, jti)` pairs seen, each kept until its token's `exp` (plus leeway) has passed.

    Bounded by `max_entries`. Entries free themselves at expiry, and accepted lifetimes are
    capped (`jwt_max_lifetime_seconds`), so the cache holds at most the tokens accepted within
    one lifetime. If the bound is still reached, the entry closest to its expiry is forgotten to
    make room: a *new* token is refused only when its own `(iss, jti)` was seen. Refusing new
    tokens instead (as before) let anyone with an accepted token stream lock out every caller;
    forgetting the soonest-expiring entry opens, only under that flood, a replay window no longer
    than that token's remaining life, for a token that must still match `aud` exactly. A warning
    (no ids) says when it happens, so the bound can be raised.
    """

    def __init__(self, max_entries: int = 100_000, *, leeway: float = 0.0):
        self._seen: dict[tuple[str, str], float] = {}
        self._by_expiry: list[tuple[float, tuple[str, str]]] = []  # heap, one item per entry
        self._max = max_entries
        self._leeway = leeway
        self._lock = threading.Lock()
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._seen)

    def _forget_oldest(self) -> None:
        _, key = heapq.heappop(self._by_expiry)
        del self._seen[key]

    def check_and_add(self, iss: str, jti: str, exp: float, *, now: float | None = None) -> bool:
        """True for a first use (recorded); False for a replay."""
        now = time.time() if now is None else now
        key = (iss, jti)
        with self._lock:
            while self._by_expiry and self._by_expiry[0][0] + self._leeway < now:
                self._forget_oldest()
            if key in self._seen:
                return False
            if len(self._seen) >= self._max:
                self._forget_oldest()
                self.evicted += 1
                if self.evicted == 1 or self.evicted % 10_000 == 0:
                    log.warning("replay cache full (%d live tokens): forgetting the soonest-expiring; "
                                "raise MEG_JWT_REPLAY_CACHE_SIZE", self._max)
            self._seen[key] = exp
            heapq.heappush(self._by_expiry, (exp, key))
            return True
