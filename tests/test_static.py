"""Lint and type-check every package (STYLE.md: ruff, mypy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)


def test_ruff_is_clean():
    done = _run(str(BIN / "ruff"), "check", "model", "plugin", "wording", "core", "fhir_adapters", "nlp", "cds_hooks", "benchmarks",
               "tests")
    assert done.returncode == 0, done.stdout + done.stderr


def test_packages_type_check():
    done = _run(str(BIN / "mypy"), "model", "core", "plugin", "wording", "cds_hooks", "fhir_adapters", "nlp")
    assert done.returncode == 0, done.stdout + done.stderr
