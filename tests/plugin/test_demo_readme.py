"""The README's `make demo` table is what the demo prints: each quoted row is one of its rows."""

from __future__ import annotations

import re
from pathlib import Path

from medeventgraph.demo import main as demo

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_rows() -> list[str]:
    section = README.read_text().split("## What `make demo` shows", 1)[1]
    block = section.split("```", 2)[1]
    return [" ".join(line.split()) for line in block.splitlines()[1:] if line.strip() and line.strip() != "..."]


def test_readme_demo_rows_are_printed_by_the_demo(tmp_path, capsys):
    assert demo(["--out", str(tmp_path / "verdicts.jsonl")]) == 0
    printed = {" ".join(line.split()) for line in capsys.readouterr().out.splitlines()}
    rows = _readme_rows()
    assert len(rows) >= 4 and re.match(r"query scope verdict S\+ S- failure citations", rows[0])
    missing = [row for row in rows if row not in printed]
    assert not missing, f"README rows the demo does not print: {missing}"
