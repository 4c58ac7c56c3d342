"""Ingest per bundle: orjson parse alone (the floor) vs full adapter ingest vs graph + context
store build (build_index, notes off), in resources/s and MB/s, each with its ratio to the floor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from measure import Timing, summary, timed
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.core.query.lexicon import load_lexicon
from medeventgraph.fhir_adapters.ingest import ingest_json
from medeventgraph.model.settings import Settings

__all__ = ["bench_bundle", "bench_ingest", "load_record"]


def load_record(raw: bytes):
    result = ingest_json(raw)
    patients = result.patient_ids()
    return result.for_patient(patients[0])


def _with_lexical(index):
    index.store.lexical_index()
    return index


def bench_bundle(path: Path, repeats: int) -> dict[str, Any]:
    raw = path.read_bytes()
    settings = Settings(notes=False)
    load_lexicon()  # loaded once per process in any real caller; not part of a build
    n_resources = len(orjson.loads(raw).get("entry", []))
    mb = len(raw) / 1e6

    record = load_record(raw)
    # Interleaved: each repeat times every stage once, so on a shared machine the ratios to the
    # floor come from the same moments rather than from different minutes.
    stages = {
        "parse": lambda: orjson.loads(raw),
        "ingest": lambda: ingest_json(raw),
        "build": lambda: build_index(record, settings),
        # the BM25 index is built on first lexical search; timed here as build + that step
        "build_with_lexical": lambda: _with_lexical(build_index(record, settings)),
        "ingest_and_build": lambda: build_index(load_record(raw), settings),
    }
    runs = {name: Timing([], []) for name in stages}
    for _ in range(repeats):
        for name, fn in stages.items():
            t = timed(fn, 1)
            runs[name].wall.extend(t.wall)
            runs[name].cpu.extend(t.cpu)
            runs[name].result = t.result
    parse, ingest, build, build_lexical, end_to_end = (runs[n] for n in stages)
    index = build.result
    floor = summary(parse.wall)
    floor_cpu = summary(parse.cpu)["median"]

    def stage(t) -> dict[str, Any]:
        s = t.summary()
        med = s["median"]
        return {
            "seconds": s,
            "resources_per_s": round(n_resources / med, 1),
            "mb_per_s": round(mb / med, 2),
            "ratio_to_parse": round(med / floor["median"], 2),
            "ratio_to_parse_min": round(s["min"] / floor["min"], 2),  # best case vs best case
            "ratio_to_parse_cpu": round(s["cpu_median"] / floor_cpu, 2) if floor_cpu > 0 else None,
        }

    return {
        "bundle": path.name,
        "mb": round(mb, 3),
        "resources": n_resources,
        "occurrences": len(index.occurrences),
        "graph_edges": index.graph.g.number_of_edges(),
        "parse": stage(parse),
        "ingest": stage(ingest),
        "build": stage(build),
        "build_with_lexical": stage(build_lexical),
        "ingest_and_build": stage(end_to_end),
    }


def bench_ingest(bundles: list[Path], repeats: int, log=print) -> list[dict[str, Any]]:
    out = []
    for path in bundles:
        row = bench_bundle(path, repeats)
        log(f"  ingest {path.name[:40]:40s} parse {row['parse']['seconds']['median'] * 1e3:7.1f} ms"
            f"  ingest x{row['ingest']['ratio_to_parse']:<5}  build x{row['build']['ratio_to_parse']}")
        out.append(row)
    return out
