"""`run_bench.py --merge`: a run of some sections keeps the others from bench.json, and every
section says the commit it was measured at (BENCH.md prints it); never a time."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bench(benchmarks_on_path) -> tuple[ModuleType, ModuleType]:
    import report
    import run_bench

    return run_bench, report


def _env(commit: str) -> dict:
    return {"commit": commit, "date": f"{commit}-date", "load_average_at_start": [0.1, 0.2, 0.3]}


def test_merge_keeps_unmeasured_sections_with_their_commit(bench):
    run_bench, report = bench
    kept = {"environment": _env("old"), "html": {"x": 1}, "hook": {"old": True}}
    result = {"environment": _env("new"), "hook": {"new": True}}
    run_bench._merge(result, kept, ["hook"])
    assert result["hook"] == {"new": True} and result["html"] == {"x": 1}
    assert result["section_environment"]["hook"]["commit"] == "new"
    assert result["section_environment"]["html"]["commit"] == "old"
    line = report._origins(result)[0]
    assert "this run measured hook" in line and "html: commit old" in line and "hook: commit new" in line
    again = {"environment": _env("newer"), "nlp": {}}
    run_bench._merge(again, result, ["nlp"])  # a section keeps the commit it was measured at
    assert again["section_environment"]["html"]["commit"] == "old"
    assert again["section_environment"]["hook"]["commit"] == "new"


def test_first_call_line_says_what_start_up_paid(bench) -> None:
    _, report = bench
    old = report._first_call({"first_call_after_start_seconds": 4.4})
    assert "imports, pipeline set-up" in old and "4.40 s" in old
    warmed = report._first_call({"first_call_after_start_seconds": 2.2, "start_up_seconds": 9.1})
    assert "Start-up" in warmed and "9.10 s" in warmed and "2.20 s" in warmed and "pipeline set-up)" not in warmed
