"""HTML stripping time against input length: 20k, 40k, 80k characters (and 1M), per markup shape.

The target (issue 10): stripping 80k characters takes at most 5x the time of 20k, i.e. time
linear in the length. Ratios are between sizes measured in the same run; each time is the
median of repeated runs. Nothing here asserts a time.

    .venv/bin/python benchmarks/bench_html.py [--repeats 5] [--out results]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson
from common import REPO, summary, timed
from medeventgraph.fhir_adapters.notes import html_to_text

__all__ = ["bench_html"]

SIZES = (20_000, 40_000, 80_000, 1_000_000)
SHAPES = {  # what a note can look like; the last four are the shapes quadratic strippers choke on
    "paragraphs": "<p>acute kidney injury</p>",
    "table": "<tr><td>creatinine</td><td>2.1 mg/dL</td></tr>",
    "entities": "AKI &amp; sepsis &lt; 24 h &#233; ",
    "lone angle brackets": "a < b <c ",
    "unterminated tags": "<a href='x' ",
    "unterminated comment": "<!-- x ",
    "unterminated script": "<script>var x = 1; ",
}


def bench_html(repeats: int, log=print) -> dict[str, Any]:
    out: dict[str, Any] = {"sizes": list(SIZES), "target": "seconds(80k) <= 5 x seconds(20k)", "shapes": {}}
    for name, unit in SHAPES.items():
        row: dict[str, Any] = {}
        for size in SIZES:
            markup = (unit * (size // len(unit) + 1))[:size]
            row[str(size)] = summary(timed(lambda m=markup: html_to_text(m), repeats).wall)
        base = row[str(SIZES[0])]["median"]
        ratios = {str(s): round(row[str(s)]["median"] / base, 2) for s in SIZES}
        out["shapes"][name] = {"seconds": row, "ratio_to_20k": ratios, "target_met": ratios["80000"] <= 5.0}
        log(f"  html {name:22s} 20k {base * 1e3:7.2f} ms  80k/20k {ratios['80000']:5.2f}  1M/20k {ratios['1000000']:6.1f}")
    out["target_met"] = all(s["target_met"] for s in out["shapes"].values())
    return out


def markdown(result: dict[str, Any]) -> str:
    """The BENCH.md section, generated from the measured result."""
    lines = ["## HTML stripping (linear time)", "",
             f"Target: {result['target']} — {'met' if result['target_met'] else 'NOT met'} for every shape.", "",
             "| markup | 20k median ms | 80k / 20k | 1M / 20k |", "|---|---:|---:|---:|"]
    for name, row in result["shapes"].items():
        lines.append(f"| {name} | {row['seconds']['20000']['median'] * 1e3:.2f} | {row['ratio_to_20k']['80000']:.2f} "
                     f"| {row['ratio_to_20k']['1000000']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=REPO / "results")
    args = p.parse_args(argv)
    result = bench_html(args.repeats)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "html_bench.json").write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    print(markdown(result))
    print(f"wrote {args.out / 'html_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
