"""Shared pieces of the benchmark: where the data is, timing with repeats, summary figures.

Every timed figure is a list of wall-clock samples (time.perf_counter) summarised as median,
min and max (and p95 for latency lists); CPU time is kept beside it because this machine is
shared and wall time there includes waiting for the CPU.
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["REPO", "Timing", "default_data_dir", "git_commit", "patient_bundles", "summary", "timed"]

REPO = Path(__file__).resolve().parents[1]


def git_commit() -> str:
    """The checkout's short commit, which every results file names ("unknown" outside git)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def default_data_dir() -> Path:
    """../shared/data beside the clone (as on CI)."""
    return REPO.parent / "shared" / "data"


def patient_bundles(data_dir: Path) -> list[Path]:
    """Synthea patient bundles (the hospital/practitioner companion bundles hold no patient)."""
    folder = data_dir / "synthea"
    return sorted(
        p for p in folder.glob("*.json")
        if not p.name.startswith(("hospitalInformation", "practitionerInformation"))
    )


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(values: list[float], *, p95: bool = False, digits: int = 6) -> dict[str, Any]:
    """{median, min, max, n} (and p95) of a list of samples."""
    out: dict[str, Any] = {
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
        "n": len(values),
    }
    if p95:
        out["p95"] = round(_pct(values, 0.95), digits)
    return out


@dataclass
class Timing:
    wall: list[float]
    cpu: list[float]
    result: Any = None

    def summary(self) -> dict[str, Any]:
        return {**summary(self.wall), "cpu_median": round(statistics.median(self.cpu), 6)}


def timed(fn: Callable[[], Any], repeats: int, *, setup: Callable[[], Any] | None = None) -> Timing:
    """Run `fn` `repeats` times (after `setup` each time, untimed); a full GC before each run so
    one run's garbage is not collected on the next run's clock."""
    wall: list[float] = []
    cpu: list[float] = []
    result = None
    for _ in range(repeats):
        if setup is not None:
            setup()
        result = None
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return Timing(wall, cpu, result)
