"""Per-query latency of the discovery controller against the spine's simple path, same run.

    .venv/bin/python benchmarks/bench_controller.py [--repeat 3] [--out results/controller_bench.json]

Indexes are built once (notes off, so the figure is discovery + contract + assessment);
each query runs `repeat` times per path, alternating paths so drift hits both alike.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import orjson
from medeventgraph.core.index import build_index
from medeventgraph.core.query import VerificationQuery
from medeventgraph.core.verify import simple_discovery, verify_query
from medeventgraph.fhir_adapters.ingest import load_paths
from medeventgraph.settings import Settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _q(qid: str, steps: list[tuple[str, str | None]], scope: str = "encounter", within: str | None = None,
       hidden: tuple[int, ...] = ()) -> VerificationQuery:
    events = []
    for k, (text, kind) in enumerate(steps):
        e: dict = {"id": f"e{k}", "kind": kind}
        e.update({"hidden": True} if k in hidden else {"text": text})
        events.append(e)
    rels = [{"from": f"e{k}", "to": f"e{k + 1}", "type": "before", **({"within": within} if within else {})}
            for k in range(len(steps) - 1)]
    return VerificationQuery.model_validate({"id": qid, "events": events, "relations": rels, "scope": scope})


WORKLOAD = {
    "synthea/Lance203_Padberg411_716c6d0a-2a5d-0aaa-9ced-312ed6a943da.json": [
        _q("vanco<norepi", [("vancomycin", "medication"), ("norepinephrine", "medication")]),
        _q("norepi<vanco", [("norepinephrine", "medication"), ("vancomycin", "medication")]),
        _q("sepsis<vanco", [("sepsis", "condition"), ("vancomycin", "medication")]),
        _q("lactate<pip 1h", [("lactate", "lab"), ("piperacillin", "medication")], within="PT1H"),
        _q("lactate<pip<norepi", [("lactate", "lab"), ("piperacillin", "medication"), ("norepinephrine", "medication")]),
        _q("lactate<?med<norepi", [("lactate", "lab"), ("", "medication"), ("norepinephrine", "medication")], hidden=(1,)),
    ],
    "synthea/Boyce638_Nolan344_9c5b16dc-8a47-896c-4d74-f96f8c98891b.json": [
        _q("aspirin<clopi<heparin", [("aspirin", "medication"), ("clopidogrel", "medication"), ("heparin", "medication")]),
        _q("heparin<aspirin", [("heparin", "medication"), ("aspirin", "medication")]),
    ],
    "clinosim:pt-51e7620acf86": [
        _q("vanco<AKI", [("vancomycin", "medication"), ("acute kidney injury", "condition")]),
        _q("vanco<rise<AKI", [("vancomycin", "medication"), ("creatinine rise", "derived"),
                              ("acute kidney injury", "condition")]),
        _q("vanco<?derived<AKI", [("vancomycin", "medication"), ("", "derived"), ("acute kidney injury", "condition")],
           hidden=(1,)),
    ],
}


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(0.95 * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("results/controller_bench.json"))
    args = ap.parse_args()
    settings = Settings(notes=False)
    clinosim = None
    times: dict[str, list[float]] = {"controller": [], "simple": []}
    rows = []
    for source, queries in WORKLOAD.items():
        if source.startswith("clinosim:"):
            clinosim = clinosim or load_paths([DATA / "clinosim" / "fhir_r4"])
            record = clinosim.for_patient(source.split(":", 1)[1])
        else:
            result = load_paths([DATA / source])
            record = result.for_patient(result.patient_ids()[0])
        index = build_index(record, settings)
        for q in queries:
            per: dict[str, list[float]] = {"controller": [], "simple": []}
            verdicts = {}
            for _ in range(args.repeat):
                for name, fn in (("controller", None), ("simple", simple_discovery)):
                    t0 = time.perf_counter()
                    v = verify_query(index, q, settings, discover=fn)
                    per[name].append((time.perf_counter() - t0) * 1000)
                    verdicts[name] = (v.verdict.value, v.s_plus, v.s_minus, len(v.evidence))
            for name, xs in per.items():
                times[name].extend(xs)
            rows.append({"source": source, "query": q.id,
                         **{f"{n}_ms_median": round(statistics.median(per[n]), 2) for n in per},
                         **{f"{n}_verdict": verdicts[n] for n in verdicts}})
    summary = {n: {"median_ms": round(statistics.median(xs), 2), "p95_ms": round(_p95(xs), 2), "n": len(xs)}
               for n, xs in times.items()}
    out = {"summary": summary, "queries": rows, "repeat": args.repeat, "notes": False,
           "settings": {"d_max": settings.d_max, "r_max": settings.r_max, "k": settings.k_neighbours,
                        "b": settings.top_b, "final_contexts": settings.final_contexts}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps(out, option=orjson.OPT_INDENT_2))
    for r in rows:
        print(f"{r['query']:24s} ctrl {r['controller_ms_median']:8.1f} ms {r['controller_verdict'][0]:12s}"
              f" simple {r['simple_ms_median']:8.1f} ms {r['simple_verdict'][0]}")
    print(orjson.dumps(summary).decode())


if __name__ == "__main__":
    main()
