"""The one-command evaluation, in its smoke size, end to end (writes eval.json and EVAL.md)."""

from __future__ import annotations

import orjson
from medeventgraph.evaluation import main


def test_smoke_run_writes_report(shared_data, tmp_path):
    assert main(["--smoke", "--quiet", "--data", str(shared_data), "--out", str(tmp_path), "--replicates", "50"]) == 0
    res = orjson.loads((tmp_path / "eval.json").read_bytes())
    assert res["meta"]["smoke"] and res["meta"]["n_queries"] > 0
    assert res["audit"]["all_pass"]["pass"]
    assert not res["thresholds"]["frozen"]  # a smoke run never writes thresholds.json
    assert "20 candidates" in res["meta"]["budget"] and "B6 (every grounded occurrence) have no budget" in res["meta"]["budget"]
    for proto in ("T3", "T5"):
        assert "B6" in res["protocols"][proto]["methods"]
    md = (tmp_path / "EVAL.md").read_text()
    assert "## T3" in md and "FSR" in md and "## The budgeted search against B6" in md
    ab = res["ablations"]["T3"]["methods"]
    assert {"B6", "S5", "S10", "S20", "S40", "S20-ppr-off", "S20-retrieval-off", "S20-topb-off",
            "S20-replan-off"} <= set(ab)
    assert all(v["bundle"] <= 20 for m, v in ab.items() if m.startswith("S20"))  # the budget is what it says
    assert all(res["bundle_size"][m] <= 20 for m in ("B2", "B4", "B5", "hipporag2", "lightrag", "kg2rag"))
    assert "search alone" not in md.split("## T3")[1].split("\n## ")[0]  # search rows are not peers
    assert set(res["dropped_pair"]["T3"]["methods"]) >= {"S5", "S20"}
    assert (tmp_path / "ba_by_protocol.png").exists()
    n1 = res["standalone"]["N1"]  # the labelled MTSamples questions, both splits, in the smoke size too
    assert set(n1["splits"]) == {"train", "check"} and n1["all"]["n"] == len(n1["rows"]) > 0
    assert "### N1 per reason, `check`" in md and "events found" in md
