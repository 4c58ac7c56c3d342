"""The per-patient function both engines run: one patient's spooled rows -> one line per item.

Rows are sorted by key and location first, so the ingest sees the same resources in the same
order whichever engine grouped them: the same input gives the same bundles and verdicts.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from medeventgraph.core import Verdict, answer, build_index
from medeventgraph.fhir_adapters.ingest import ingest_items
from medeventgraph.fhir_adapters.reader import RawItem
from medeventgraph.model.settings import Settings

from .watch import WatchItem, item_verdict
from .wording import finding_words

__all__ = ["PatientResult", "PatientRow", "Screener", "worker_screener"]

_SHARED_REF = re.compile(rb'"reference"\s*:\s*"(Medication/[^"]+)"')
_EVIDENCE_CHARS = 240


@dataclass(frozen=True, slots=True)
class PatientRow:
    key: str
    full_url: str | None
    loc: str
    json: bytes


@dataclass(frozen=True, slots=True)
class PatientResult:
    patient: str
    lines: tuple[dict[str, Any], ...]
    issues: tuple[str, ...]  # diagnostics: file, line, rule; never values
    worker: int = 0  # the screening process's pid: lets the benchmark find when every worker is warm


def _evidence(v: Verdict) -> list[dict[str, Any]]:
    deciding = [e for e in v.evidence if e.polarity in ("supports", "counters")]
    return [{"reference": e.source.reference + (f"#s{e.source.start}-{e.source.end}" if e.source.start is not None
                                                 else ""),
             "kind": e.kind, "origin": e.origin, "concept": e.concept, "polarity": e.polarity,
             "time": e.time.start, "context": e.context[:_EVIDENCE_CHARS]} for e in deciding]


class Screener:
    """Holds what is built once per worker (settings, note pipeline, items, shared resources)."""

    def __init__(self, items: list[WatchItem], settings: Settings, notes: Any,
                 shared: Mapping[str, bytes] | None = None):
        self.items, self.settings, self.notes = items, settings, notes
        self.shared = shared or {}

    def screen(self, patient: str, rows: Iterable[PatientRow]) -> PatientResult:
        ordered = sorted(rows, key=lambda r: (r.key, r.loc))
        raw = [RawItem(orjson.loads(r.json), r.loc, r.full_url) for r in ordered]
        have = {r.key for r in ordered}
        wanted = sorted({m.decode() for r in ordered for m in _SHARED_REF.findall(r.json)} - have)
        raw.extend(RawItem(orjson.loads(self.shared[k]), "shared " + k, None) for k in wanted if k in self.shared)
        result = ingest_items(raw, max_note_chars=self.settings.max_note_chars)
        issues = tuple(i.diagnostics for i in result.issues if i.severity in ("fatal", "error"))
        record = result.for_patient(patient)
        index = build_index(record, self.settings, notes=self.notes)
        lines = tuple(self._item_line(patient, item, index) for item in self.items)
        return PatientResult(patient, lines, issues, os.getpid())

    def _item_line(self, patient: str, item: WatchItem, index: Any) -> dict[str, Any]:
        answers = [answer(index, q, self.settings, question=question) for q, question in item.asked()]
        label, at = item_verdict([a.verdict.verdict.value for a in answers])
        decided = answers[at].verdict
        words = finding_words(decided, answers[at].query) if label in ("supported", "conflicting") else None
        return {
            "patient": patient, "item": item.id, "title": item.title, "verdict": label,
            "failure": decided.failure.value if decided.failure is not None and label != "supported" else None,
            "citations": list(decided.citations), "bundle_hash": decided.bundle_hash,
            "query": decided.id,
            "alternatives": [{"query": v.id, "verdict": v.verdict.value, "bundle_hash": v.bundle_hash}
                             for v in (a.verdict for a in answers)],
            "evidence": _evidence(decided),
            "finding": words,
            **({"read_as": dict(answers[at].read_as)} if answers[at].read_as else {}),
        }


def worker_screener(items: list[WatchItem], settings: Settings, shared: Mapping[str, bytes] | None = None) -> Screener:
    """A worker's Screener, its note pipeline built once; then the heap is frozen.

    The pipeline is a quarter of a million long-lived objects (vocabulary, matchers, rules) that
    every full garbage collection would walk again, for every patient: gc.freeze() moves them out
    of the collector's reach. Nothing that decides a verdict changes: frozen objects are only never
    collected, and they live as long as the worker anyway."""
    from medeventgraph.api import make_note_pipeline

    screener = Screener(items, settings, make_note_pipeline(settings), shared)
    gc.collect()
    gc.freeze()
    return screener
