"""The screening benchmark still runs (--quick: three patients, local engine, one run); checks
the JSON shape and the generated text only, never a time. A configuration that fails is
reported in the results, and the plan is generated from the rows that were measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench(benchmarks_on_path) -> ModuleType:
    import bench_screen

    return bench_screen


@pytest.mark.slow
def test_quick_screen_bench_writes_json_and_plan(shared_data: Path, tmp_path: Path) -> None:
    args = [sys.executable, str(REPO / "benchmarks" / "bench_screen.py"), "--quick", "--data", str(shared_data),
            "--out", str(tmp_path)]
    proc = subprocess.run(args, check=False, cwd=REPO / "benchmarks", capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "screen_bench.json").read_text())
    run = result["throughput"][0]
    assert "error" not in run, run
    assert run["engine"] == "local" and run["patients"] == 3 and run["ratio_to_local_1"] == 1.0
    assert run["session_total_mb"] >= run["largest_process_mb"] > 0 and result["floor"]["patients_per_s"] > 0
    assert run["session_peak_phase"] in run["session_peak_mb_by_phase"] and run["workers_seen"] == 1
    assert result["memory"][0]["rss_ratio_to_1x"] == 1.0 and len(result["load_average_at_start"]) == 3
    plan = result["million"]
    assert plan["workers"] >= 1 and plan["memory_per_worker_mb"] == run["session_total_mb"]
    text = (tmp_path / "SCREEN.md").read_text()
    assert f"= {plan['workers']} Ray actors" in text and f"{plan['worker_hours']} worker-hours" in text


def test_a_failing_configuration_is_reported_not_raised(bench, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    failed = bench._attempt("missing input", lambda: bench._run(tmp_path / "no-such-export", tmp_path / "out",
                                                                "local", 1, []))
    assert failed["error"].startswith("RuntimeError: exit 2")
    monkeypatch.setattr(bench, "RUN_SECONDS", 0)
    export = tmp_path / "export"
    export.mkdir()
    hung = bench._attempt("no time", lambda: bench._run(export, tmp_path / "late", "local", 1, []))
    assert hung["error"] == "RuntimeError: killed after 0 s (time limit)"
    ok = {"engine": "local", "workers": 1, "patients": 4, "patients_per_s": 0.5, "steady_patients_per_s": 1.0,
          "largest_process_mb": 600.0, "load_average_after": [1.0, 1.0, 1.0]}
    runs = [ok, {"engine": "ray", "workers": 2, **failed}]
    bench._ratios(runs)
    result = {"input": "x", "watchlist": "w", "cpus": 2, "load_average_at_start": [1.0, 1.0, 1.0],
              "floor": {"what": "parse", "seconds": 1.0, "patients_per_s": 4.0, "patients": 4}, "throughput": runs,
              "memory": [{"factor": 1, "population": 4, "spool_bytes_per_patient": 10, "patients": 4,
                          "session_total_mb": 600.0, "rss_ratio_to_1x": 1.0}]}
    result["million"] = bench.million_plan(result)
    assert result["million"]["from"] == "local x1 steady rate" and result["million"]["workers"] == 35
    text = bench.markdown(result)
    assert "RuntimeError: exit 2" in text and "= 35 Ray actors" in text


def test_a_benchmark_stopped_early_still_writes_its_report(bench, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> list[str]:
        raise OSError("disk full")

    monkeypatch.setattr(bench, "replicate_export", broken)
    result = bench.bench_screen(tmp_path)
    assert result["error"] == "OSError: disk full" and result["million"] == {
        "error": "no throughput or memory figure was measured in this run"}
    text = bench.markdown(result)
    assert "stopped early**: OSError: disk full" in text and "1 million patients**: not computed" in text


def test_the_steady_window_starts_when_every_worker_is_warm(bench) -> None:
    # worker 1 delivers from t=10 on; worker 2 (still building its pipeline) first at t=20, in a
    # burst with another of worker 1's results: the steady part is what follows that burst
    entries = [(10.0, 1), (11.0, 1), (12.0, 1), (20.0, 2), (20.1, 1), (21.0, 1), (21.5, 2), (22.0, 1), (22.5, 2)]
    assert bench._warm(entries) == 5
    assert bench._steady_window(entries) == (20.1, 22.8, 4)
    assert bench._steady(entries) == pytest.approx(4 / 2.4)
    one = [(10.0, 7), (11.0, 7), (12.0, 7), (13.0, 7)]
    assert bench._warm(one) == 1 and bench._steady(one) == pytest.approx(1.0)
