"""HTML stripping time against input length: 20k, 40k, 80k characters (and 1M), per markup shape;
and stripping followed by the note pipeline (NLP mentions of a query term) on unpunctuated text.

The target (issue 10): 80k characters take at most 5x the time of 20k, i.e. time linear in the
length, for the stripper alone and for stripping + the note pipeline. Ratios are between sizes
measured in the same run; each time is the median of repeated runs (wall clock and process CPU;
CPU is what another process on the machine disturbs least). Nothing here asserts a time.

    .venv/bin/python benchmarks/bench_html.py [--repeats 5] [--quick] [--out results]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson
from measure import REPO, summary, timed
from medeventgraph.fhir_adapters.notes import html_to_text
from medeventgraph.model.occurrence import EventTime, Granularity, Kind, NoteDocument, NoteText, TimeType
from medeventgraph.nlp import NotePipeline, TargetTerm

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


STRIP_REPEATS = 11  # the stripper's runs are milliseconds long: more of them for a steady median
PIPELINE_SIZES = (20_000, 40_000, 80_000)
PIPELINE_SHAPES = {  # markup -> text -> mentions; none has sentence punctuation
    "html paragraphs": "<p>acute kidney injury</p>",
    "html table": "<tr><td>acute kidney injury</td><td>creatinine 2</td></tr>",
    "unpunctuated text": "acute kidney injury ",
}


def bench_pipeline(repeats: int, sizes: tuple[int, ...] = PIPELINE_SIZES, log=print) -> dict[str, Any]:
    """html_to_text + NotePipeline.mentions (no cache) per size; ratios to the smallest size."""
    pipeline = NotePipeline(max_note_chars=max(sizes) + 1, cache_size=0)
    terms = [TargetTerm("acute kidney injury", "acute kidney injury", Kind.CONDITION, "query")]
    when = EventTime(start=None, type=TimeType.DOCUMENTATION, granularity=Granularity.UNKNOWN)

    def mentions(markup: str) -> int:
        note = NoteDocument("DocumentReference", "bench-html", "Patient/bench", None, when,
                            (NoteText(0, "text/plain", html_to_text(markup)),))
        return len(pipeline.mentions([note], terms))

    mentions(PIPELINE_SHAPES["html paragraphs"] * 10)  # load the pipeline off the clock
    out: dict[str, Any] = {"sizes": list(sizes), "shapes": {}}
    for name, unit in PIPELINE_SHAPES.items():
        wall: dict[str, Any] = {}
        cpu: dict[str, Any] = {}
        found: dict[str, int] = {}
        for size in sizes:
            markup = (unit * (size // len(unit) + 1))[:size]
            t = timed(lambda m=markup: mentions(m), repeats)
            wall[str(size)], cpu[str(size)], found[str(size)] = summary(t.wall), summary(t.cpu), t.result
        ratios = {key: {str(s): round(row[str(s)]["median"] / row[str(sizes[0])]["median"], 2) for s in sizes}
                  for key, row in (("wall", wall), ("cpu", cpu))}
        largest = str(sizes[-1])
        out["shapes"][name] = {"seconds": wall, "cpu_seconds": cpu, "mentions": found, "ratio_to_smallest": ratios,
                               "target_met": ratios["wall"][largest] <= 5.0 or ratios["cpu"][largest] <= 5.0}
        log(f"  html+pipeline {name:18s} {sizes[0] // 1000}k {wall[str(sizes[0])]['median']:.3f} s  "
            f"{largest[:-3]}k/{sizes[0] // 1000}k wall {ratios['wall'][largest]:.2f} cpu {ratios['cpu'][largest]:.2f}")
    out["target_met"] = all(s["target_met"] for s in out["shapes"].values())
    return out


def bench_html(repeats: int, log=print, *, quick: bool = False) -> dict[str, Any]:
    # Stripping 20k characters takes milliseconds, where one scheduler pause or another process on
    # the machine moves a wall-clock median by half; process CPU time is measured beside it, and the
    # target holds when either ratio is within it (as for the pipeline below).
    repeats = max(repeats, STRIP_REPEATS)
    out: dict[str, Any] = {"sizes": list(SIZES), "target": "seconds(80k) <= 5 x seconds(20k)", "shapes": {}}
    for name, unit in SHAPES.items():
        wall: dict[str, Any] = {}
        cpu: dict[str, Any] = {}
        for size in SIZES:
            markup = (unit * (size // len(unit) + 1))[:size]
            t = timed(lambda m=markup: html_to_text(m), repeats)
            wall[str(size)], cpu[str(size)] = summary(t.wall), summary(t.cpu)
        ratios = {key: {str(s): round(row[str(s)]["median"] / row[str(SIZES[0])]["median"], 2) for s in SIZES}
                  for key, row in (("wall", wall), ("cpu", cpu))}
        out["shapes"][name] = {"seconds": wall, "cpu_seconds": cpu, "ratio_to_20k": ratios,
                               "target_met": ratios["wall"]["80000"] <= 5.0 or ratios["cpu"]["80000"] <= 5.0}
        log(f"  html {name:22s} 20k {wall['20000']['median'] * 1e3:7.2f} ms  80k/20k wall "
            f"{ratios['wall']['80000']:5.2f} cpu {ratios['cpu']['80000']:5.2f}  1M/20k {ratios['wall']['1000000']:6.1f}")
    sizes = tuple(s // 4 for s in PIPELINE_SIZES) if quick else PIPELINE_SIZES
    out["pipeline"] = bench_pipeline(repeats, sizes, log)
    out["target_met"] = all(s["target_met"] for s in out["shapes"].values()) and out["pipeline"]["target_met"]
    return out


def markdown(result: dict[str, Any]) -> str:
    """The BENCH.md section, generated from the measured result."""
    lines = ["## HTML stripping (linear time)", "",
             f"Target: {result['target']} — {'met' if result['target_met'] else 'NOT met'} for every shape.", "",
             "| markup | 20k median ms | wall 80k / 20k | cpu 80k / 20k | wall 1M / 20k |", "|---|---:|---:|---:|---:|"]
    for name, row in result["shapes"].items():
        ratios = row["ratio_to_20k"]
        lines.append(f"| {name} | {row['seconds']['20000']['median'] * 1e3:.2f} | {ratios['wall']['80000']:.2f} "
                     f"| {ratios['cpu']['80000']:.2f} | {ratios['wall']['1000000']:.1f} |")
    pipe = result.get("pipeline")
    if pipe:
        small, large = str(pipe["sizes"][0]), str(pipe["sizes"][-1])
        lines += ["", (f"Stripping + the note pipeline (mentions of \"acute kidney injury\"), {small} and {large} "
                  f"characters: target {'met' if pipe['target_met'] else 'NOT met'} for every shape."), "",
                  f"| text | mentions at {large} | {small} median s | wall {large} / {small} | cpu {large} / {small} |",
                  "|---|---:|---:|---:|---:|"]
        for name, row in pipe["shapes"].items():
            lines.append(f"| {name} | {row['mentions'][large]} | {row['seconds'][small]['median']:.3f} "
                         f"| {row['ratio_to_smallest']['wall'][large]:.2f} | {row['ratio_to_smallest']['cpu'][large]:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="the pipeline part at a quarter of the sizes")
    p.add_argument("--out", type=Path, default=REPO / "results")
    args = p.parse_args(argv)
    result = bench_html(args.repeats, quick=args.quick)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "html_bench.json").write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    print(markdown(result))
    print(f"wrote {args.out / 'html_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
