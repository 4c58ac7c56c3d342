"""Population screening: patients/s for local 1 worker, local N, Ray 1 and Ray 2 workers (each
a ratio to local 1 worker in the same run), peak resident memory at 1x/4x/16x the population
(replicated with fresh ids), and the orjson parse of the same input as the floor.

Every run is a real `medeventgraph screen` subprocess on a copy of the clinosim export; its
peak RSS comes from wait4 (the process and its children are measured by the kernel). The
steady rate counts patients after the first result (so worker start-up and the note pipeline
build are not in it) from the journal's timestamps; the whole-run rate is beside it.

    .venv/bin/python benchmarks/bench_screen.py [--quick] [--data ../shared/data] [--out results]
"""

from __future__ import annotations

import argparse
import gzip
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from common import REPO, default_data_dir

__all__ = ["bench_screen", "markdown", "replicate_export"]

WATCHLIST = REPO / "cds_hooks" / "resources" / "watchlist.json"
_REF = re.compile(rb'("reference"\s*:\s*")([A-Za-z]+/)([^"/]+)(")')
_ID = re.compile(rb'^(\{.*?"id"\s*:\s*")([^"]+)(")')


def replicate_export(src: Path, dst: Path, factor: int) -> int:
    """`factor` copies of every NDJSON file, each copy's ids and references given a suffix
    (copy 0 unchanged), so the population grows and no patient grows. Returns patients."""
    dst.mkdir(parents=True, exist_ok=True)
    patients = 0
    for f in sorted(src.glob("*.ndjson*")):
        with gzip.open(f, "rb") if f.name.endswith(".gz") else f.open("rb") as fin:
            lines = [ln.rstrip(b"\n") for ln in fin if ln.strip()]
        with gzip.open(dst / f.name.removesuffix(".gz").replace(".ndjson", ".ndjson.gz"), "wb",
                       compresslevel=1) as out:
            for copy in range(factor):
                tag = b"" if copy == 0 else b"-r%d" % copy
                for ln in lines:
                    if tag:
                        ln = _ID.sub(rb"\g<1>\g<2>" + tag + rb"\g<3>", ln, count=1)
                        ln = _REF.sub(rb"\g<1>\g<2>\g<3>" + tag + rb"\g<4>", ln)
                    out.write(ln + b"\n")
        if f.name.startswith("Patient."):
            patients = len(lines) * factor
    return patients


