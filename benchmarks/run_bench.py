"""MedEventGraph benchmark: ingest, note NLP, query, CDS Hooks and growth, with ratios to the
orjson parse floor measured in the same run.

    .venv/bin/python benchmarks/run_bench.py [--quick] [--data ../shared/data] [--out results]

Writes <out>/bench.json and <out>/BENCH.md with PNG plots. Figures are medians over repeated
runs with min and max; latencies also give p95. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from measure import REPO, default_data_dir, git_commit, patient_bundles

SECTIONS = ("ingest", "notes", "nlp", "query", "hook", "hook_profile", "controller", "growth", "html", "soak", "screen")


def _environment() -> dict[str, Any]:
    return {
        "python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()], "commit": git_commit(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="MedEventGraph benchmark")
    p.add_argument("--quick", action="store_true", help="one small bundle, 1 repeat, growth 1x-2x (smoke)")
    p.add_argument("--data", type=Path, default=default_data_dir(), help="the shared data folder (../shared/data)")
    p.add_argument("--out", type=Path, default=REPO / "results", help="where bench.json and BENCH.md go")
    p.add_argument("--repeats", type=int, default=None, help="timed repetitions (default 5; 1 with --quick)")
    p.add_argument("--bundle", default=None, help="bundle file name for query/hook/growth (default: largest)")
    p.add_argument("--only", nargs="*", choices=SECTIONS, default=list(SECTIONS), help="sections to run")
    p.add_argument("--no-report", action="store_true", help="write bench.json only")
    p.add_argument("--merge", action="store_true",
                   help="keep the sections of <out>/bench.json this run does not measure (each section records "
                        "the commit and date it was measured at, and BENCH.md says so)")
    p.add_argument("--soak-seconds", type=float, default=None,
                   help="soak duration (default 120; 6 with --quick; 300 for the long run)")
    p.add_argument("--soak-clients", type=int, default=None, help="soak clients (default 20; 4 with --quick)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    bundles = patient_bundles(args.data)
    if not bundles:
        print(f"no Synthea bundles under {args.data / 'synthea'}", file=sys.stderr)
        return 2
    by_size = sorted(bundles, key=lambda p: p.stat().st_size)
    if args.bundle:
        target = next(p for p in bundles if p.name == args.bundle)
    else:
        target = by_size[0] if args.quick else by_size[-1]
    repeats = args.repeats or (1 if args.quick else 5)
    ingest_bundles = [target] if args.quick else bundles
    factors = [1, 2] if args.quick else [1, 2, 4, 8]
    result: dict[str, Any] = {
        "schema": 1, "quick": args.quick, "repeats": repeats, "environment": _environment(),
        "data": str(args.data), "target_bundle": target.name,
    }
    t_start = time.perf_counter()
    kept: dict[str, Any] = {}
    if args.merge and (args.out / "bench.json").is_file():
        kept = orjson.loads((args.out / "bench.json").read_bytes())
    if "ingest" in args.only:
        from bench_ingest import bench_ingest

        print("ingest")
        result["ingest"] = bench_ingest(ingest_bundles, repeats)
    if "notes" in args.only:
        from bench_notes import bench_notes

        print("notes")
        result["notes"] = bench_notes(args.data, target, max(1, min(repeats, 3)), only_bundle=args.quick)
    if "nlp" in args.only:
        from bench_nlp import BASELINE, throughput_section

        print("nlp")
        result["nlp"] = throughput_section(args.data / "synthea", max(1, min(repeats, 3)), BASELINE,
                                           limit=40 if args.quick else None)
    if "query" in args.only:
        result["query"] = _query_section(target, repeats)
    if "hook" in args.only:
        from bench_hook import bench_hook

        print("hook")
        result["hook"] = bench_hook(target, repeats)
    if "hook_profile" in args.only and not args.quick:
        from profile_hook import BASELINE as HOOK_BASELINE
        from profile_hook import profile

        print("hook_profile")
        result["hook_profile"] = profile(target, HOOK_BASELINE, repeats, 2)
    if "controller" in args.only:
        from bench_controller import bench_controller

        print("controller")
        result["controller"] = bench_controller(args.data, 1 if args.quick else 3, quick=args.quick)
    if "growth" in args.only:
        from bench_growth import bench_growth

        print("growth")
        result["growth"] = bench_growth(target, factors, max(1, min(repeats, 3)))
    if "html" in args.only:
        from bench_html import bench_html

        print("html")
        result["html"] = bench_html(repeats, quick=args.quick)
    if "soak" in args.only:
        from bench_soak import bench_soak

        print("soak")
        soak_bundle = target if args.quick or args.bundle else by_size[len(by_size) // 2]
        result["soak"] = bench_soak(soak_bundle, args.soak_seconds or (6.0 if args.quick else 120.0),
                                    args.soak_clients or (4 if args.quick else 20))
    # --quick leaves screening out unless asked for (`--only screen`): its smoke test is its own
    # (tests/benchmarks/test_bench_screen.py), so the quick run stays short.
    if "screen" in args.only and not (args.quick and args.only == list(SECTIONS)):
        from bench_screen import bench_screen
        from bench_screen import markdown as screen_md

        print("screen")
        result["screen"] = bench_screen(args.data, quick=args.quick)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "SCREEN.md").write_text(screen_md(result["screen"]), encoding="utf-8")
    result["elapsed_seconds"] = round(time.perf_counter() - t_start, 1)
    _merge(result, kept, args.only)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench.json").write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    for section, name in (("html", "html_bench.json"), ("soak", "soak.json"), ("screen", "screen_bench.json"),
                          ("controller", "controller_bench.json")):
        if section in result:
            (args.out / name).write_bytes(orjson.dumps(result[section], option=orjson.OPT_INDENT_2) + b"\n")
    if not args.no_report:
        from report import write_report

        write_report(result, args.out)
        _append_robustness(result, args.out / "BENCH.md")
    print(f"wrote {args.out / 'bench.json'} ({result['elapsed_seconds']} s)")
    return 0


def _merge(result: dict[str, Any], kept: dict[str, Any], measured: list[str]) -> None:
    """Sections of an earlier run this one did not measure, each with the environment (commit,
    date, load) it was measured in: `section_environment` names where every section comes from."""
    if not kept:
        return
    origin = dict(kept.get("section_environment") or {})
    for section in SECTIONS:
        if section in result:
            origin[section] = result["environment"]
        elif section in kept:
            result[section] = kept[section]
            origin.setdefault(section, kept["environment"])
    result["section_environment"] = origin
    result["merged_sections_measured"] = [s for s in SECTIONS if s in measured]


def _append_robustness(result: dict[str, Any], report: Path) -> None:
    """The controller, HTML-stripping and soak sections of BENCH.md, generated from this run's figures."""
    from bench_controller import markdown as controller_md
    from bench_html import markdown as html_md
    from bench_soak import markdown as soak_md

    parts = [controller_md(result["controller"])] if "controller" in result else []
    parts += [html_md(result["html"])] if "html" in result else []
    parts += [soak_md(result["soak"])] if "soak" in result else []
    if parts:
        with report.open("a") as f:
            f.write("\n" + "\n".join(parts))


def _query_section(target: Path, repeats: int) -> dict[str, Any]:
    """Warm query latency on the target bundle, with the index built with notes and without."""
    from bench_ingest import load_record
    from bench_query import bench_queries
    from medeventgraph.api import make_note_pipeline
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.model.settings import Settings

    print("query")
    record = load_record(target.read_bytes())
    out: dict[str, Any] = {"bundle": target.name}
    for label, settings in (("notes_off", Settings(notes=False)), ("notes_on", Settings(notes=True))):
        index = build_index(record, settings, notes=make_note_pipeline(settings))
        out[label] = bench_queries(index, settings, max(3, repeats * 2))
        print(f"  query {label}: " + ", ".join(
            f"{k} p50 {v['warm_seconds']['median'] * 1e3:.1f} / p95 {v['warm_seconds']['p95'] * 1e3:.1f} ms"
            for k, v in out[label].items() if isinstance(v, dict) and "warm_seconds" in v))
    return out


if __name__ == "__main__":
    sys.exit(main())
