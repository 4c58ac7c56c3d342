"""Card feedback as JSON lines: ids, outcomes and reason codes only, never free text."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from pathlib import Path

import orjson

from .models import FeedbackItem

__all__ = ["FeedbackLog"]

log = logging.getLogger("medeventgraph.cds_hooks")


class FeedbackLog:
    def __init__(self, path: Path | None):
        self.path = path
        self._lock = threading.Lock()

    def append(self, service: str, items: list[FeedbackItem]) -> int:
        if self.path is None:
            return 0
        now = datetime.now(UTC).isoformat(timespec="seconds")
        lines = []
        for item in items:
            reason = item.overrideReason or {}
            coding = reason.get("reason") if isinstance(reason.get("reason"), dict) else {}
            row = {
                "received": now,
                "service": service,
                "card": item.card,
                "outcome": item.outcome,
                "outcomeTimestamp": item.outcomeTimestamp,
                # userComment is free text a clinician typed: possibly PHI, so never stored
                "overrideReason": {k: coding.get(k) for k in ("system", "code") if isinstance(coding.get(k), str)}
                or None,
                "acceptedSuggestions": [s.get("id") for s in item.acceptedSuggestions or []
                                        if isinstance(s, dict) and isinstance(s.get("id"), str)],
            }
            lines.append(orjson.dumps(row) + b"\n")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("ab") as fh:
                fh.writelines(lines)
        return len(lines)
