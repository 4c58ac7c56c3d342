"""The NotePipeline example of docs/notes.md (moved there from the README) runs verbatim and
prints what it says."""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from pathlib import Path

NOTES = Path(__file__).resolve().parents[2] / "docs" / "notes.md"


def test_readme_note_pipeline_example(tmp_path):
    section = NOTES.read_text(encoding="utf-8").split("# Clinical notes", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    assert "NotePipeline()" in code
    out = io.StringIO()
    script = tmp_path / "readme_example.py"
    script.write_text(code, encoding="utf-8")
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(script), run_name="__main__")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert "negated=True" in lines[0] and "historical=False" in lines[0]
    assert "historical=True" in lines[1] and "negated=False" in lines[1]
