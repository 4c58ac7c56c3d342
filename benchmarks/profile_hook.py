"""Where a cold `medeventgraph-verify` call spends its CPU, now and at a baseline commit, in one run.

    .venv/bin/python benchmarks/profile_hook.py [--baseline 8a9b95c] [--calls 5] [--rounds 2]
                                                [--out results/hook_profile.json] [--profile]

Each side runs in its own subprocess (the baseline from `git archive` of its commit, as
bench_nlp.py does), the two alternating round by round so that their ratio is of the same
moments of a shared machine. A side builds the real CDS Hooks app in-process (Starlette's test
client: the same routes, models and engine as over HTTP, without a socket), makes one call to warm
the process (imports, note pipeline), then `--calls` cold calls: the largest Synthea record sent as
a patient never seen (`bench_hook._fresh`: every note text new). Per call: wall, process CPU and
the thread CPU of each stage (gather, content hash, shape checks, ingest, build_index, verify, card).
`--profile` also writes pyinstrument's tree of one more cold record through the current side's engine
(index + verify, on the main thread where the profiler sees it) to results/hook_profile.txt.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BASELINE = "8a9b95c"  # main before the issue #19 changes to the cold hook
STAGES = {  # label -> (module, attribute): what each stage is, in call order
    "gather": ("medeventgraph.cds_hooks.routes.hooks", "gather"),
    "content_hash": ("medeventgraph.cds_hooks.engine", "content_hash"),
    "check_shapes": ("medeventgraph.cds_hooks.engine", "check_shapes"),
    "ingest": ("medeventgraph.fhir_adapters", "ingest_json"),
    "build_index": ("medeventgraph.core.index.patient_index", "build_index"),
    "verify": ("medeventgraph.cds_hooks.engine", "Engine.verify_asked"),
    "card": ("medeventgraph.cds_hooks.routes.hooks", "verdict_card"),
}


def _instrument(spent: Counter) -> None:
    """Wrap each stage so its thread CPU adds up in `spent` (the engine runs in a worker thread)."""
    import importlib
    import inspect

    for label, (module, attr) in STAGES.items():
        owner: Any = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        fn = getattr(owner, name)
        if inspect.iscoroutinefunction(fn):
            async def wrapped(*a, _fn=fn, _label=label, **k):
                t = time.thread_time()
                try:
                    return await _fn(*a, **k)
                finally:
                    spent[_label] += time.thread_time() - t
        else:
            def wrapped(*a, _fn=fn, _label=label, **k):
                t = time.thread_time()
                try:
                    return _fn(*a, **k)
                finally:
                    spent[_label] += time.thread_time() - t
        setattr(owner, name, wrapped)


def worker(bundle: Path, calls: int, profile: Path | None) -> dict[str, Any]:
    """One side: warm-up call, then `calls` cold calls; per-call figures."""
    import gc

    from bench_hook import VERIFY, _body, _fresh, hook_request
    from fastapi.testclient import TestClient
    from medeventgraph.cds_hooks import create_app
    from medeventgraph.model.settings import Settings

    patient, prefetch, pairwise = hook_request(bundle.read_bytes())
    spent: Counter = Counter()
    _instrument(spent)
    app = create_app(Settings(jwt_required=False, public_base_url="http://testserver", request_deadline_seconds=600))
    rows, summaries = [], set()
    with TestClient(app) as http:
        def call(n: int) -> tuple[float, float]:
            body = _body(VERIFY, patient, _fresh(prefetch, n), pairwise, n)
            gc.collect()
            spent.clear()
            c, t = time.process_time(), time.perf_counter()
            resp = http.post(f"/cds-services/{VERIFY}", content=body, headers={"Content-Type": "application/json"})
            if resp.status_code != 200:
                raise RuntimeError(f"hook call failed: {resp.status_code} {resp.text[:300]}")
            summaries.add(resp.json()["cards"][0]["summary"])
            return time.perf_counter() - t, time.process_time() - c

        call(10_000)
        for n in range(1, calls + 1):
            wall, cpu = call(n)
            rows.append({"wall": wall, "cpu": cpu, **{k: spent.get(k, 0.0) for k in STAGES}})
        if profile is not None:  # the engine's part of a cold call, on this thread, where a profiler sees it
            profile.write_text(_profile_engine(app.state.meg.engine, patient, _fresh(prefetch, calls + 1), pairwise))
    return {"rows": rows, "cards": sorted(summaries)}


def _profile_engine(engine: Any, patient: str, prefetch: dict[str, Any], query: dict[str, Any]) -> str:
    from medeventgraph.cds_hooks.fhir_client import resources_of
    from medeventgraph.cds_hooks.prefetch import PatientData, _dedupe
    from pyinstrument import Profiler

    resources = [r for v in prefetch.values() for r in (resources_of(v) if v.get("resourceType") == "Bundle" else [v])]
    data = PatientData(resources=_dedupe(resources))
    profiler = Profiler(interval=0.0005)
    profiler.start()
    index = engine.index_for(patient, data, "profile")
    engine.verify_asked(index, engine.parse_query(query), None)
    profiler.stop()
    return profiler.output_text(unicode=False, color=False)


def _side(commit: str | None, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    env = dict(os.environ)
    if commit:
        from bench_nlp import baseline_tree

        tree = tmp / commit
        if not tree.exists():
            tree.mkdir()
            baseline_tree(commit, tree, extra=("cds_hooks",))
        env["PYTHONPATH"] = str(tree / "pkg")
    cmd = [sys.executable, __file__, "--worker", "--calls", str(args.calls), "--bundle", str(args.bundle)]
    if args.profile and not commit:
        cmd += ["--profile-to", str(args.out)]
    done = subprocess.run(cmd, env=env, cwd=REPO / "benchmarks", capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _medians(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in rows), 4) for k in rows[0]}


def profile(bundle: Path, baseline: str, calls: int, rounds: int, text_out: Path | None = None) -> dict[str, Any]:
    """Both sides, alternating round by round; medians per side and baseline / current ratios."""
    args = argparse.Namespace(calls=calls, bundle=bundle, profile=text_out is not None, out=text_out)
    sides: dict[str, dict[str, Any]] = {"current": {"rows": [], "cards": []}, "baseline": {"rows": [], "cards": []}}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for name, commit in (("baseline", baseline), ("current", None)):
                got = _side(commit, args, Path(tmp))
                sides[name]["rows"] += got["rows"]
                sides[name]["cards"] = sorted(set(sides[name]["cards"]) | set(got["cards"]))
    cur, base = _medians(sides["current"]["rows"]), _medians(sides["baseline"]["rows"])
    return {"bundle": bundle.name, "baseline": baseline, "calls_per_round": calls, "rounds": rounds,
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "current": cur, "baseline_medians": base,
            "baseline_over_current": {k: round(base[k] / cur[k], 2) if cur[k] else None for k in cur},
            "same_cards": sides["current"]["cards"] == sides["baseline"]["cards"], "cards": sides["current"]["cards"]}


def markdown(res: dict[str, Any]) -> str:
    """The BENCH.md section for `profile`'s result."""
    cur, base, ratio = res["current"], res["baseline_medians"], res["baseline_over_current"]
    lines = [f"## Cold verify hook: CPU by stage, now and at {res['baseline']} (`benchmarks/profile_hook.py`)", "",
             (f"{res['bundle'][:28]}, sent as a patient never seen (every note text new); {res['rounds']} rounds of "
              f"{res['calls_per_round']} cold calls per side, the sides alternating (the baseline from `git archive`); "
              "the real app in-process (Starlette test client), medians of thread CPU per stage (the engine runs in "
              "a worker thread), process CPU and wall per call. Cards identical on both sides: "
              f"{'yes' if res['same_cards'] else '**no**'}."), "",
             f"| stage | {res['baseline']} ms | now ms | {res['baseline']} / now |", "|---|---:|---:|---:|"]
    for k in ("wall", "cpu", *STAGES):
        label = {"wall": "whole call, wall", "cpu": "whole call, process CPU"}.get(k, k)
        lines.append(f"| {label} | {1000 * base[k]:.1f} | {1000 * cur[k]:.1f} | {ratio[k] if ratio[k] is not None else '-'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default=BASELINE)
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--bundle", type=Path, default=None, help="default: the largest Synthea bundle")
    p.add_argument("--out", type=Path, default=REPO / "results" / "hook_profile.json")
    p.add_argument("--profile", action="store_true", help="pyinstrument tree of the current side's engine too")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--profile-to", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.bundle is None:
        from measure import default_data_dir, patient_bundles

        args.bundle = max(patient_bundles(default_data_dir()), key=lambda b: b.stat().st_size)
    if args.worker:
        print(json.dumps(worker(args.bundle, args.calls, args.profile_to)))
        return
    out = profile(args.bundle, args.baseline, args.calls, args.rounds,
                  args.out.with_suffix(".txt") if args.profile else None)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(markdown(out))


if __name__ == "__main__":
    main()
