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
SUBSETS = ("clinosim", "mimic-iv-demo", "synthea")


@pytest.fixture(scope="session")
def export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three bundled subsets side by side: gzipped NDJSON, plain NDJSON and Bundles."""
    root = tmp_path_factory.mktemp("export")
    for name in SUBSETS:
        (root / name).symlink_to(DATA / name, target_is_directory=True)
    return root


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    ray = pytest.importorskip("ray")
    ctx = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ctx.address_info["gcs_address"]
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def local_run(export_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from medeventgraph.screen import ScreenJob, run_screen
    from medeventgraph.settings import Settings

    out = tmp_path_factory.mktemp("local")
    run_screen(ScreenJob(export_dir, WATCHLIST, out, progress=False), Settings())
    return out


def sorted_lines(path: Path) -> list[bytes]:
    return sorted(ln for ln in path.read_bytes().splitlines() if ln.strip())


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    return env
