"""Shared fixtures: where the example and shared data live."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
BUNDLED_DATA = REPO / "tests" / "data"  # small attributed copies: every test runs from the clone alone
SERVER_DIR = REPO / "tools" / "fhir-test-server"
CDS_TEST_DATA = REPO / "tests" / "cds_hooks" / "data"  # two small patients with the pairs Synthea lacks


def shared_data_root() -> Path | None:
    """`../shared/data` beside the checkout, when present; `MEG_TEST_SHARED_DATA=off` hides it, so
    CI can prove the suite runs from the bundled data alone (another path points elsewhere)."""
    setting = os.environ.get("MEG_TEST_SHARED_DATA", "")
    if setting == "off":
        return None
    root = Path(setting) if setting else REPO.parent / "shared" / "data"
    return root if root.is_dir() else None


def data_source(name: str) -> Path:
    """One data source's folder: the fuller shared copy when present, else the bundled one."""
    shared = shared_data_root()
    if shared is not None and (shared / name).is_dir():
        return shared / name
    bundled = BUNDLED_DATA / name
    if not bundled.is_dir():
        missing(f"test data {name!r} is neither in ../shared/data nor in tests/data")
    return bundled


def missing(reason: str) -> None:
    """A test input or tool is absent: skip on a developer's machine, but fail under CI,
    where `make test` installs everything and ../shared sits beside the clone, so that a
    missing install step can never pass as a skip."""
    if os.environ.get("CI"):
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """A data root laid out like ../shared/data (synthea/, clinosim/, …): the shared one when
    present, else tests/data."""
    return shared_data_root() or BUNDLED_DATA


@pytest.fixture(scope="session")
def synthea_dir() -> Path:
    return data_source("synthea")


@pytest.fixture(scope="session")
def clinosim_dir() -> Path:
    return data_source("clinosim") / "fhir_r4"


@pytest.fixture(scope="session")
def note_pipeline():
    """The medspaCy note pipeline, built once per test session (it is the slow part)."""
    from medeventgraph.nlp import NotePipeline

    return NotePipeline()


def _ensure_node_modules() -> None:
    if (SERVER_DIR / "node_modules" / "@medplum" / "fhir-router").is_dir():
        return
    if shutil.which("npm") is None:
        missing("npm is not installed: cannot install tools/fhir-test-server")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=SERVER_DIR, check=True)


@pytest.fixture(scope="session")
def fhir_server(synthea_dir: Path) -> Iterator[str]:
    """Base URL of the Medplum in-memory FHIR server, loaded with Synthea and our test patient."""
    if shutil.which("node") is None:
        missing("node is not installed")
    _ensure_node_modules()
    proc = subprocess.Popen(
        ["node", str(SERVER_DIR / "server.mjs"), "--port", "0", "--data", str(synthea_dir), "--data", str(CDS_TEST_DATA)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""  # blocks until loaded (or exit)
        if not line.startswith("LISTENING"):
            pytest.fail(f"FHIR test server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/fhir"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
