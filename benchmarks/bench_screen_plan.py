"""The screening benchmark's written part: the 1-million-patient plan and SCREEN.md, both
generated from one run's measured figures (never hand-written numbers)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["markdown", "million_plan"]

GROWTH_TARGET = 1.5  # resident memory from 1x to 16x the population (issue 15)
SPEEDUP_TARGET = 1.7  # 2 Ray workers against one worker on a 2-core machine (issue 15)
CORES_PER_NODE = 16  # the node size the plan is written for


def _ok(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if "error" not in r]


def _rate_source(result: dict[str, Any]) -> dict[str, Any] | None:
    runs = _ok(result["throughput"])
    for engine, workers in (("ray", 2), ("ray", 1), ("local", 1)):
        row = next((r for r in runs if r["engine"] == engine and r["workers"] == workers), None)
        if row is not None and (row["steady_patients_per_s"] or row["patients_per_s"]):
            return row
    return None


def million_plan(result: dict[str, Any], patients: int = 1_000_000, hours: float = 8.0) -> dict[str, Any]:
    """Workers, hours and memory for a million patients, from this run's measured figures."""
    row = _rate_source(result)
    memory = _ok(result["memory"])
    if row is None or not memory:
        return {"error": "no throughput or memory figure was measured in this run"}
    rate = row["steady_patients_per_s"] or row["patients_per_s"]
    per_worker = rate / row["workers"]
    workers = math.ceil(patients / (per_worker * hours * 3600))
    per_worker_mb = max(m["session_total_mb"] for m in memory)
    ray_actor_mb = max((r["largest_process_mb"] for r in _ok(result["throughput"]) if r["engine"] == "ray"),
                       default=None)
    nodes = math.ceil(workers / CORES_PER_NODE)
    largest = max(result["memory"], key=lambda m: m["population"])
    return {"from": f"{row['engine']} x{row['workers']} {'steady' if row['steady_patients_per_s'] else 'whole-run'} "
                    "rate", "per_worker_patients_per_s": round(per_worker, 3), "target_hours": hours,
            "workers": workers, "hours_at_that_size": round(patients / (per_worker * workers) / 3600, 2),
            "worker_hours": round(patients / per_worker / 3600, 1), "memory_per_worker_mb": per_worker_mb,
            "ray_largest_process_mb": ray_actor_mb, "cores_per_node": CORES_PER_NODE, "nodes": nodes,
            "memory_per_node_gb": round(CORES_PER_NODE * per_worker_mb / 1024, 1),
            "spool_gb": round(patients * largest["spool_bytes_per_patient"] / 1e9, 1)}


