"""Assertion accuracy on the NegEx/ConText kit: the note pipeline against vanilla medspaCy 1.3.1.

    .venv/bin/python benchmarks/eval_assertions.py [--data ../shared/data/negex-context-dev] [--out results]
                                                   [--limit N] [--rules other_context_rules.json]

Each row of the kit is one sentence of a real report with one annotated condition (the target
phrase as written). Both pipelines run on the sentence with that phrase as their only target:
- `note_pipeline`: `NotePipeline.mentions` with the phrase as a `TargetTerm` of kind condition (the
  kit annotates conditions: cues of a planned act, "we will start X", are not theirs);
- `medspacy_vanilla`: `medspacy.load()` (PyRuSH, ConText with its default rules) with the phrase
  as a `TargetRule`: what a user gets from medspaCy out of the box.
The mention taken is the first one found; a row where none is found counts as a missed mention
(every attribute predicted absent). Scored per attribute as F1 of the positive class:
negation (Negated), historical (temporality Historical), hypothetical (temporality "Not
particular", the kit's name for hypothetical) and family (experiencer Other / Family member).

Writes <out>/assertions.json and <out>/ASSERTIONS.md; prints the table.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from measure import git_commit

REPO = Path(__file__).resolve().parents[1]
ATTRIBUTES = ("negated", "historical", "hypothetical", "family")


@dataclass(frozen=True, slots=True)
class Row:
    line: str
    condition: str
    sentence: str
    gold: frozenset[str]


def load_rows(path: Path) -> list[Row]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)  # header
        rows = []
        for line, condition, sentence, negation, temporality, experiencer, *_ in reader:
            gold = set()
            if negation.strip().lower() == "negated":
                gold.add("negated")
            if temporality.strip().lower() == "historical":
                gold.add("historical")
            if temporality.strip().lower() in ("not particular", "hypothetical"):
                gold.add("hypothetical")
            if experiencer.strip().lower() not in ("patient", ""):
                gold.add("family")
            rows.append(Row(line, condition, sentence, frozenset(gold)))
    return rows


def note_pipeline_predict(rules: Path | None = None) -> Callable[[Row], frozenset[str] | None]:
    from medeventgraph.model.occurrence import EventTime, Granularity, Kind, NoteDocument, NoteText, TimeType
    from medeventgraph.nlp import NotePipeline, TargetTerm

    pipeline = NotePipeline(cache_size=0, context_rules=rule_set(rules))
    date = EventTime(start=datetime(2020, 1, 1, tzinfo=UTC), type=TimeType.DOCUMENTATION,
                     granularity=Granularity.DAY)

    def predict(row: Row) -> frozenset[str] | None:
        note = NoteDocument("DocumentReference", f"kit-{row.line}", "Patient/kit", None, date,
                            (NoteText(0, "text/plain", row.sentence),))
        found = pipeline.mentions([note], [TargetTerm(row.condition, row.condition, Kind.CONDITION, "query")])
        if not found:
            return None
        a = found[0].assertion
        return frozenset(name for name in ATTRIBUTES if getattr(a, name))

    return predict


def rule_set(path: Path | None) -> list | None:
    """medspaCy's default rules and those of a context rule file (None: the package's own)."""
    if path is None:
        return None
    from medeventgraph.nlp.context import _default_rules
    from medeventgraph.nlp.rules import context_rules_from

    return [*_default_rules(), *context_rules_from(json.loads(path.read_text()))]


def medspacy_predict() -> Callable[[Row], frozenset[str] | None]:
    import medspacy
    from medeventgraph.nlp.sentences import silence_pyrush
    from medspacy.target_matcher import TargetMatcher, TargetRule

    silence_pyrush()  # PyRuSH logs every token at debug level: not the pipeline's work
    nlp = medspacy.load()
    names = [name for name in nlp.pipe_names if name != "medspacy_target_matcher"]
    context = nlp.get_pipe("medspacy_context")

    def predict(row: Row) -> frozenset[str] | None:
        doc = nlp.make_doc(row.sentence)
        for name in names:
            if name != "medspacy_context":
                doc = nlp.get_pipe(name)(doc)
        matcher = TargetMatcher(nlp)  # one rule per row: the row's own phrase only
        matcher.add([TargetRule(row.condition, "TARGET")])
        doc = context(matcher(doc))
        if not doc.ents:
            return None
        ent = doc.ents[0]
        flags = {"negated": ent._.is_negated, "historical": ent._.is_historical,
                 "hypothetical": ent._.is_hypothetical, "family": ent._.is_family}
        return frozenset(name for name, on in flags.items() if on)

    return predict


def f1(tp: int, fp: int, fn: int) -> float | None:
    if tp + fp + fn == 0:
        return None
    return round(2 * tp / (2 * tp + fp + fn), 4)


def score(rows: list[Row], predict: Callable[[Row], frozenset[str] | None]) -> dict:
    counts = {name: [0, 0, 0] for name in ATTRIBUTES}  # tp, fp, fn
    missed: list[str] = []
    errors: list[dict] = []
    t0 = time.perf_counter()
    for row in rows:
        got = predict(row)
        if got is None:
            missed.append(row.line)
            got = frozenset()
        for name in ATTRIBUTES:
            c = counts[name]
            if name in got and name in row.gold:
                c[0] += 1
            elif name in got:
                c[1] += 1
            elif name in row.gold:
                c[2] += 1
        if got != row.gold:
            errors.append({"line": row.line, "gold": sorted(row.gold), "got": sorted(got)})
    seconds = time.perf_counter() - t0
    return {
        "rows": len(rows),
        "not_found": len(missed),
        "not_found_share": round(len(missed) / len(rows), 4) if rows else None,
        "f1": {name: f1(*counts[name]) for name in ATTRIBUTES},
        "counts": {name: dict(zip(("tp", "fp", "fn"), counts[name], strict=True)) for name in ATTRIBUTES},
        "seconds": round(seconds, 2),
        "not_found_lines": missed,
        "disagreeing_rows": len(errors),
        "disagreements": errors,
    }


def table(result: dict) -> str:
    lines = [
        "# Assertions on the NegEx/ConText kit (development half)",
        "",
        (f"Generated by `benchmarks/eval_assertions.py` from `{result['data']}` ({result['rows']} rows) on commit "
        f"{result['commit']}, {result['date']}, context rules `{result['rules']}`. F1 of the positive class; a target "
        "not found counts as a missed mention."),
        "",
        "| pipeline | negation F1 | historical F1 | hypothetical F1 | family F1 | targets not found |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in result["pipelines"].items():
        cells = [("-" if r["f1"][a] is None else f"{r['f1'][a]:.3f}") for a in ATTRIBUTES]
        lines.append(f"| {name} | {' | '.join(cells)} | {r['not_found']} ({100 * r['not_found_share']:.1f} %) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "negex-context-dev")
    parser.add_argument("--out", type=Path, default=REPO / "results")
    parser.add_argument("--limit", type=int, default=None, help="first N rows only (smoke)")
    parser.add_argument("--rules", type=Path, default=None,
                        help="another context rule file instead of nlp/resources/context_rules.json")
    args = parser.parse_args(argv)
    path = args.data / "assertions-dev.tsv" if args.data.is_dir() else args.data
    rows = load_rows(path)[: args.limit]
    result = {
        "data": str(path.relative_to(REPO.parent)) if path.is_relative_to(REPO.parent) else str(path),
        "rows": len(rows),
        "commit": git_commit(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "rules": str(args.rules) if args.rules else "nlp/resources/context_rules.json",
        "pipelines": {"note_pipeline": score(rows, note_pipeline_predict(args.rules)),
                      "medspacy_vanilla": score(rows, medspacy_predict())},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "assertions.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "ASSERTIONS.md").write_text(table(result))
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
