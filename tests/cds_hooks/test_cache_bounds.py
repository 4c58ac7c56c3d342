"""The service's caches stay within their bounds: built indexes (graph_cache_size) and processed
notes (note_cache_size keys, note_cache_chars characters of text)."""

from __future__ import annotations

import base64
import gc
import weakref

from medeventgraph.cds_hooks.cache import IndexCache
from medeventgraph.cds_hooks.engine import Engine
from medeventgraph.fhir_adapters import ingest_json
from medeventgraph.model.settings import Settings


class Built:
    pass


def test_index_cache_frees_what_it_evicts():
    cache: IndexCache[Built] = IndexCache(3)
    refs = [weakref.ref(cache.get_or_build("Patient/p", f"hash{i}", Built)) for i in range(10)]
    gc.collect()
    assert len(cache) == 3 and cache.building() == 0
    assert [r() is not None for r in refs] == [False] * 7 + [True] * 3


def _notes(n: int) -> list:
    p = {"reference": "Patient/p"}
    entries = [{"resource": {"resourceType": "Patient", "id": "p"}}]
    for i in range(n):
        text = f"Day {i}: acute kidney injury after vancomycin."
        entries.append({"resource": {"resourceType": "DocumentReference", "id": f"n{i}", "status": "current",
                                     "subject": p, "date": "2024-01-03T10:00:00Z",
                                     "content": [{"attachment": {"contentType": "text/plain",
                                                                 "data": base64.b64encode(text.encode()).decode()}}]}})
    return ingest_json({"resourceType": "Bundle", "type": "collection", "entry": entries}, source_name="t").documents


def test_note_cache_takes_the_service_bounds():
    engine = Engine(Settings(jwt_required=False, note_cache_size=100, note_cache_chars=100))
    try:
        pipeline = engine.note_pipeline()
        assert (pipeline.cache.size, pipeline.cache.max_chars) == (100, 100)
        documents = _notes(12)
        for document in documents:  # 12 notes of ~45 characters: the character bound decides
            pipeline.process(document, document.texts[0])
        assert 0 < pipeline.cache.held_chars <= 100 and len(pipeline.cache) == 2
    finally:
        engine.close()
