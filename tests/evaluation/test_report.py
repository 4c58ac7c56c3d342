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
