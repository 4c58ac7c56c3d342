"""EVAL.md is written from eval.json alone: the report needs no method module imported first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "results" / "eval.json"

_SCRIPT = """
import sys
from pathlib import Path
import orjson
from medeventgraph.evaluation.report import write_report
res = orjson.loads(Path(sys.argv[1]).read_bytes())
print(write_report(res, Path(sys.argv[2])))
"""


def test_report_from_results_file_in_a_fresh_interpreter(tmp_path):
    # A fresh interpreter: nothing has imported the method modules that fill the registry.
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(RESULTS), str(tmp_path)],
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    md = (tmp_path / "EVAL.md").read_text()
    assert "| B6 MedEventGraph" in md and "## The budgeted search against B6" in md


def _t11(dense_installed: bool) -> dict:
    row = {"ba": 0.5, "fsr": 0.0, "sup_recall": 0.0, "same_as_reference": 2}
    return {"n": 2, "patients": 1, "positives": 1, "dense_installed": dense_installed,
            "methods": {"B6": row, "S20-dense": row, "S20-dense-generic": row}}


def test_t11_says_when_its_dense_rows_ran_without_the_dense_extra():
    from medeventgraph.evaluation.report import _t11_section

    warning = "The dense extra was not installed in this run"
    assert warning in "\n".join(_t11_section(_t11(dense_installed=False)))
    assert warning not in "\n".join(_t11_section(_t11(dense_installed=True)))
