"""The benchmark still runs: --quick on one small bundle, 1 repeat; checks the JSON shape only
(never a time: timings belong to the benchmark, not to tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_bench_writes_json_and_report(shared_data: Path, tmp_path: Path) -> None:
    small = min((shared_data / "synthea").glob("Stanton*.json"), default=None)
    args = [sys.executable, str(REPO / "benchmarks" / "run_bench.py"), "--quick", "--repeats", "1",
            "--data", str(shared_data), "--out", str(tmp_path)]
    if small is not None:
        args += ["--bundle", small.name]
    proc = subprocess.run(args, check=False, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "bench.json").read_text())
    assert result["quick"] is True and result["repeats"] == 1
    for section in ("ingest", "notes", "nlp", "query", "hook", "controller", "growth", "html", "soak"):
        assert section in result, section
    for pipeline in ("current", "baseline", "medspacy_vanilla", "medspacy_sentencizer"):
        assert "words_per_s" in result["nlp"][pipeline]["cold"], pipeline
    assert {"cold", "cached"} <= set(result["nlp"]["current_over_baseline_words_per_s"])
    assert "cold_words_per_s" in result["nlp"]["current_over_medspacy_sentencizer"]
    assert "ratio_4x" in result["nlp"]["linear_time"]["html_paragraphs"]
    row = result["ingest"][0]
    for stage in ("parse", "ingest", "build", "ingest_and_build"):
        assert {"median", "min", "max"} <= set(row[stage]["seconds"])
        assert "ratio_to_parse" in row[stage] and "resources_per_s" in row[stage]
    assert {"words_per_s", "notes_per_s"} <= set(result["notes"]["pipeline_cold"])
    for label in ("notes_off", "notes_on"):
        for qtype in ("pairwise", "compositional", "hidden"):
            assert {"median", "p95"} <= set(result["query"][label][qtype]["warm_seconds"])
    for hook in ("medeventgraph-verify", "patient-view"):
        assert {"median", "p95"} <= set(result["hook"][hook]["cold_seconds"])
        assert {"median", "p95"} <= set(result["hook"][hook]["warm_seconds"])
    rows = result["growth"]["rows"]
    assert [r["factor"] for r in rows] == [1, 2]
    assert rows[1]["resources"] > rows[0]["resources"]
    assert rows[1]["occurrences"] > rows[0]["occurrences"]
    assert "peak_memory_mb" in rows[0] and "build" in rows[1]["ratio_to_1x"]
    report = (tmp_path / "BENCH.md").read_text()
    assert "## Targets" in report and "bench_growth.png" in report
    assert "## Note NLP throughput" in report
    assert (tmp_path / "bench_growth.png").stat().st_size > 0
    assert {"80000", "1000000"} <= set(result["html"]["shapes"]["paragraphs"]["ratio_to_20k"]["cpu"])
    soak = result["soak"]
    assert soak["calls"] > 0 and set(soak["ratio_last_to_first"]) == {"latency_median", "latency_p95",
                                                                       "calls_per_s", "rss_median"}
    assert "memory_per_request_kb" in soak and (tmp_path / "soak.json").is_file()
    assert soak["every_call_answered"] and soak["errors_total"] == 0, soak["statuses"]
    assert soak["largest_body_bytes"] <= soak["max_request_bytes"]
    assert "## Soak" in report and "## HTML stripping" in report and "## Budgeted search against the default path" in report
    assert result["controller"]["queries"] and (tmp_path / "controller_bench.json").is_file()
