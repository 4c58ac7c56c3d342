"""`medeventgraph screen` argument errors: a FHIR OperationOutcome on stderr, exit status 2."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from medeventgraph.cli.main import main

from .conftest import WATCHLIST


def test_missing_input_is_an_operation_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["screen", "--input", str(tmp_path / "nope"), "--watchlist", str(WATCHLIST),
                 "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 2
    outcome = orjson.loads(capsys.readouterr().err)
    assert outcome["resourceType"] == "OperationOutcome" and "no such file or folder" in outcome["issue"][0]["diagnostics"]


def test_workers_must_be_positive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["screen", "--input", str(tmp_path), "--watchlist", str(WATCHLIST), "--out", str(tmp_path / "o"),
                 "--workers", "0"])
    assert code == 2 and "--workers" in capsys.readouterr().err
