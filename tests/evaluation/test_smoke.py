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
    assert "20 candidates" in res["meta"]["budget"]
    for proto in ("T3", "T5"):
        assert "B6" in res["protocols"][proto]["methods"]
    md = (tmp_path / "EVAL.md").read_text()
    assert "## T3" in md and "FSR" in md and "## What the search adds" in md
    ab = res["ablations"]["T3"]["methods"]
    assert {"B6", "B6-ppr-off", "B6-retrieval-off", "B6-topb-off", "B6-exhaustive-off", "exhaustive"} <= set(ab)
    assert "B6 without" not in md.split("## T3")[1].split("\n## ")[0]  # ablations are not peers
    assert (tmp_path / "ba_by_protocol.png").exists()
    n1 = res["standalone"]["N1"]  # the labelled MTSamples questions, both splits, in the smoke size too
    assert set(n1["splits"]) == {"train", "check"} and n1["all"]["n"] == len(n1["rows"]) > 0
    assert "### N1 per reason, `check`" in md and "events found" in md
