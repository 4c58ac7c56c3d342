"""Growth: one patient's record replicated 1x, 2x, 4x, 8x — each copy shifted later in time by
the record's span and given fresh ids, with every reference rewritten consistently — then the
same measures (parse, ingest, build, warm queries) and tracemalloc peak memory of the build."""

from __future__ import annotations

import re
import tracemalloc
from datetime import date, datetime, timedelta
from typing import Any

import orjson
from bench_ingest import load_record
from bench_query import bench_queries
from measure import timed
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.fhir_adapters.ingest import ingest_json
from medeventgraph.model.settings import Settings

__all__ = ["bench_growth", "replicate"]

_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$")
_SHARED_TYPES = frozenset({"Patient", "Organization", "Practitioner", "PractitionerRole", "Location"})


def _shift_text(value: str, days: int) -> str:
    if len(value) == 10:
        return (date.fromisoformat(value) + timedelta(days=days)).isoformat()
    dt = datetime.fromisoformat(value)
    out = (dt + timedelta(days=days)).isoformat()
    if value.endswith("Z"):
        out = out.replace("+00:00", "Z")
    return out


def _walk(node: Any, days: int, refs: dict[str, str]) -> Any:
    if isinstance(node, dict):
        return {k: _leaf(k, v, days, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [_walk(v, days, refs) for v in node]
    return node


def _leaf(key: str, value: Any, days: int, refs: dict[str, str]) -> Any:
    if isinstance(value, str):
        if key in ("reference", "fullUrl"):
            return refs.get(value, value)
        if key != "birthDate" and _DATETIME.match(value):
            try:
                return _shift_text(value, days)
            except ValueError:
                return value
        return value
    return _walk(value, days, refs)


def _span_days(bundle: dict[str, Any]) -> int:
    years = [int(m.group(1)) for m in re.finditer(rb'"(?:start|end|effectiveDateTime|date)":"(\d{4})-',
                                                   orjson.dumps(bundle))]
    return max(1, (max(years) - min(years) + 1) * 366) if years else 366


def replicate(bundle: dict[str, Any], factor: int) -> dict[str, Any]:
    """The bundle with its patient's history repeated `factor` times, copies placed one after
    another in time; shared resources (the Patient, organisations, practitioners) stay single."""
    entries = bundle["entry"]
    span = _span_days(bundle)
    out = list(entries)
    for copy_no in range(1, factor):
        refs: dict[str, str] = {}
        for e in entries:
            res = e["resource"]
            if res["resourceType"] in _SHARED_TYPES:
                continue
            new_id = f"{res['id'][:55]}-x{copy_no}"
            refs[f"{res['resourceType']}/{res['id']}"] = f"{res['resourceType']}/{new_id}"
            if e.get("fullUrl"):
                refs[e["fullUrl"]] = (f"urn:uuid:{new_id}" if e["fullUrl"].startswith("urn:uuid:")
                                      else e["fullUrl"].replace(res["id"], new_id))
        for e in entries:
            res = e["resource"]
            if res["resourceType"] in _SHARED_TYPES:
                continue
            new = _walk(e, span * copy_no, refs)
            new["resource"]["id"] = refs[f"{res['resourceType']}/{res['id']}"].partition("/")[2]
            out.append(new)
    return {**bundle, "entry": out}


def _peak_build_bytes(raw: bytes, settings: Settings) -> tuple[int, int]:
    """(peak bytes while ingesting + building, bytes still held by the built index)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        index = build_index(load_record(raw), settings)
        current, peak = tracemalloc.get_traced_memory()
        del index
    finally:
        tracemalloc.stop()
    return peak - base, current - base


def bench_growth(path, factors: list[int], repeats: int, log=print) -> dict[str, Any]:
    settings = Settings(notes=False)
    bundle = orjson.loads(path.read_bytes())
    rows = []
    for f in factors:
        raw = orjson.dumps(replicate(bundle, f))
        parse = timed(lambda raw=raw: orjson.loads(raw), repeats)
        ingest = timed(lambda raw=raw: ingest_json(raw), repeats)
        record = load_record(raw)
        build = timed(lambda record=record: build_index(record, settings), repeats)
        index = build.result
        queries = bench_queries(index, settings, max(2, repeats))
        peak, held = _peak_build_bytes(raw, settings)
        row = {
            "factor": f, "mb": round(len(raw) / 1e6, 3), "resources": len(orjson.loads(raw)["entry"]),
            "occurrences": len(index.occurrences),
            "parse_seconds": parse.summary(), "ingest_seconds": ingest.summary(), "build_seconds": build.summary(),
            "query_warm_seconds": {k: v["warm_seconds"] for k, v in queries.items()},
            "peak_memory_mb": round(peak / 2**20, 2), "index_memory_mb": round(held / 2**20, 2),
        }
        rows.append(row)
        log(f"  growth x{f}: {row['resources']} resources, build {row['build_seconds']['median'] * 1e3:.0f} ms,"
            f" pairwise p50 {row['query_warm_seconds']['pairwise']['median'] * 1e3:.1f} ms,"
            f" peak {row['peak_memory_mb']} MB")
    base = rows[0]

    def ratio(row: dict[str, Any], key: str) -> float:
        return round(row[key]["median"] / base[key]["median"], 2)

    for row in rows:
        row["ratio_to_1x"] = {
            "parse": ratio(row, "parse_seconds"), "ingest": ratio(row, "ingest_seconds"),
            "build": ratio(row, "build_seconds"),
            "pairwise": round(row["query_warm_seconds"]["pairwise"]["median"]
                              / base["query_warm_seconds"]["pairwise"]["median"], 2),
            "compositional": round(row["query_warm_seconds"]["compositional"]["median"]
                                   / base["query_warm_seconds"]["compositional"]["median"], 2),
            "hidden": round(row["query_warm_seconds"]["hidden"]["median"]
                            / base["query_warm_seconds"]["hidden"]["median"], 2),
            "peak_memory": round(row["peak_memory_mb"] / base["peak_memory_mb"], 2),
        }
    return {"bundle": path.name, "factors": factors, "rows": rows}
