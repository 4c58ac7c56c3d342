"""A worker's Screener is built once, then the heap is frozen (gc.freeze), so full collections no
longer walk the note pipeline's long-lived objects for every patient."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from medeventgraph.model.settings import Settings
from medeventgraph.screen import patient
from medeventgraph.screen.watch import load_items

WATCHLIST = Path(__file__).resolve().parents[2] / "cds_hooks" / "resources" / "watchlist.json"


class _Collector:
    """Records what the worker asks of the garbage collector, in order (the test's own heap stays unfrozen)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def collect(self) -> int:
        self.calls.append("collect")
        return 0

    def freeze(self) -> None:
        self.calls.append("freeze")


def test_the_worker_freezes_its_heap_after_building_the_pipeline(note_pipeline: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import medeventgraph.api

    built: list[Any] = []

    def make(settings: Settings) -> Any:
        built.append(settings)
        return note_pipeline

    collector = _Collector()
    monkeypatch.setattr(medeventgraph.api, "make_note_pipeline", make)
    monkeypatch.setattr(patient, "gc", collector)
    screener = patient.worker_screener(load_items(WATCHLIST), Settings(), {})
    assert screener.notes is note_pipeline and len(built) == 1
    assert collector.calls == ["collect", "freeze"]
