"""Indexes for the core tests, built once per session (notes off: the NLP stage has its own tests)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from medeventgraph.core.index import PatientIndex, build_index
from medeventgraph.fhir_adapters.ingest import ingest_json, load_paths
from medeventgraph.settings import Settings

LANCE = "Lance203_Padberg411_716c6d0a-2a5d-0aaa-9ced-312ed6a943da.json"
BOYCE = "Boyce638_Nolan344_9c5b16dc-8a47-896c-4d74-f96f8c98891b.json"
AKI_PATIENT = "pt-51e7620acf86"  # clinosim SH7-0005: vancomycin, creatinine 1.33 -> 4.4, AKI


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings(notes=False)


def index_of(raw: dict | list, settings: Settings, patient: str | None = None) -> PatientIndex:
    result = ingest_json(raw)
    pid = patient or result.patient_ids()[0]
    return build_index(result.for_patient(pid), settings)


@pytest.fixture(scope="session")
def lance_raw(synthea_dir: Path) -> dict:
    return orjson.loads((synthea_dir / LANCE).read_bytes())


@pytest.fixture(scope="session")
def lance(lance_raw: dict, settings: Settings) -> PatientIndex:
    return index_of(lance_raw, settings)


@pytest.fixture(scope="session")
def boyce(synthea_dir: Path, settings: Settings) -> PatientIndex:
    return index_of(orjson.loads((synthea_dir / BOYCE).read_bytes()), settings)


@pytest.fixture(scope="session")
def clinosim(clinosim_dir: Path):
    return load_paths([clinosim_dir])


@pytest.fixture(scope="session")
def aki(clinosim, settings: Settings) -> PatientIndex:
    return build_index(clinosim.for_patient(AKI_PATIENT), settings)
