"""The screening benchmark still runs (--quick: three patients, local engine, one run); checks
the JSON shape and the generated text only, never a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_screen_bench_writes_json_and_plan(shared_data: Path, tmp_path: Path) -> None:
    args = [sys.executable, str(REPO / "benchmarks" / "bench_screen.py"), "--quick", "--data", str(shared_data),
            "--out", str(tmp_path)]
    proc = subprocess.run(args, check=False, cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "screen_bench.json").read_text())
    run = result["throughput"][0]
    assert run["engine"] == "local" and run["patients"] == 3 and run["ratio_to_local_1"] == 1.0
    assert run["peak_rss_mb"] > 0 and result["floor"]["patients_per_s"] > 0
    assert result["memory"][0]["rss_ratio_to_1x"] == 1.0
    plan = result["million"]
    assert plan["workers"] >= 1 and plan["memory_per_worker_mb"] == run["peak_rss_mb"]
    assert f"{plan['workers']} Ray workers" in (tmp_path / "SCREEN.md").read_text()
