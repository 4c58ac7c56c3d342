"""Fixtures for fhir_adapters tests: each shared data set is ingested once per session."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from medeventgraph.fhir_adapters import IngestResult, load_paths

PATIENT_ID = "p1"


@pytest.fixture(scope="session")
def synthea_files(synthea_dir: Path) -> list[Path]:
    files = sorted(p for p in synthea_dir.glob("*.json") if not p.name.startswith(("hospital", "practitioner")))
    assert files, "no Synthea patient bundles found"
    return files


@pytest.fixture(scope="session")
def synthea_results(synthea_files: list[Path]) -> dict[str, IngestResult]:
    """Each patient bundle ingested on its own (the way the CLI reads one --bundle)."""
    return {p.name: load_paths([p]) for p in synthea_files}


@pytest.fixture(scope="session")
def clinosim_result(clinosim_dir: Path) -> IngestResult:
    return load_paths([clinosim_dir])


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


@pytest.fixture
def patient() -> dict[str, Any]:
    return {"resourceType": "Patient", "id": PATIENT_ID}


@pytest.fixture
def make_bundle():
    """bundle(*resources): a collection Bundle, fullUrls as urn:uuid:<id>, patient p1 first."""

    def build(*resources: Any, with_patient: bool = True, type_: str = "collection") -> dict[str, Any]:
        entries: list[Any] = []
        if with_patient:
            entries.append({"fullUrl": f"urn:uuid:{PATIENT_ID}",
                            "resource": {"resourceType": "Patient", "id": PATIENT_ID}})
        for r in resources:
            if isinstance(r, dict) and isinstance(r.get("id"), str):
                entries.append({"fullUrl": f"urn:uuid:{r['id']}", "resource": r})
            else:
                entries.append({"resource": r} if isinstance(r, dict) else r)
        return {"resourceType": "Bundle", "type": type_, "entry": entries}

    return build


@pytest.fixture
def b64encode():
    return b64
