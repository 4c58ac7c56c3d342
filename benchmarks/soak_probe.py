"""What grows under the soak's load: the service in-process, its caches and allocations counted.

Drives `create_app` on a loopback port in this process with the soak's request mix (the same
bodies as bench_soak: a fresh record, then repeats of the warm one) and after every `--step`
fresh records prints RSS, the length of every cache the service holds, spaCy's vocabulary,
and (with --tracemalloc) the allocation sites that grew most since the previous step.

    .venv/bin/python benchmarks/soak_probe.py [--fresh 150] [--step 15] [--repeats 3] [--tracemalloc]
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import orjson
from bench_hook import PATIENT_VIEW, VERIFY, _body, _fresh, prefetch_for
from bench_soak import _rss_mb
from measure import default_data_dir, patient_bundles
from medeventgraph.app import serving
from medeventgraph.cds_hooks import create_app
from medeventgraph.model.settings import Settings

QUERY = {"id": "soak", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                                  {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


def malloc_mb() -> dict[str, float]:
    """glibc's heap: bytes in use by malloc'd blocks, free bytes it holds in its arenas, mmapped blocks."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    return {"malloc_in_use_mb": round(info.uordblks / 2**20, 1), "malloc_free_held_mb": round(info.fordblks / 2**20, 1),
            "malloc_mmapped_mb": round(info.hblkhd / 2**20, 1)}


def cache_lengths(app: Any) -> dict[str, Any]:
    state = app.state.meg
    out: dict[str, Any] = {"index_cache": len(state.engine.cache), "replay": len(state.replay)}
    notes = state.engine._notes
    if notes is not None:
        out |= {"note_cache": len(notes.cache), "note_by_hash": len(notes.cache._by_hash),
                "matchers": len(notes._matchers), "vocab_strings": len(notes.nlp.vocab.strings),
                "vocab_lexemes": len(notes.nlp.vocab), "wordform_text_keys": len(notes.wordforms._text_keys),
                "wordform_term_keys": len(notes.wordforms._term_keys),
                "time_finder": notes.time_finder.find_all.cache_info().currsize}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fresh", type=int, default=150, help="fresh records to send")
    p.add_argument("--step", type=int, default=15)
    p.add_argument("--repeats", type=int, default=3, help="repeat calls per fresh record")
    p.add_argument("--tracemalloc", action="store_true")
    p.add_argument("--types", action="store_true", help="count live objects by type at each step")
    p.add_argument("--data", type=Path, default=default_data_dir())
    args = p.parse_args(argv)
    bundles = sorted(patient_bundles(args.data), key=lambda b: b.stat().st_size)
    patient, prefetch = prefetch_for(orjson.loads(bundles[len(bundles) // 2].read_bytes()))
    warm = {VERIFY: _body("medeventgraph-verify", patient, prefetch, QUERY, 0),
            PATIENT_VIEW: _body("patient-view", patient, prefetch, None, 0)}
    settings = {"jwt_required": False, "request_deadline_seconds": 600}  # a busy machine is no deadline test
    with serving(lambda base: create_app(Settings(public_base_url=base, **settings)), log_level="error") as (base, app):
        url = f"{base}/cds-services"
        with httpx.Client(timeout=600) as http:
            def post(service: str, body: bytes) -> None:
                r = http.post(f"{url}/{service}", content=body, headers={"Content-Type": "application/json"})
                assert r.status_code == 200, r.text[:300]

            for service, body in warm.items():
                post(service, body)
            if args.tracemalloc:
                tracemalloc.start(8)
            previous = tracemalloc.take_snapshot() if args.tracemalloc else None
            types_before: Counter[str] = Counter()
            t0 = time.monotonic()
            for n in range(1, args.fresh + 1):
                service = VERIFY if n % 2 else PATIENT_VIEW
                hook = "medeventgraph-verify" if service == VERIFY else "patient-view"
                post(service, _body(hook, patient, _fresh(prefetch, n), QUERY if service == VERIFY else None, n))
                for r in range(args.repeats):
                    post(VERIFY if r % 2 else PATIENT_VIEW, warm[VERIFY if r % 2 else PATIENT_VIEW])
                if n % args.step:
                    continue
                gc.collect()
                line = {"fresh": n, "s": round(time.monotonic() - t0), "rss_mb": round(_rss_mb(os.getpid()), 1),
                        **malloc_mb(), **cache_lengths(app)}
                if args.tracemalloc:
                    cur, _ = tracemalloc.get_traced_memory()
                    line["traced_mb"] = round(cur / 2**20, 1)
                print(orjson.dumps(line).decode(), flush=True)
                if args.types:
                    types = Counter(type(o).__name__ for o in gc.get_objects())
                    grown = (types - types_before).most_common(8)
                    print("   types grown:", grown, flush=True)
                    types_before = types
                if args.tracemalloc:
                    snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
                    for stat in snap.compare_to(previous, "traceback")[:6]:
                        frames = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in list(stat.traceback)[:5])
                        print(f"   {stat.size_diff / 2**20:+.2f} MB {stat.count_diff:+d} blocks  {frames}", flush=True)
                    previous = snap
    return 0


if __name__ == "__main__":
    sys.exit(main())
