"""Population screening: patients/s for local 1 worker, local N, Ray 1 and Ray 2 workers (each
a ratio to local 1 worker in the same run), peak resident memory at 1x/4x/16x the population
(replicated with fresh ids), and the orjson parse of the same input as the floor.

Every run is a real `medeventgraph screen` subprocess, in its own session, on a copy of the
clinosim export. Its memory is sampled from /proc for every process of that session (the CLI,
and for Ray the raylet, GCS and actors): the largest single process and the session's total.
The steady rate counts patients after the first result burst (so start-up, the note pipeline
build and Ray's first shuffle are not in it) from the journal's timestamps. A configuration
that fails or passes its time limit is reported with its error; the others go on.

The memory rows screen the whole population at 1x, 4x and 16x (`--memory-sample N` screens N
patients spread over all the copies instead, for a shorter run: the spool, the regrouping and the
plan still cover the whole population). Their figure is the peak of the session's summed resident
memory (every process of the run), with the phase it falls in and its largest process then.

    .venv/bin/python benchmarks/bench_screen.py [--quick] [--data ../shared/data] [--out results]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from bench_screen_plan import markdown, million_plan
from measure import REPO, default_data_dir

__all__ = ["bench_screen", "markdown", "replicate_export"]

WATCHLIST = REPO / "cds_hooks" / "resources" / "watchlist.json"
RUN_SECONDS = 420  # one configuration's limit: past it, it is killed and reported
MEMORY_RUN_SECONDS = 1800  # a memory row screens the whole population: 16x is 16 times the patients
_REF = re.compile(rb'("reference"\s*:\s*")([A-Za-z]+/)([^"/]+)(")')
_ID = re.compile(rb'^(\{.*?"id"\s*:\s*")([^"]+)(")')


def replicate_export(src: Path, dst: Path, factor: int) -> list[str]:
    """`factor` copies of every NDJSON file, each copy's ids and references given a suffix
    (copy 0 unchanged), so the population grows and no patient grows. Returns the patient ids."""
    dst.mkdir(parents=True, exist_ok=True)
    patients: list[str] = []
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
                        patients.append(orjson.loads(ln)["id"])
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


def _spin(n: int) -> None:
    total = 0
    for i in range(n):
        total += i * i % 7


def _spin_run(processes: int, n: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds per process) for `processes` copies of the loop at once."""
    import multiprocessing
    import resource

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_spin, args=(n,)) for _ in range(processes)]
    c0, t0 = cpu(), time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    return time.perf_counter() - t0, (cpu() - c0) / processes


