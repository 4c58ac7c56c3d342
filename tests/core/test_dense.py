"""Dense channel (the `dense` extra): skipped cleanly when it is not installed."""

from __future__ import annotations

import pytest
from medeventgraph.core.retrieval.dense_backend import dense_available, make_dense

pytestmark = pytest.mark.skipif(not dense_available(), reason="the dense extra is not installed")


def test_minilm_ranks_by_meaning_and_caches(tmp_path):
    index = make_dense("minilm", tmp_path)
    assert index is not None
    index.build([("a", "medication norepinephrine"), ("b", "condition sepsis"), ("c", "lab hemoglobin")])
    assert index.search("septic infection", 1)[0][0] == "b"
    assert any((tmp_path / "dense").iterdir())
    again = make_dense("minilm", tmp_path)
    again.build([("b", "condition sepsis")])
    assert again.search("sepsis", 1)[0][0] == "b"
