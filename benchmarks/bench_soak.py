"""Soak: the service under sustained load, for memory per request and latency drift.

`medeventgraph serve` runs as its own process on a loopback port (JWT checks off: a bench, not a
deployment), so its resident memory (VmRSS) is the server's alone. N client threads, each with
one keep-alive connection, call patient-view and verify on one Synthea record in turn; every
FRESH_EVERY-th call of a client sends the record as a patient the service has not seen (a new
content hash), so the caches keep turning over as in a clinic, not only serving one entry.
Steady state from the first window on: before the clock starts, the warm-up fills the service's
bounded caches with fresh records — the index cache (`graph_cache_size` records) and the note
cache (`note_cache_chars` characters of note text, `note_cache_size` notes) — and the clients'
fresh calls are staggered (client k sends its first one at call k mod FRESH_EVERY), so the first
window has the same mix as the last. What memory the caches take while filling is reported
apart (`warmup`), so the windows show what the server does once they are full.
A fresh record is the same size as the original (`bench_hook._fresh`), under the service's
request limit (its default, `max_request_bytes` 8 MiB, checked before the run): the soak measures
steady state, not the limit.

Every call must be answered: a call with no HTTP answer (reset, timeout, a dropped connection)
is counted under `unanswered` and, like any status but 200, in `errors`; `every_call_answered`
and `errors_total` say it in soak.json.

Reported per window (a minute, or a quarter of a short run) over the whole run: calls, latency,
server RSS; as ratios of the last window to the first: latency median and p95, throughput, RSS;
and memory per request, the RSS change between the first and last windows divided by the calls
answered in between. The server inherits the environment (e.g. `MALLOC_ARENA_MAX=2` to compare
glibc arenas; recorded under `server_env`). Nothing here asserts a time.

    .venv/bin/python benchmarks/bench_soak.py [--seconds 120] [--clients 20] [--out results] [--name soak.json]
"""

from __future__ import annotations

import argparse
import base64
import math
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
from bench_hook import PATIENT_VIEW, VERIFY, _body, _fresh, prefetch_for
from measure import REPO, default_data_dir, patient_bundles, summary
from medeventgraph.model.settings import Settings

__all__ = ["bench_soak"]

FRESH_EVERY = 20  # with ~35 calls per client a minute, enough new records to turn the 32-entry cache over
_SAMPLE_SECONDS = 0.5
UNANSWERED = -1  # the status recorded for a call that got no HTTP answer
_WARMUP_MAX = 200  # fresh records at most (a record with tiny notes would take thousands to fill the note cache)
_ENV_SHOWN = ("MALLOC_ARENA_MAX", "MALLOC_TRIM_THRESHOLD_", "PYTHONMALLOC")  # recorded when set


def _note_chars(prefetch: dict[str, Any]) -> int:
    """Characters of note text in a prefetch (its attachments decoded): what the note cache weighs."""
    return sum(len(base64.b64decode(c["attachment"]["data"]).decode("utf-8", "replace"))
               for e in prefetch["documents"]["entry"] for c in e["resource"].get("content", [])
               if isinstance(c.get("attachment", {}).get("data"), str))


