"""The soak's warm-up fills the service's bounded caches before the clock starts (never a time):
enough fresh records for the index cache and for the note cache's first bound to bind."""

from __future__ import annotations

from types import ModuleType

import pytest
from medeventgraph.model.settings import Settings


@pytest.fixture(scope="module")
def soak(benchmarks_on_path) -> ModuleType:
    import bench_soak

    return bench_soak


def test_warmup_fills_index_and_note_caches(soak):
    s = Settings(graph_cache_size=32, note_cache_size=2048, note_cache_chars=2_000_000)
    n = soak.warmup_records(s, note_chars=53_000, notes=36, seconds=600)
    assert n * 53_000 > s.note_cache_chars and n > s.graph_cache_size  # the character bound binds
    n = soak.warmup_records(s, note_chars=200_000, notes=1000, seconds=600)
    assert n * 1000 > s.note_cache_size and n > s.graph_cache_size  # the note bound binds first
    assert soak.warmup_records(s, note_chars=1_000, notes=2, seconds=600) == soak._WARMUP_MAX
    assert soak.warmup_records(s, note_chars=53_000, notes=36, seconds=6) == s.graph_cache_size  # smoke run
