"""Dense channel (the `dense` extra): skipped without it on a developer machine, required under CI."""

from __future__ import annotations

import pytest
from medeventgraph.core.index.retrieval.dense_backend import dense_available, make_dense

from ..conftest import missing


@pytest.fixture(autouse=True)
def _dense_extra() -> None:
    if not dense_available():
        missing("the dense extra is not installed (make test installs it)")


def test_minilm_ranks_by_meaning_and_caches(tmp_path):
    index = make_dense("minilm", tmp_path)
    assert index is not None
    index.build([("a", "medication norepinephrine"), ("b", "condition sepsis"), ("c", "lab hemoglobin")])
    assert index.search("septic infection", 1)[0][0] == "b"
    assert any((tmp_path / "dense").iterdir())
    again = make_dense("minilm", tmp_path)
    again.build([("b", "condition sepsis")])
    assert again.search("sepsis", 1)[0][0] == "b"
