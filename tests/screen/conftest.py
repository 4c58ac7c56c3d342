"""Screening fixtures: the bundled NDJSON/Bundle subsets as one export, one Ray local cluster
per session (2 CPUs, no dashboard), and one uninterrupted local run to compare against."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
WATCHLIST = REPO / "cds_hooks" / "resources" / "watchlist.json"
# tests/data folders (see tests/data/ATTRIBUTION.md), linked side by side as one export
SUBSETS = {"clinosim": "clinosim/fhir_r4", "mimic-iv-demo": "mimic-iv-demo", "synthea": "synthea"}
# screened (the rest is spooled but not screened, which keeps the tests short)
CLINOSIM = ("pt-104b2b36f19f", "pt-51e7620acf86", "pt-24b27844abbc", "pt-252d5aaceace", "pt-02f8d09fca0d")
SYNTHEA = ("ee4b7339-ca58-b6af-c199-04b6d5761c73",)


@pytest.fixture(scope="session")
def export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled clinosim and MIMIC-IV NDJSON (gzip) and Synthea Bundles as one export."""
    root = tmp_path_factory.mktemp("export")
    for name, folder in SUBSETS.items():
        (root / name).symlink_to(DATA / folder, target_is_directory=True)
    return root


@pytest.fixture(scope="session")
def selected(export_dir: Path) -> frozenset[str]:
    """The screened patients: five clinosim stays, every MIMIC-IV patient, one Synthea patient."""
    import gzip

    import orjson

    with gzip.open(DATA / "mimic-iv-demo" / "Patient.ndjson.gz") as f:
        mimic = [orjson.loads(line)["id"] for line in f if line.strip()]
    return frozenset((*CLINOSIM, *mimic, *SYNTHEA))


@pytest.fixture(scope="session")
def patients_file(selected: frozenset[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sel") / "patients.txt"
    path.write_text("".join(f"Patient/{p}\n" for p in sorted(selected)), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    ctx = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ctx.address_info["gcs_address"]
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def local_run(export_dir: Path, selected: frozenset[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    from medeventgraph.model.settings import Settings
    from medeventgraph.screen import ScreenJob, Selection, run_screen

    out = tmp_path_factory.mktemp("local")
    run_screen(ScreenJob(export_dir, WATCHLIST, out, selection=Selection(patients=selected), progress=False),
               Settings())
    return out


def sorted_lines(path: Path) -> list[bytes]:
    return sorted(ln for ln in path.read_bytes().splitlines() if ln.strip())


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    return env