def orjson_floor(src: Path, repeats: int) -> float:
    """Median seconds to decompress and orjson-parse every line of the export."""
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for f in sorted(src.glob("*.ndjson*")):
            with gzip.open(f, "rb") if f.name.endswith(".gz") else f.open("rb") as fin:
                for ln in fin:
                    if ln.strip():
                        orjson.loads(ln)
        samples.append(time.perf_counter() - t0)
    return sorted(samples)[len(samples) // 2]


def _run(export: Path, out: Path, engine: str, workers: int, extra: list[str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    cmd = [sys.executable, "-m", "medeventgraph.cli", "screen", "--input", str(export), "--watchlist",
           str(WATCHLIST), "--out", str(out), "--engine", engine, "--workers", str(workers), "--no-progress", *extra]
    t0 = time.perf_counter()
    with (out.parent / f"{out.name}.log").open("wb") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"screen run failed ({engine}, {workers}): see {out.parent / (out.name + '.log')}")
    stamps = sorted(orjson.loads(ln)["at"] for ln in (out / "journal.ndjson").read_bytes().splitlines() if ln)
    n = len(stamps)
    steady = (n - 1) / (stamps[-1] - stamps[0]) if n > 1 and stamps[-1] > stamps[0] else None
    # ru_maxrss (KiB on Linux): the largest of this child and its waited-for descendants; Ray's
    # raylet and workers are not the CLI's descendants, so for Ray this is the driver alone.
    return {"engine": engine, "workers": workers, "patients": n, "wall_seconds": round(wall, 2),
            "patients_per_s": round(n / wall, 3), "steady_patients_per_s": round(steady, 3) if steady else None,
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def bench_screen(data: Path, *, quick: bool = False, throughput_factor: int = 2,
                 memory_factors: tuple[int, ...] = (1, 4, 16), workers: int = 2) -> dict[str, Any]:
    src = data / "clinosim" / "fhir_r4"
    result: dict[str, Any] = {"input": "clinosim/fhir_r4", "watchlist": "cds_hooks/resources/watchlist.json"}
    with tempfile.TemporaryDirectory(prefix="meg-screen-bench-") as tmp_name:
        tmp = Path(tmp_name)
        if quick:
            throughput_factor, memory_factors = 1, (1,)
        exports: dict[int, tuple[Path, int]] = {}
        for factor in sorted({throughput_factor, *memory_factors}):
            path = tmp / f"export-{factor}x"
            exports[factor] = (path, replicate_export(src, path, factor))
        export, patients = exports[throughput_factor]
        floor = orjson_floor(export, 1 if quick else 3)
        result["floor"] = {"what": "gzip + orjson.loads of every line", "seconds": round(floor, 3),
                           "patients_per_s": round(patients / floor, 1), "patients": patients}
        configs = [("local", 1)] if quick else [("local", 1), ("local", workers), ("ray", 1), ("ray", 2)]
        extra: list[str] = []
        if quick:  # a smoke run: three patients, one run that also gives the 1x memory row
            with gzip.open(export / "Patient.ndjson.gz") as f:
                ids = [orjson.loads(ln)["id"] for ln in f if ln.strip()][:3]
            (tmp / "patients.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
            extra = ["--patients", str(tmp / "patients.txt")]
        runs = []
        for engine, n in configs:
            print(f"  screen {engine} x{n} on {patients} patients", flush=True)
            runs.append(_run(export, tmp / f"tp-{engine}-{n}", engine, n, extra))
        base = runs[0]
        for r in runs:
            r["ratio_to_local_1"] = round(r["patients_per_s"] / base["patients_per_s"], 2)
            if r["steady_patients_per_s"] and base["steady_patients_per_s"]:
                r["steady_ratio_to_local_1"] = round(r["steady_patients_per_s"] / base["steady_patients_per_s"], 2)
        result["throughput"] = runs
        memory = []
        for factor in memory_factors:
            path, n = exports[factor]
            folder = tmp / ("tp-local-1" if quick else f"mem-{factor}")
            if not quick:
                print(f"  screen memory at {factor}x ({n} patients)", flush=True)
            row = runs[0] if quick else _run(path, folder, "local", 1, [])
            spool = sum(f.stat().st_size for f in (folder / "spool").glob("*.parquet"))
            memory.append({"factor": factor, "patients": row["patients"], "peak_rss_mb": row["peak_rss_mb"],
                           "wall_seconds": row["wall_seconds"], "spool_bytes_per_patient": round(spool / n)})
        for row in memory:
            row["rss_ratio_to_1x"] = round(row["peak_rss_mb"] / memory[0]["peak_rss_mb"], 3)
        result["memory"] = memory
        shutil.rmtree(tmp, ignore_errors=True)
    result["million"] = million_plan(result)
    return result


def million_plan(result: dict[str, Any], patients: int = 1_000_000, hours: float = 8.0) -> dict[str, Any]:
    """Workers, hours and memory for a million patients, from this run's measured figures."""
    ray2 = next((r for r in result["throughput"] if r["engine"] == "ray" and r["workers"] == 2), None)
    row = ray2 or result["throughput"][0]
    rate = row["steady_patients_per_s"] or row["patients_per_s"]
    per_worker = rate / row["workers"]
    needed = math.ceil(patients / (per_worker * hours * 3600))
    worst = max(result["memory"], key=lambda r: r["peak_rss_mb"])
    return {"from": f"{row['engine']} x{row['workers']} steady rate", "per_worker_patients_per_s": round(per_worker, 3),
            "target_hours": hours, "workers": needed,
            "hours_at_that_size": round(patients / (per_worker * needed) / 3600, 2),
            "worker_hours": round(patients / per_worker / 3600, 1),
            "memory_per_worker_mb": worst["peak_rss_mb"],
            "spool_gb": round(patients * result["memory"][-1]["spool_bytes_per_patient"] / 1e9, 1)}


def markdown(result: dict[str, Any]) -> str:
    lines = ["## Population screening (`benchmarks/bench_screen.py`)", "",
             f"Input: {result['input']} replicated with fresh ids; watch list {result['watchlist']}.",
             f"Floor: {result['floor']['what']}: {result['floor']['patients_per_s']} patients/s.", "",
             ("| engine | workers | patients | patients/s (whole run) | ratio | steady patients/s | steady ratio | "
              "driver peak RSS MB |"), "|---|---|---|---|---|---|---|---|"]
    for r in result["throughput"]:
        lines.append(f"| {r['engine']} | {r['workers']} | {r['patients']} | {r['patients_per_s']} | "
                     f"{r['ratio_to_local_1']} | {r['steady_patients_per_s']} | {r.get('steady_ratio_to_local_1')} | "
                     f"{r['peak_rss_mb']} |")
    lines += ["", "| population | patients | peak RSS MB (local, 1 worker) | ratio to 1x | spool bytes/patient |"]
    lines += ["|---|---|---|---|---|"]
    lines += [f"| {m['factor']}x | {m['patients']} | {m['peak_rss_mb']} | {m['rss_ratio_to_1x']} | "
              f"{m['spool_bytes_per_patient']} |" for m in result["memory"]]
    m = result["million"]
    plan = (f"**1 million patients** ({m['from']}, {m['per_worker_patients_per_s']} patients/s per worker): "
            f"{m['worker_hours']} worker-hours; {m['workers']} Ray workers finish in {m['hours_at_that_size']} h "
            f"(target {m['target_hours']} h), each needing about {m['memory_per_worker_mb']} MB resident "
            f"(the largest peak above); the Parquet spool takes about {m['spool_gb']} GB.")
    lines += ["", plan, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--data", type=Path, default=default_data_dir())
    p.add_argument("--out", type=Path, default=REPO / "results")
    p.add_argument("--throughput-factor", type=int, default=2)
    p.add_argument("--memory-factors", type=int, nargs="+", default=[1, 4, 16])
    args = p.parse_args(argv)
    result = bench_screen(args.data, quick=args.quick, throughput_factor=args.throughput_factor,
                          memory_factors=tuple(args.memory_factors))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "screen_bench.json").write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    (args.out / "SCREEN.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
