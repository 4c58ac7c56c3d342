"""Card feedback as JSON lines: ids, outcomes and reason codes only, never free text."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from pathlib import Path

import orjson
from medeventgraph.cds_hooks.feedback_models import FeedbackItem

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
            # Only validated ids, enum values, codes and instants (feedback_models.py); the
            # reason's display and the userComment a clinician typed may be PHI: never stored.
            coding = item.overrideReason.reason if item.overrideReason else None
            row = {
                "received": now,
                "service": service,
                "card": item.card,
                "outcome": item.outcome,
                "outcomeTimestamp": item.outcomeTimestamp,
                "overrideReason": {"system": coding.system, "code": coding.code} if coding else None,
                "acceptedSuggestions": [s.id for s in item.acceptedSuggestions or []],
            }
            lines.append(orjson.dumps(row) + b"\n")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("ab") as fh:
                fh.writelines(lines)
        return len(lines)
