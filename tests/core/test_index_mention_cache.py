"""An index's cache of query-term note mentions is bounded, and what it evicts comes back the same."""

from __future__ import annotations

import base64

from medeventgraph.api import load, select_patient
from medeventgraph.core.index.patient_index import MENTION_CACHE_SIZE, build_index
from medeventgraph.model.settings import Settings

NOTE = "Day 2: acute kidney injury after vancomycin; creatinine rising."


def _bundle() -> dict:
    p = {"reference": "Patient/p"}
    note = {"resourceType": "DocumentReference", "id": "note", "status": "current", "subject": p,
            "date": "2024-01-03T10:00:00Z",
            "content": [{"attachment": {"contentType": "text/plain", "data": base64.b64encode(NOTE.encode()).decode()}}]}
    return {"resourceType": "Bundle", "type": "collection",
            "entry": [{"resource": {"resourceType": "Patient", "id": "p"}}, {"resource": note}]}


def test_mention_cache_keeps_at_most_its_bound(note_pipeline):
    settings = Settings()
    index = build_index(select_patient(load(_bundle(), settings=settings), None), settings, notes=note_pipeline)
    first = index.mentions_for([("creatinine", "creatinine", "lab")])
    assert first
    for i in range(MENTION_CACHE_SIZE + 20):  # ever new questions on one cached chart
        index.mentions_for([(f"word{i}", f"concept{i}", None)])
        assert len(index._mention_cache) <= MENTION_CACHE_SIZE
    assert index.mentions_for([("creatinine", "creatinine", "lab")]) == first  # evicted, recomputed the same