def warmup_records(settings: Settings, note_chars: int, notes: int, seconds: float) -> int:
    """Fresh records that fill the index cache and the note cache (whichever of its bounds,
    characters or notes, comes first), plus a few so both have turned over before the clock
    starts; at most _WARMUP_MAX. A smoke run (under a minute) fills the index cache only."""
    fill_notes = min(math.ceil(settings.note_cache_chars / note_chars) if note_chars else 0,
                     math.ceil(settings.note_cache_size / notes) if notes else 0)
    if seconds < 60:
        return settings.graph_cache_size
    return min(max(settings.graph_cache_size, fill_notes) + 4, _WARMUP_MAX)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _start_server(port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MEG_JWT_REQUIRED": "false", "MEG_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}"}
    proc = subprocess.Popen([sys.executable, "-m", "medeventgraph.cli", "serve", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    give_up = time.monotonic() + 120
    while time.monotonic() < give_up:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/cds-services", timeout=5).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the service did not start")


def _window(calls: list[tuple[float, float, int]], rss: list[tuple[float, float]], lo: float, hi: float
            ) -> dict[str, Any]:
    lat = [d for t, d, s in calls if lo <= t < hi and s == 200]
    mem = [m for t, m in rss if lo <= t < hi]
    return {"from_s": round(lo, 1), "to_s": round(hi, 1), "calls": len(lat), "calls_per_s": round(len(lat) / (hi - lo), 2),
            "latency_seconds": summary(lat, p95=True) if lat else None,
            "rss_mb": summary(mem, digits=1) if mem else None}


def _per_request_kb(calls: list[tuple[float, float, int]], a: dict[str, Any], b: dict[str, Any],
                    width: float) -> float | None:
    """RSS change between windows a and b (medians) over the calls answered from a's middle to b's."""
    between = sum(1 for t, _, s in calls if a["from_s"] + width / 2 <= t < b["from_s"] + width / 2 and s == 200)
    if not (a["rss_mb"] and b["rss_mb"] and between):
        return None
    return round((b["rss_mb"]["median"] - a["rss_mb"]["median"]) * 1024 / between, 3)


def bench_soak(path: Path, seconds: float, clients: int, log=print) -> dict[str, Any]:
    raw = path.read_bytes()
    patient, prefetch = prefetch_for(orjson.loads(raw))
    query = {"id": "soak", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                                      {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
             "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}
    warm = {VERIFY: _body("medeventgraph-verify", patient, prefetch, query, 0),
            PATIENT_VIEW: _body("patient-view", patient, prefetch, None, 0)}
    limit = Settings().max_request_bytes  # what `serve` runs with (the soak sets no MEG_MAX_REQUEST_BYTES)
    largest = max(len(_body("medeventgraph-verify", patient, _fresh(prefetch, (clients + 1) * 1_000_000), query, 0)),
                  *(len(b) for b in warm.values()))
    if largest > limit:
        raise ValueError(f"soak bodies of {largest} bytes would exceed max_request_bytes {limit}")
    settings = Settings()  # what `serve` runs with: the soak sets no MEG_ variables but the JWT ones
    warm_n = warmup_records(settings, _note_chars(prefetch), len(prefetch["documents"]["entry"]), seconds)
    port = _free_port()
    base = f"http://127.0.0.1:{port}/cds-services"
    server = _start_server(port)
    calls: list[tuple[float, float, int]] = []  # (seconds since start, latency, status)
    rss: list[tuple[float, float]] = []
    failures: dict[str, int] = {}
    lock = threading.Lock()
    try:
        rss_before_warmup = _rss_mb(server.pid)
        warm_rss: list[float] = []
        warm_statuses: dict[str, int] = {}
        with httpx.Client(timeout=300) as http:  # warm-up: imports, note pipeline, full caches
            for service, body in warm.items():
                http.post(f"{base}/{service}", content=body, headers={"Content-Type": "application/json"})
            for k in range(warm_n):
                status = http.post(f"{base}/{PATIENT_VIEW}", headers={"Content-Type": "application/json"},
                                   content=_body("patient-view", patient, _fresh(prefetch, k), None, k)).status_code
                warm_statuses[str(status)] = warm_statuses.get(str(status), 0) + 1  # a 503 filled no cache
                warm_rss.append(_rss_mb(server.pid))
        start = time.monotonic()
        stop_at = start + seconds
        rss_at_start = _rss_mb(server.pid)

        def client(k: int) -> None:
            with httpx.Client(timeout=300) as http:
                n = 0
                while time.monotonic() < stop_at:
                    n += 1
                    service = VERIFY if (n + k) % 2 else PATIENT_VIEW
                    body = warm[service]
                    if n % FRESH_EVERY == k % FRESH_EVERY:
                        hook = "medeventgraph-verify" if service == VERIFY else "patient-view"
                        body = _body(hook, patient, _fresh(prefetch, (k + 1) * 1_000_000 + n),
                                     query if service == VERIFY else None, n)
                    t0 = time.monotonic()
                    try:
                        status = http.post(f"{base}/{service}", content=body,
                                           headers={"Content-Type": "application/json"}).status_code
                    except httpx.HTTPError as exc:
                        status = UNANSWERED
                        with lock:
                            failures[type(exc).__name__] = failures.get(type(exc).__name__, 0) + 1
                    t1 = time.monotonic()
                    with lock:
                        calls.append((t1 - start, t1 - t0, status))

        threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            rss.append((time.monotonic() - start, _rss_mb(server.pid)))
            time.sleep(_SAMPLE_SECONDS)
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
    finally:
        server.terminate()
        server.wait(timeout=60)
    width = min(60.0, seconds / 4)
    edges = [i * width for i in range(int(seconds // width))] + [seconds - width]
    windows = [_window(calls, rss, lo, lo + width) for lo in sorted(set(edges))]
    first, last = windows[0], windows[-1]
    between = sum(1 for t, _, s in calls if width / 2 <= t < seconds - width / 2 and s == 200)
    statuses: dict[str, int] = {}
    for _, _, s in calls:
        key = "unanswered" if s == UNANSWERED else str(s)
        statuses[key] = statuses.get(key, 0) + 1
    errors = {k: n for k, n in statuses.items() if k != "200"}

    def ratio(key: str, stat: str) -> float | None:
        a, b = first[key], last[key]
        return round(b[stat] / a[stat], 3) if a and b and a[stat] else None

    out = {
        "bundle": path.name, "clients": clients, "seconds": seconds, "elapsed_seconds": round(elapsed, 1),
        "fresh_record_every": FRESH_EVERY, "window_seconds": width,
        "max_request_bytes": limit, "largest_body_bytes": largest,
        "calls": len(calls), "statuses": statuses, "errors": errors, "errors_total": sum(errors.values()),
        "every_call_answered": statuses.get("unanswered", 0) == 0,
        "transport_failures": failures, "server_env": {k: os.environ[k] for k in _ENV_SHOWN if k in os.environ},
        "note_cache_size": settings.note_cache_size, "note_cache_chars": settings.note_cache_chars,
        "graph_cache_size": settings.graph_cache_size, "record_note_chars": _note_chars(prefetch),
        "warmup": {"fresh_records": warm_n, "statuses": warm_statuses, "rss_mb_before": round(rss_before_warmup, 1),
                   "rss_mb_after": round(rss_at_start, 1),
                   "rss_mb_every_8th_record": [round(m, 1) for m in warm_rss[::8]]},
        "rss_mb_at_start": round(rss_at_start, 1),
        "windows": [{"from_s": w["from_s"], "to_s": w["to_s"], "calls": w["calls"],
                     "latency_median_s": w["latency_seconds"]["median"] if w["latency_seconds"] else None,
                     "rss_mb_median": w["rss_mb"]["median"] if w["rss_mb"] else None,
                     "rss_mb_max": w["rss_mb"]["max"] if w["rss_mb"] else None} for w in windows],
        "first_window": first, "last_window": last,
        "memory_per_request_kb": (round((last["rss_mb"]["median"] - first["rss_mb"]["median"]) * 1024 / between, 3)
                                  if first["rss_mb"] and last["rss_mb"] and between else None),
        # the same over the second half only: what is left once the first minutes' high water
        # (requests in flight at once, parsed bodies, concurrent builds) has been reached
        "memory_per_request_kb_second_half": _per_request_kb(calls, windows[len(windows) // 2], last, width),
        "ratio_last_to_first": {"latency_median": ratio("latency_seconds", "median"),
                                "latency_p95": ratio("latency_seconds", "p95"),
                                "calls_per_s": round(last["calls_per_s"] / first["calls_per_s"], 3)
                                if first["calls_per_s"] else None,
                                "rss_median": ratio("rss_mb", "median")},
    }
    log(f"  soak {clients} clients x {seconds:g} s: {len(calls)} calls {statuses}, errors {out['errors_total']}, "
        f"memory/request {out['memory_per_request_kb']} KB, last/first {out['ratio_last_to_first']}")
    return out


def markdown(result: dict[str, Any]) -> str:
    """The BENCH.md section, generated from the measured result."""
    r = result["ratio_last_to_first"]
    first, last = result["first_window"], result["last_window"]
    warm = result.get("warmup")

    def ms(window: dict[str, Any], stat: str) -> str:
        return f"{window['latency_seconds'][stat] * 1e3:.0f}" if window["latency_seconds"] else "-"

    lines = [
        "## Soak (memory and latency under load)", "",
        (f"{result['clients']} clients x {result['seconds']:g} s on `{result['bundle']}` (a fresh record every "
         f"{result['fresh_record_every']}th call per client, bodies up to {result['largest_body_bytes']} bytes "
         f"under the {result['max_request_bytes']}-byte request limit): {result['calls']} calls, statuses "
         f"{result['statuses']}; errors (any answer but 200, or none): {result['errors_total']}; every call "
         f"answered: {'yes' if result['every_call_answered'] else 'NO'}; transport failures "
         f"{result['transport_failures'] or 'none'}."
         + (f" Server environment: {result['server_env']}." if result.get("server_env") else "")), ""]
    if warm:
        lines += [(f"Warm-up before the clock: {warm['fresh_records']} fresh records fill the bounded caches "
                   f"(index cache `graph_cache_size` {result['graph_cache_size']} records; note cache "
                   f"`note_cache_chars` {result['note_cache_chars']} characters / `note_cache_size` "
                   f"{result['note_cache_size']} notes, this record has {result['record_note_chars']} characters "
                   f"of notes): server RSS {warm['rss_mb_before']} MB -> {warm['rss_mb_after']} MB while they fill "
                   f"(every 8th record: {warm['rss_mb_every_8th_record']}; statuses {warm.get('statuses')}). That growth is the caches reaching "
                   f"their bounds; the windows below are after it."), ""]
    lines += [
        f"| window ({result['window_seconds']:g} s) | calls/s | latency p50 ms | p95 ms | server RSS MB |",
        "|---|---:|---:|---:|---:|",
        (f"| first | {first['calls_per_s']} | {ms(first, 'median')} | {ms(first, 'p95')} | "
         f"{first['rss_mb']['median'] if first['rss_mb'] else '-'} |"),
        (f"| last | {last['calls_per_s']} | {ms(last, 'median')} | {ms(last, 'p95')} | "
         f"{last['rss_mb']['median'] if last['rss_mb'] else '-'} |"),
        f"| last / first | {r['calls_per_s']} | {r['latency_median']} | {r['latency_p95']} | {r['rss_median']} |",
        ""]
    if result.get("windows"):
        lines += ["Server RSS over the whole run (median / max MB per window): " + ", ".join(
            f"{w['from_s']:g}-{w['to_s']:g} s {w['rss_mb_median']} / {w['rss_mb_max']}" for w in result["windows"]) + ".", ""]
    lines += [(f"Memory per request after the warm-up (RSS change between the first and last windows / calls "
               f"in between): {result['memory_per_request_kb']} KB; over the second half of the run only: "
               f"{result.get('memory_per_request_kb_second_half')} KB."), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=120.0, help="load duration (default 120; 300 for the long run)")
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--data", type=Path, default=default_data_dir())
    p.add_argument("--bundle", default=None, help="bundle file name (default: the median-size Synthea bundle)")
    p.add_argument("--out", type=Path, default=REPO / "results")
    p.add_argument("--name", default="soak.json", help="file written under --out (default soak.json)")
    args = p.parse_args(argv)
    bundles = sorted(patient_bundles(args.data), key=lambda b: b.stat().st_size)
    target = next(b for b in bundles if b.name == args.bundle) if args.bundle else bundles[len(bundles) // 2]
    result = bench_soak(target, args.seconds, args.clients)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / args.name).write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    print(markdown(result))
    print(f"wrote {args.out / args.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