def _cell(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    return "—" if value is None else str(value)


def _throughput(result: dict[str, Any]) -> list[str]:
    lines = [("| engine | workers | patients | patients/s (whole run) | ratio to local 1 | steady patients/s | "
             "steady ratio to local 1 | steady ratio to Ray 1 | steady CPU s/patient | largest process MB | "
             "session total MB | error |"), "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["throughput"]:
        lines.append("| " + " | ".join(_cell(r, k) for k in (
            "engine", "workers", "patients", "patients_per_s", "ratio_to_local_1", "steady_patients_per_s",
            "steady_ratio_to_local_1", "steady_ratio_to_ray_1", "steady_cpu_seconds_per_patient",
            "largest_process_mb", "session_total_mb", "error")) + " |")
    ray2 = next((r for r in _ok(result["throughput"]) if r["engine"] == "ray" and r["workers"] == 2), None)
    if ray2 and ray2.get("steady_ratio_to_ray_1") is not None:
        met = "meets" if ray2["steady_ratio_to_ray_1"] >= SPEEDUP_TARGET else "does not meet"
        lines += ["", (f"2 Ray workers against 1: {ray2['steady_ratio_to_ray_1']}x steady "
                      f"({ray2.get('steady_ratio_to_local_1')}x against local 1 worker), which {met} the "
                      f"{SPEEDUP_TARGET}x target at load average {ray2['load_average_after']} "
                      f"(1, 5, 15 min) on {result['cpus']} CPUs.")]
    machine = result.get("machine")
    if machine:
        lines += ["", (f"The machine itself, in the same run ({machine['what']}): {machine['throughput_ratio']}x "
                       f"the throughput, {machine['cpu_per_work_ratio']}x the CPU per unit of work, at load average "
                       f"{machine['load_average_after']}.")]
    lines += _by_process(result) + _cpu_bound(result)
    return lines


def _by_process(result: dict[str, Any]) -> list[str]:
    """Where the steady CPU goes, per kind of process (s/patient)."""
    runs = [r for r in _ok(result["throughput"]) if r.get("steady_cpu_seconds_per_patient_by_process")]
    if not runs:
        return []
    lines = ["", ("Steady CPU seconds per patient by process (after every worker's first result; `python` is the "
                  "CLI, and for the local engine also its workers):"), ""]
    for r in runs:
        kinds = list(r["steady_cpu_seconds_per_patient_by_process"].items())[:6]
        parts = ", ".join(f"{name} {sec}" for name, sec in kinds)
        lines.append(f"- {r['engine']} x{r['workers']} ({r.get('steady_patients')} patients): {parts}")
    return lines


def _cpu_bound(result: dict[str, Any]) -> list[str]:
    """What the measured CPU costs allow on an idle machine (wall time on a shared one says more
    about the other users than about the engine): 1 actor runs at most 1/a1 patients/s (its own
    CPU per patient a1); 2 actors at most (cores - O)/a2, O being the CPU the rest of the run (the
    driver, Ray's daemons) takes per second, which polls at a fixed rate whatever the patients."""
    runs = {(r["engine"], r["workers"]): r for r in _ok(result["throughput"])}
    one, two = runs.get(("ray", 1)), runs.get(("ray", 2))
    if not (one and two and two.get("steady_patients_per_s")):
        return []
    a1 = (one.get("steady_cpu_seconds_per_patient_by_process") or {}).get("ray::MapWorker")
    a2 = (two.get("steady_cpu_seconds_per_patient_by_process") or {}).get("ray::MapWorker")
    c2 = two.get("steady_cpu_seconds_per_patient")
    if not (a1 and a2 and c2):
        return []
    cores = min(2, result["cpus"] or 1)
    rest = round((c2 - a2) * two["steady_patients_per_s"], 3)
    bound = round(min(float(cores), (cores - rest) * a1 / a2), 2)
    lines = ["", (f"What this allows on {cores} idle cores: 1 Ray actor spends {a1} CPU s per patient; with 2, each "
                  f"spends {a2} and the rest of the run (driver, Ray's daemons) {round(c2 - a2, 4)} s per patient "
                  f"at {two['steady_patients_per_s']} patients/s, i.e. {rest} of a core, so 2 actors against 1 "
                  f"can reach at most ({cores} - {rest}) x {a1} / {a2} = {bound}x: "
                  + (f"the CPU costs do not rule out the {SPEEDUP_TARGET}x target; only the wall-clock ratio of a run "
                     "on an idle machine shows whether it is reached." if bound >= SPEEDUP_TARGET else
                     f"the CPU costs alone keep it below the {SPEEDUP_TARGET}x target."))]
    if result.get("sched_autogroup") and max(result["load_average_at_start"][:1]) > (result["cpus"] or 1):
        lines.append("The kernel shares the CPU per session (sched_autogroup) and the machine was loaded: the "
                      "processes of one run share one session's slice, so wall-clock ratios here understate what "
                      "an idle machine gives.")
    return lines


def _phase_cell(m: dict[str, Any]) -> str:
    phases = m.get("session_peak_mb_by_phase") or {}
    return ", ".join(f"{name} {mb}" for name, mb in phases.items()) or "—"


def _memory(result: dict[str, Any]) -> list[str]:
    lines = [("| population | patients | screened | peak resident MB, whole run (local, 1 worker) | ratio to 1x | "
              "peak in phase | largest process at the peak | peak MB by phase | spool bytes/patient | error |"),
             "|---|---|---|---|---|---|---|---|---|---|"]
    for m in result["memory"]:
        top = m.get("session_peak_largest_process") or {}
        lines.append(f"| {m['factor']}x | {m['population']} | {_cell(m, 'patients')} | {_cell(m, 'session_total_mb')} | "
                     f"{_cell(m, 'rss_ratio_to_1x')} | {_cell(m, 'session_peak_phase')} | "
                     f"{top.get('name', '—')} {top.get('mb', '')} | {_phase_cell(m)} | {m['spool_bytes_per_patient']} | "
                     f"{_cell(m, 'error')} |")
    sample = result.get("memory_sample")
    lines += ["", ("Every row screens the whole population." if sample is None and not result.get("quick") else
                   f"Each row screens {sample or 3} patients spread over all the copies; the spool, the regrouping "
                   "and the plan cover the whole population."),
              ("In the screening phase the local engine holds the note pipeline, one regrouped bucket (at most "
               "regroup.py's BUCKET_BYTES of JSON) and one patient: buckets fill as the population grows, then "
               "their number grows instead, so the peak levels off."),
              ("Peak resident memory is the largest sum of VmRSS over every process of the run, sampled every "
               "0.25 s from /proc (not os.wait4's ru_maxrss: a child started by vfork and exec inherits its "
               "parent's high-water mark, so it reported the benchmark process's own peak for every run).")]
    ok = _ok(result["memory"])
    if len(ok) > 1:
        growth = ok[-1]["rss_ratio_to_1x"]
        met = "within" if growth <= GROWTH_TARGET else "over"
        lines += ["", (f"Resident memory from {ok[0]['factor']}x to {ok[-1]['factor']}x the population: "
                      f"{growth}x, {met} the {GROWTH_TARGET}x bound.")]
    return lines


def _plan(m: dict[str, Any]) -> list[str]:
    if "error" in m:
        return [f"**1 million patients**: not computed ({m['error']})."]
    return [
        (f"**1 million patients on a Ray cluster** (from the {m['from']}: {m['per_worker_patients_per_s']} "
        "patients/s per worker on this machine):"), "",
        f"- work: 1,000,000 / {m['per_worker_patients_per_s']} / 3600 = {m['worker_hours']} worker-hours;",
        (f"- workers for a {m['target_hours']}-hour run: ceil(1,000,000 / ({m['per_worker_patients_per_s']} x "
        f"{m['target_hours']} x 3600)) = {m['workers']} Ray actors (one per core), finishing in "
        f"{m['hours_at_that_size']} h;"),
        (f"- memory per worker: {m['memory_per_worker_mb']} MB (the largest local 1-worker peak above, which "
        "also holds the spool pass and the regrouping; it depends on the largest patient, not on the population); "
        f"the largest single process of the Ray runs was {m['ray_largest_process_mb']} MB;"),
        (f"- cluster: {m['nodes']} nodes of {m['cores_per_node']} cores, each needing about "
        f"{m['memory_per_node_gb']} GB for its actors, plus Ray's object store for the shuffle;"),
        (f"- input: the Parquet spool takes about {m['spool_gb']} GB (measured bytes per patient x 10^6), read "
        "by Ray Data from shared storage; the driver journals results, so a rerun after a lost node "
        "continues where it stopped."),
    ]


def markdown(result: dict[str, Any]) -> str:
    floor = result.get("floor", {"what": "gzip + orjson.loads", "patients_per_s": "—", "patients": "—", "seconds": "—"})
    failed = [f"**The benchmark stopped early**: {result['error']}", ""] if "error" in result else []
    lines = ["## Population screening (`benchmarks/bench_screen.py`)", "", *failed,
             f"Input: {result['input']} replicated with fresh ids; watch list {result['watchlist']}. "
             f"{result['cpus']} CPUs; load average (1, 5, 15 min) {result['load_average_at_start']} at the start, "
             f"{result.get('load_average_at_end')} at the end" + (" (quick smoke run)." if result.get("quick") else "."),
             (f"Floor: {floor['what']}: {floor['patients_per_s']} patients/s ({floor['patients']} patients in "
             f"{floor['seconds']} s)."), "", *_throughput(result), "", *_memory(result), "", *_plan(result["million"]),
             ""]
    return "\n".join(lines)
