"""Shared fixtures: where the example and shared data live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not beside this checkout")
    return SHARED_DATA


@pytest.fixture(scope="session")
def synthea_dir(shared_data: Path) -> Path:
    return shared_data / "synthea"


@pytest.fixture(scope="session")
def note_pipeline():
    """The medspaCy note pipeline, built once per test session (it is the slow part)."""
    from medeventgraph.nlp import NotePipeline

    return NotePipeline()
