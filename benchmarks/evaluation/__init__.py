"""`python -m medeventgraph.evaluation`: the paper's protocols and baselines on public FHIR
data, one command (see benchmarks/README.md). `main(argv)` is what the CLI calls."""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

import orjson

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    from medeventgraph.evaluation.data import default_data_dir

    p = argparse.ArgumentParser(prog="medeventgraph eval", description=__doc__)
    p.add_argument("--out", type=Path, default=Path("results"))
    p.add_argument("--data", type=Path, default=default_data_dir(), help="shared data root (holds synthea/, clinosim/)")
    p.add_argument("--replicates", type=int, default=None, help="bootstrap/permutation replicates (10000 full, 200 smoke)")
    p.add_argument("--smoke", action="store_true", help="few patients and queries, few replicates")
    p.add_argument("--freeze", action="store_true",
                   help="also write the dev-selected tau+/tau- into core/resources/thresholds.json (an explicit "
                        "step, never part of `make eval`)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--methods", default="B1,B2,B3,B4,B5,B6,hipporag2,lightrag,kg2rag,S5,S10,S20,S40,"
                                        "S20-ppr-off,S20-retrieval-off,S20-topb-off,S20-replan-off")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    from medeventgraph.evaluation.orchestrate import evaluate

    started = time.time()
    log = (lambda *a: None) if args.quiet else print
    replicates = args.replicates if args.replicates is not None else (200 if args.smoke else 10_000)
    res = evaluate(args.data, args.out, smoke=args.smoke, replicates=replicates, seed=args.seed,
                   methods=args.methods.split(","), freeze=args.freeze and not args.smoke, log=log)
    res["meta"]["runtime_s"] = time.time() - started
    res["meta"]["date"] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    from medeventgraph.evaluation.report import write_report

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "eval.json").write_bytes(orjson.dumps(res, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
    path = write_report(res, args.out)
    log(f"wrote {args.out / 'eval.json'} and {path} in {res['meta']['runtime_s']:.0f}s")
    return 0
