"""CDS Hooks end-to-end latency over loopback HTTP: the real service under uvicorn, started here
on a free 127.0.0.1 port (JWT checks off: a bench, not a deployment), called with httpx.

cold: a patient the service has not seen — every repetition sends the record with a fresh
Patient.meta.versionId and note texts with a different trailing newline count, so both the
index cache and the note-NLP cache miss while the process itself is warm (imports, spaCy
pipeline), as a long-running service is. warm: the same request again (cached index)."""

from __future__ import annotations

import argparse
import base64
import copy
import gc
import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import orjson
from measure import summary
from medeventgraph.app import serving
from medeventgraph.cds_hooks import create_app
from medeventgraph.cds_hooks.app import SERVING_GC_YOUNG_THRESHOLD
from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH
from medeventgraph.model.settings import Settings
from queries import make_queries

__all__ = ["bench_hook", "hook_request", "prefetch_for", "serve"]

# prefetch key -> resource type, read from the service's own templates
PREFETCH_TYPES = {key: re.split(r"[/?]", template, maxsplit=1)[0] for key, template in PATIENT_PREFETCH.items()}
PATIENT_VIEW = "medeventgraph-patient-view"
VERIFY = "medeventgraph-verify"


def _rewrite(node: Any, urn: dict[str, str]) -> None:
    if isinstance(node, list):
        for n in node:
            _rewrite(n, urn)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k == "reference" and isinstance(v, str) and v in urn:
                node[k] = urn[v]
            else:
                _rewrite(v, urn)