def machine_scaling(n: int = 6_000_000, repeats: int = 3) -> dict[str, Any]:
    """The machine's own 2-against-1 figure, measured in the same run: a pure-Python loop in one
    process, then in two at once (medians of `repeats`). If this is under the engines' target,
    no engine can reach it here."""
    pairs = [(_spin_run(1, n), _spin_run(2, n)) for _ in range(repeats)]
    walls = sorted(2 * one[0] / two[0] for one, two in pairs)
    cpus = sorted(two[1] / one[1] for one, two in pairs)
    return {"what": "pure-Python loop, 2 processes against 1", "throughput_ratio": round(walls[len(walls) // 2], 2),
            "cpu_per_work_ratio": round(cpus[len(cpus) // 2], 2), "load_average_after": _load()}


class _SessionMemory(threading.Thread):
    """Samples /proc every 0.25 s: largest resident set of one process of session `sid`, the
    largest sum over the session (Ray's raylet, GCS and actors are in the CLI's session), and the
    session's CPU seconds over time (each process's user + system time as last seen)."""

    def __init__(self, sid: int):
        super().__init__(daemon=True)
        self.sid, self.stop, self.largest_kb, self.total_kb = sid, threading.Event(), 0, 0
        self.largest_cmd = ""
        self.cpu_ticks: dict[str, int] = {}
        self.cpu_series: list[tuple[float, float]] = []  # (time.time(), session CPU seconds so far)
        self.names: dict[str, str] = {}  # pid -> its process name, as last seen (Ray renames its workers)
        self.ticks_series: list[tuple[float, dict[str, int]]] = []  # (time.time(), ticks per pid so far)
        self.total_series: list[tuple[float, int]] = []  # (time.time(), session resident kB)
        self.peak_at, self.peak_top = 0.0, ("", 0)  # when the session total peaked; its largest process then

    def run(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        while not self.stop.wait(0.25):
            total, top = 0, ("", 0)
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    stat = Path(f"/proc/{pid}/stat").read_text()
                    fields = stat.rsplit(")", 1)[1].split()  # fields[0] is field 3 of proc(5)
                    if int(fields[3]) != self.sid:  # field 6: session id
                        continue
                    rss = next(int(ln.split()[1]) for ln in Path(f"/proc/{pid}/status").read_text().splitlines()
                               if ln.startswith("VmRSS:"))
                except (OSError, ValueError, IndexError, StopIteration):
                    continue
                self.cpu_ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
                self.names[pid] = stat[stat.find("(") + 1:stat.rfind(")")]
                total += rss
                top = max(top, (self.names[pid], rss), key=lambda nr: nr[1])
                if rss > self.largest_kb:
                    self.largest_kb, self.largest_cmd = rss, self.names[pid]
            now = time.time()
            if total > self.total_kb:
                self.total_kb, self.peak_at, self.peak_top = total, now, top
            self.total_series.append((now, total))
            self.cpu_series.append((now, sum(self.cpu_ticks.values()) / tick))
            self.ticks_series.append((now, dict(self.cpu_ticks)))

    def cpu_at(self, when: float) -> float:
        return max((cpu for t, cpu in self.cpu_series if t <= when), default=0.0)

    def cpu_by_name(self, start: float, end: float) -> dict[str, float]:
        """CPU seconds each kind of process (by name) used between `start` and `end`."""
        def at(when: float) -> dict[str, int]:
            return next((ticks for t, ticks in reversed(self.ticks_series) if t <= when), {})
        before, after = at(start), at(end)
        tick = os.sysconf("SC_CLK_TCK")
        used: dict[str, float] = {}
        for pid, ticks in after.items():
            name = _role(self.names.get(pid, "?"))
            used[name] = used.get(name, 0.0) + (ticks - before.get(pid, 0)) / tick
        return dict(sorted(used.items(), key=lambda kv: -kv[1]))


def _role(name: str) -> str:
    """A process name without what varies per run (Ray's actor names carry ids)."""
    return "ray::MapWorker" if name.startswith("ray::MapWorker") else name


def _warm(entries: list[tuple[float, int]]) -> int:
    """Results up to the moment every worker is warm: the first result of the last worker to
    deliver one, and the rest of that burst (Ray hands back a block of patients at once). Before
    it, some worker is still starting (building its note pipeline: seconds of CPU that are not a
    patient's cost, and a rate that one worker alone sets)."""
    stamps = [t for t, _ in entries]
    if len(stamps) < 3:
        return len(stamps)
    firsts: dict[int, float] = {}
    for t, worker in entries:
        firsts.setdefault(worker, t)
    warm = max(firsts.values())
    i = next(i for i, t in enumerate(stamps) if t >= warm) + 1
    while i < len(stamps) and stamps[i] - stamps[i - 1] <= 0.25:
        i += 1
    return i


def _steady(entries: list[tuple[float, int]]) -> float | None:
    """Patients/s once every worker is warm."""
    first, stamps = _warm(entries), [t for t, _ in entries]
    if first >= len(stamps):
        return None
    span = stamps[-1] - stamps[first - 1]
    return (len(stamps) - first) / span if span > 0 else None


def _steady_window(entries: list[tuple[float, int]]) -> tuple[float, float, int] | None:
    """(start, end, patients) of the steady part, for the CPU figures."""
    first, stamps = _warm(entries), [t for t, _ in entries]
    return None if first >= len(stamps) else (stamps[first - 1], stamps[-1] + 0.3, len(stamps) - first)


def _phases(out: Path, entries: list[tuple[float, int]]) -> Callable[[float], str]:
    """The phase of the run a moment falls in: building the spool, then until the first result
    (note pipeline build and regrouping; for Ray also its start and shuffle), then screening."""
    try:
        spooled = (out / "spool" / "manifest.json").stat().st_mtime
    except OSError:
        spooled = 0.0
    first = entries[0][0] if entries else float("inf")
    return lambda t: "spool" if t <= spooled else "until the first result" if t <= first else "screening"


def _phase_peaks(phase_of: Callable[[float], str], sampler: _SessionMemory) -> dict[str, float]:
    """The session's peak resident MB in each phase."""
    peaks: dict[str, float] = {}
    for t, kb in sampler.total_series:
        peaks[phase_of(t)] = max(peaks.get(phase_of(t), 0.0), round(kb / 1024, 1))
    return peaks


def _run(export: Path, out: Path, engine: str, workers: int, extra: list[str],
         time_limit: float | None = None) -> dict[str, Any]:
    time_limit = RUN_SECONDS if time_limit is None else time_limit
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    cmd = [sys.executable, "-m", "medeventgraph.cli", "screen", "--input", str(export), "--watchlist",
           str(WATCHLIST), "--out", str(out), "--engine", engine, "--workers", str(workers), "--no-progress", *extra]
    log_path = out.parent / f"{out.name}.log"
    t0 = time.perf_counter()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        sampler = _SessionMemory(proc.pid)
        sampler.start()
        try:
            status = _wait(proc.pid, t0 + time_limit)
        finally:
            sampler.stop.set()
            sampler.join()
            _kill_session(proc.pid)
    wall = time.perf_counter() - t0
    if status is None:
        raise RuntimeError(f"killed after {time_limit} s (time limit)")
    if os.waitstatus_to_exitcode(status) != 0:
        tail = log_path.read_text(errors="replace").strip().splitlines()[-1:]
        raise RuntimeError(f"exit {os.waitstatus_to_exitcode(status)}: {tail[0][:300] if tail else 'no output'}")
    journal = [orjson.loads(ln) for ln in (out / "journal.ndjson").read_bytes().splitlines() if ln]
    entries = sorted((e["at"], e.get("worker", 0)) for e in journal)
    n, steady, window = len(entries), _steady(entries), _steady_window(entries)
    phase_of = _phases(out, entries)
    cpu, by_process = None, {}
    if window is not None and sampler.cpu_series:
        start, end, counted = window
        cpu = (sampler.cpu_at(end) - sampler.cpu_at(start)) / counted
        by_process = {name: round(sec / counted, 4) for name, sec in sampler.cpu_by_name(start, end).items()
                      if sec > 0}
    return {"engine": engine, "workers": workers, "patients": n, "wall_seconds": round(wall, 2),
            "patients_per_s": round(n / wall, 3), "steady_patients_per_s": round(steady, 3) if steady else None,
            # not os.wait4's ru_maxrss: a child started by vfork + exec inherits its parent's high-water
            # mark, so it reported this benchmark process's own peak (1614.1 MB for every run)
            "largest_process_mb": round(sampler.largest_kb / 1024, 1), "largest_process": sampler.largest_cmd,
            "session_total_mb": round(sampler.total_kb / 1024, 1), "load_average_after": _load(),
            "session_peak_phase": phase_of(sampler.peak_at),
            "session_peak_largest_process": {"name": sampler.peak_top[0], "mb": round(sampler.peak_top[1] / 1024, 1)},
            "session_peak_mb_by_phase": _phase_peaks(phase_of, sampler),
            "steady_cpu_seconds_per_patient": round(cpu, 3) if cpu else None,
            "steady_cpu_seconds_per_patient_by_process": by_process,
            "steady_patients": window[2] if window else 0, "workers_seen": len({w for _, w in entries})}


def _wait(pid: int, deadline: float) -> int | None:
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.perf_counter() > deadline:
            _kill_session(pid)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.2)


def _kill_session(sid: int) -> None:
    try:
        os.killpg(sid, signal.SIGKILL)  # Ray's raylet and workers too, if any are left
    except (ProcessLookupError, PermissionError):
        pass


def _autogroup() -> bool | None:
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return None


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _attempt(label: str, fn: Any) -> dict[str, Any]:
    print(f"  {label}", flush=True)
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 -- one failing configuration is reported, the others go on
        print(f"  {label} failed: {exc}", flush=True)
        return {"error": f"{type(exc).__name__}: {exc}"[:400]}


def _sample(ids: list[str], count: int, path: Path) -> Path:
    """`count` ids spread evenly over the whole list (so every copy of the population is in it)."""
    step = max(1, len(ids) // count)
    path.write_text("".join(f"{p}\n" for p in ids[::step][:count]), encoding="utf-8")
    return path


def bench_screen(data: Path, *, quick: bool = False, throughput_factor: int = 2,
                 memory_factors: tuple[int, ...] = (1, 4, 16), workers: int = 2,
                 memory_sample: int | None = None) -> dict[str, Any]:
    src = data / "clinosim" / "fhir_r4"
    if not src.is_dir():
        src = REPO / "tests" / "data" / "clinosim" / "fhir_r4"
    result: dict[str, Any] = {"input": "clinosim/fhir_r4", "watchlist": "cds_hooks/resources/watchlist.json",
                              "cpus": os.cpu_count(), "load_average_at_start": _load(), "quick": quick,
                              "throughput": [], "memory": [], "sched_autogroup": _autogroup(),
                              "memory_sample": memory_sample}
    if quick:
        throughput_factor, memory_factors = 1, (1,)
    try:
        _measure(result, src, throughput_factor, memory_factors, workers, quick, memory_sample)
    except Exception as exc:  # noqa: BLE001 -- `make bench` goes on; the file says what failed
        result["error"] = f"{type(exc).__name__}: {exc}"[:400]
    result["load_average_at_end"] = _load()
    result["million"] = million_plan(result)
    return result


def _measure(result: dict[str, Any], src: Path, throughput_factor: int, memory_factors: tuple[int, ...],
             workers: int, quick: bool, memory_sample: int | None) -> None:
    with tempfile.TemporaryDirectory(prefix="meg-screen-bench-") as tmp_name:
        tmp = Path(tmp_name)
        exports: dict[int, tuple[Path, list[str]]] = {}
        for factor in sorted({throughput_factor, *memory_factors}):
            path = tmp / f"export-{factor}x"
            exports[factor] = (path, replicate_export(src, path, factor))
        export, ids = exports[throughput_factor]
        floor = orjson_floor(export, 1 if quick else 3)
        result["floor"] = {"what": "gzip + orjson.loads of every line", "seconds": round(floor, 3),
                           "patients_per_s": round(len(ids) / floor, 1), "patients": len(ids)}
        result["machine"] = machine_scaling(repeats=1 if quick else 3)
        configs = [("local", 1)] if quick else [("local", 1), ("local", workers), ("ray", 1), ("ray", 2)]
        # a smoke run screens three patients, in one run that also gives the 1x memory row
        extra = ["--patients", str(_sample(ids, 3, tmp / "three.txt"))] if quick else []
        runs = []
        for engine, n in configs:
            row = _attempt(f"screen {engine} x{n} on {len(ids)} patients",
                           lambda e=engine, n=n: _run(export, tmp / f"tp-{e}-{n}", e, n, extra))
            runs.append({"engine": engine, "workers": n, **row})
        _ratios(runs)
        result["throughput"] = runs
        memory = []
        for factor in memory_factors:
            path, population = exports[factor]
            if quick:
                row = runs[0]
            else:
                extra = ([] if memory_sample is None else
                         ["--patients", str(_sample(population, memory_sample, tmp / f"sample-{factor}.txt"))])
                screened = len(population) if memory_sample is None else min(memory_sample, len(population))
                row = _attempt(f"screen memory at {factor}x ({len(population)} patients, {screened} screened)",
                               lambda p=path, f=factor, x=extra: _run(p, tmp / f"mem-{f}", "local", 1, x,
                                                                      MEMORY_RUN_SECONDS))
            folder = tmp / ("tp-local-1" if quick else f"mem-{factor}")
            spool = sum(f.stat().st_size for f in (folder / "spool").glob("part-*.parquet"))
            memory.append({"factor": factor, "population": len(population), "spool_bytes_per_patient":
                           round(spool / len(population)), **{k: row[k] for k in (
                               "error", "patients", "session_total_mb", "session_peak_phase",
                               "session_peak_mb_by_phase", "session_peak_largest_process", "wall_seconds")
                               if k in row}})
        ok = [m for m in memory if "session_total_mb" in m]
        for m in ok:
            m["rss_ratio_to_1x"] = round(m["session_total_mb"] / ok[0]["session_total_mb"], 3)
        result["memory"] = memory
        shutil.rmtree(tmp, ignore_errors=True)


def _ratios(runs: list[dict[str, Any]]) -> None:
    base = runs[0] if "error" not in runs[0] else None
    ray1 = next((r for r in runs if r["engine"] == "ray" and r["workers"] == 1 and "error" not in r), None)
    for r in runs:
        if "error" in r or base is None:
            continue
        r["ratio_to_local_1"] = round(r["patients_per_s"] / base["patients_per_s"], 2)
        if r["steady_patients_per_s"] and base["steady_patients_per_s"]:
            r["steady_ratio_to_local_1"] = round(r["steady_patients_per_s"] / base["steady_patients_per_s"], 2)
        if ray1 and r["engine"] == "ray" and r["steady_patients_per_s"] and ray1["steady_patients_per_s"]:
            r["steady_ratio_to_ray_1"] = round(r["steady_patients_per_s"] / ray1["steady_patients_per_s"], 2)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--data", type=Path, default=default_data_dir())
    p.add_argument("--out", type=Path, default=REPO / "results")
    p.add_argument("--throughput-factor", type=int, default=2)
    p.add_argument("--memory-factors", type=int, nargs="+", default=[1, 4, 16])
    p.add_argument("--memory-sample", type=int, default=None,
                   help="screen only this many patients (spread over all copies) in each memory row; "
                        "default: the whole population")
    args = p.parse_args(argv)
    result = bench_screen(args.data, quick=args.quick, throughput_factor=args.throughput_factor,
                          memory_factors=tuple(args.memory_factors), memory_sample=args.memory_sample)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "screen_bench.json").write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    (args.out / "SCREEN.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
