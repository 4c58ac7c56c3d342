"""Verification latency with the patient's index warm: median and p95 per query type.

Each query runs once untimed (the first call matches the query's own words in notes and fills
the index's caches), then `repeats` timed calls; latencies of all queries of one type pool."""

from __future__ import annotations

import time
from typing import Any

from measure import summary
from medeventgraph.core.answer import verify_query
from medeventgraph.model.settings import Settings
from queries import QUERY_TYPES, make_queries

__all__ = ["bench_queries"]


def bench_queries(index, settings: Settings, repeats: int) -> dict[str, Any]:
    queries = make_queries(list(index.occurrences.values()))
    out: dict[str, Any] = {}
    for qtype in QUERY_TYPES:
        first: list[float] = []
        warm: list[float] = []
        warm_cpu: list[float] = []
        verdicts: dict[str, str] = {}
        for q in queries[qtype]:
            t0 = time.perf_counter()
            v = verify_query(index, q, settings)
            first.append(time.perf_counter() - t0)
            verdicts[q.id] = v.verdict.value
            for _ in range(repeats):
                c0 = time.process_time()
                t0 = time.perf_counter()
                verify_query(index, q, settings)
                warm.append(time.perf_counter() - t0)
                warm_cpu.append(time.process_time() - c0)
        out[qtype] = {"warm_seconds": summary(warm, p95=True), "warm_cpu_seconds": summary(warm_cpu, p95=True),
                      "first_call_seconds": summary(first), "verdicts": verdicts}
    return out