def prefetch_for(bundle: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(patient id, prefetch) as an EHR would send it: searchset Bundles per type, Type/id refs."""
    entries = [copy.deepcopy(e) for e in bundle["entry"] if "resource" in e]
    urn = {e["fullUrl"]: f"{e['resource']['resourceType']}/{e['resource']['id']}"
           for e in entries if e.get("fullUrl", "").startswith("urn:uuid:")}
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        _rewrite(e["resource"], urn)
        by_type[e["resource"]["resourceType"]].append(e["resource"])
    out: dict[str, Any] = {}
    for key, rtype in PREFETCH_TYPES.items():
        if rtype == "Patient":
            out[key] = by_type["Patient"][0]
        else:
            res = by_type.get(rtype, [])
            out[key] = {"resourceType": "Bundle", "type": "searchset", "total": len(res),
                        "entry": [{"fullUrl": f"{rtype}/{r['id']}", "resource": r} for r in res]}
    return by_type["Patient"][0]["id"], out


def _note_attachments(prefetch: dict[str, Any]) -> list[dict[str, Any]]:
    """Every attachment holding note text in the prefetch: DocumentReference.content and
    DiagnosticReport.presentedForm (Synthea repeats each note in both)."""
    out = []
    for key, field in (("documents", "content"), ("diagnosticReports", "presentedForm")):
        for entry in (prefetch.get(key) or {}).get("entry", []):
            for item in entry["resource"].get(field, []):
                out.append(item.get("attachment", {}) if field == "content" else item)
    return out


def _fresh(prefetch: dict[str, Any], nonce: int) -> dict[str, Any]:
    """The same record as a patient the service has never seen (new content hashes). Each note
    text, wherever the record carries it, gets the nonce as trailing whitespace (its binary digits
    as spaces and tabs): new text for the note cache, the same findings, and a few dozen bytes more
    whatever the nonce, so a fresh record stays the size of the original (under the service's
    request limit). A text two resources repeat stays one text, as in the record."""
    out = orjson.loads(orjson.dumps(prefetch))
    out["patient"].setdefault("meta", {})["versionId"] = f"bench-{nonce}"
    suffix = ("\n" + format(nonce, "b").replace("0", " ").replace("1", "\t")).encode()
    for att in _note_attachments(out):
        if isinstance(att.get("data"), str):
            text = base64.b64decode(att["data"])
            att["data"] = base64.b64encode(text + suffix).decode()
    return out


def serve(settings_kwargs: dict[str, Any], *, warm: bool = True):
    """The service on a free loopback port (the same helper the tests use), warmed at start-up as
    `medeventgraph serve` runs it (`warm`: core imports and note pipeline before the first request)."""
    return serving(lambda base: create_app(Settings(public_base_url=base, **settings_kwargs), warm=warm),
                   log_level="error")


def _body(hook: str, patient: str, prefetch: dict[str, Any], query: dict | None, n: int) -> bytes:
    context: dict[str, Any] = {"patientId": patient, "userId": "Practitioner/bench"}
    if query is not None:
        context["query"] = query
    return orjson.dumps({"hook": hook, "hookInstance": f"bench-{n}", "context": context, "prefetch": prefetch})


_CPU: list[float] = []  # process CPU seconds of each call (server and client share the process)


def _call(http: httpx.Client, url: str, body: bytes) -> float:
    gc.collect()
    c0 = time.process_time()
    t0 = time.perf_counter()
    resp = http.post(url, content=body, headers={"Content-Type": "application/json"})
    dt = time.perf_counter() - t0
    _CPU.append(time.process_time() - c0)
    if resp.status_code != 200:
        raise RuntimeError(f"hook call failed: {resp.status_code} {resp.text[:300]}")
    return dt


def _index_facts(app: Any) -> dict[str, Any]:
    """What the service built for the last patient: whether note NLP ran inside the hook."""
    cache = app.state.meg.engine.cache
    items = list(getattr(cache, "_items", {}).values())
    if not items:
        return {}
    index = items[-1]
    notes = sum(1 for o in index.occurrences.values() if o.origin.value == "note")
    return {"occurrences": len(index.occurrences), "note_mentions": notes,
            "note_nlp_in_hook": getattr(index, "notes", None) is not None or notes > 0}


def hook_request(raw: bytes) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(patient id, prefetch, the first pairwise query) for a bundle's bytes: what every hook bench sends."""
    from bench_ingest import load_record
    from medeventgraph.core.index.patient_index import build_index

    patient, prefetch = prefetch_for(orjson.loads(raw))
    query = make_queries(list(build_index(load_record(raw), Settings(notes=False)).occurrences.values()))
    return patient, prefetch, query["pairwise"][0].dump()


def bench_hook(path: Path, repeats: int, log=print) -> dict[str, Any]:
    raw = path.read_bytes()
    patient, prefetch, pairwise = hook_request(raw)
    out: dict[str, Any] = {"bundle": path.name, "mb": round(len(raw) / 1e6, 3),
                           "request_mb": round(len(_body(VERIFY, patient, prefetch, pairwise, 0)) / 1e6, 3)}
    started = time.perf_counter()
    with serve({"jwt_required": False}) as (base, app), httpx.Client(timeout=300) as http:
        # Start-up pays the core's imports and the note pipeline (warm), before the socket accepts.
        out["start_up_seconds"] = round(time.perf_counter() - started, 6)
        n = 0
        # The first call after start: what is left of the process's set-up, if anything, and a cold record.
        t = _call(http, f"{base}/cds-services/{VERIFY}", _body(VERIFY, patient, _fresh(prefetch, 10_000),
                                                                  pairwise, n))
        out["first_call_after_start_seconds"] = round(t, 6)
        for hook, service, q in (("medeventgraph-verify", VERIFY, pairwise),
                                 ("patient-view", PATIENT_VIEW, None)):
            cold: list[float] = []
            _CPU.clear()
            for rep in range(repeats):
                n += 1
                body = _body(hook, patient, _fresh(prefetch, n), q, n)
                cold.append(_call(http, f"{base}/cds-services/{service}", body))
            cold_cpu = list(_CPU)
            facts = _index_facts(app)
            warm_body = _body(hook, patient, _fresh(prefetch, n), q, n)
            _CPU.clear()
            warm = [_call(http, f"{base}/cds-services/{service}", warm_body) for _ in range(max(5, repeats * 5))]
            out[hook] = {"cold_seconds": summary(cold, p95=True), "warm_seconds": summary(warm, p95=True),
                         "cold_cpu_seconds": summary(cold_cpu, p95=True), "warm_cpu_seconds": summary(_CPU, p95=True),
                         "index": facts}
            log(f"  hook {hook:22s} cold {summary(cold)['median'] * 1e3:7.1f} ms  "
                f"warm p95 {summary(warm, p95=True)['p95'] * 1e3:6.1f} ms  {facts}")
    out["gc_threshold"] = gc_threshold_sides(path, repeats)
    log(f"  cold verify in a fresh service, Python's default collector threshold / the service's: "
        f"x{out['gc_threshold']['default_over_serving']}")
    return out


def gc_threshold_sides(path: Path, calls: int, rounds: int = 2) -> dict[str, Any]:
    """Cold verify calls in fresh service processes, one side keeping the threshold the serving
    process sets (the app's SERVING_GC_YOUNG_THRESHOLD), the other put back to Python's default;
    the sides alternate, `rounds` processes each. Fresh processes because the collector's cost
    falls on the first calls, while the heap still grows with the caches."""
    times: dict[str, list[float]] = {"default": [], "serving": []}
    for _ in range(rounds):
        for side in times:
            cmd = [sys.executable, __file__, "--gc-side", side, "--calls", str(calls), "--bundle", str(path)]
            done = subprocess.run(cmd, cwd=Path(__file__).parent, capture_output=True, text=True, check=True)
            times[side] += json.loads(done.stdout.strip().splitlines()[-1])
    med = {side: summary(t)["median"] for side, t in times.items()}
    return {"default_threshold": 700, "serving_threshold": SERVING_GC_YOUNG_THRESHOLD, "processes_per_side": rounds,
            "cold_seconds": {side: summary(t) for side, t in times.items()},
            "default_over_serving": round(med["default"] / med["serving"], 2)}


def _gc_side(path: Path, side: str, calls: int) -> list[float]:
    """One fresh service: the cold verify call after start, then `calls` more, timed."""
    patient, prefetch, pairwise = hook_request(path.read_bytes())
    with serve({"jwt_required": False}) as (base, _app), httpx.Client(timeout=300) as http:
        if side == "default":
            gc.set_threshold(700, *gc.get_threshold()[1:])
        url = f"{base}/cds-services/{VERIFY}"
        _call(http, url, _body(VERIFY, patient, _fresh(prefetch, 10_000), pairwise, 0))
        return [_call(http, url, _body(VERIFY, patient, _fresh(prefetch, n), pairwise, n)) for n in range(1, calls + 1)]


if __name__ == "__main__":
    p = argparse.ArgumentParser(description="one side of gc_threshold_sides (run by make bench)")
    p.add_argument("--gc-side", choices=("default", "serving"), required=True)
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--bundle", type=Path, required=True)
    a = p.parse_args()
    print(json.dumps(_gc_side(a.bundle, a.gc_side, a.calls)))
