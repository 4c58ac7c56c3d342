"""Procedural memory distilled from dev-split failures: data with counts and provenance."""

from __future__ import annotations

import orjson
import pytest
from medeventgraph.core.memory import MemoryRefused, load_memory
from medeventgraph.evaluation import main


def test_distill_memory_writes_loadable_counted_policies(shared_data, tmp_path):
    out = tmp_path / "memory.json"
    assert main(["distill-memory", "--smoke", "--data", str(shared_data), "--out", str(out)]) == 0
    doc = orjson.loads(out.read_bytes())
    assert doc["provenance"]["split"] == "dev" and doc["provenance"]["queries"] > 0
    for p in doc["policies"]:
        ev = p["evidence"]
        assert ev["fixed"] > ev["broke"] and ev["wrong"] <= ev["seen"]
    assert len(load_memory(out)) == len(doc["policies"])


@pytest.mark.parametrize("provenance", [
    {"split": "test", "protocols": ["T5"], "queries": 3, "seed": 7, "distilled": "2026-12-01",
     "command": "python -m medeventgraph.evaluation distill-memory"},
    {"split": "dev", "protocols": ["T5"], "queries": 3, "seed": 7, "distilled": "2026-12-01",
     "command": "python -m medeventgraph.evaluation distill-memory", "patient": "pt-51e7620acf86"},
    {"split": "dev", "protocols": ["Patient/pt-51e7620acf86"], "queries": 3, "seed": 7, "distilled": "2026-12-01",
     "command": "python -m medeventgraph.evaluation distill-memory"},
])
def test_memory_with_anything_but_dev_counts_is_refused(tmp_path, provenance):
    path = tmp_path / "m.json"
    path.write_bytes(orjson.dumps({"version": 1, "policies": [], "provenance": provenance}))
    with pytest.raises(MemoryRefused):
        load_memory(path)
