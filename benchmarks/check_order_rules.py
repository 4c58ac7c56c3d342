"""Leave-one-report-out check of the order cue rules (nlp/resources/order_rules.json): a cue rule
that helps only on the one report it could have been written from is reported.

    .venv/bin/python benchmarks/check_order_rules.py [--mts ../shared/data/mtsamples] [--out results]

Each MTSamples `train` question is a case, and its unit is its report. Every case is answered with
all the cue rules and again with all but one (the same indexes: only the cues change); an answer
is right when the verdict is `supported` exactly where the label is (what BA scores). A rule's
gain in a report is the answers it makes right there minus those it makes wrong. The report where
it gains most is taken as the one its words came from; its held-out gain is its gain in every
other report. A rule is
- kept when its held-out gain is positive;
- kept as "no effect" when it changes no answer (the labels cannot judge it);
- reported otherwise: "fits one report" (it gains in one report only) or "does not help" (it
  gains nowhere, or its gains elsewhere are cancelled by its losses).
The order of telling and the phases of a note (nlp/narrative.py), a stated change and a window's
extreme are readings of the note's layout and values, not cue words: they are not judged here.
`check` is never read.

Unlike the assertion check, a reported rule is not dropped by this script: a cue of general
language ("due to", "secondary to") may fire in one `train` report only because two or three
questions are asked of each. What became of each reported rule, measured on the `check` split's
changed answers, is in docs/notes.md. Writes <out>/order_rules.json and <out>/ORDER_RULES.md;
prints the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from measure import git_commit

MTS_DATA = REPO.parent / "shared" / "data" / "mtsamples"
Answers = dict[str, bool]  # question id -> answered right


def judge(base: Answers, without: Answers, unit_of: Mapping[str, str]) -> dict[str, Any]:
    """What one rule does: its gain per unit (right with it minus right without it), the unit
    where it gains most, its held-out gain, and the status that follows."""
    gains: dict[str, int] = defaultdict(int)
    for qid, right in base.items():
        if right != without[qid]:
            gains[unit_of[qid]] += 1 if right else -1
    changed = {u: g for u, g in gains.items() if g}
    if not any(base[q] != without[q] for q in base):
        return {"status": "no effect", "gain": 0, "best_unit": None, "held_out": 0, "units": {}}
    best = max(sorted(changed), key=lambda u: changed[u]) if changed else None
    held_out = sum(g for u, g in changed.items() if u != best)
    if held_out > 0:
        status = "kept"
    elif best is not None and changed[best] > 0 and not any(g > 0 for u, g in changed.items() if u != best):
        status = "fits one report"
    else:
        status = "does not help"
    return {"status": status, "gain": sum(changed.values()), "best_unit": best, "held_out": held_out,
            "units": dict(sorted(changed.items()))}


def check(rule_ids: Sequence[str], answer: Callable[[str | None], Answers], unit_of: Mapping[str, str]
          ) -> list[dict[str, Any]]:
    """Each rule judged against the answers with every rule (`answer(None)`)."""
    base = answer(None)
    return [{"id": rid, **judge(base, answer(rid), unit_of)} for rid in rule_ids]


def _answerer(folder: Path) -> tuple[list[str], Callable[[str | None], Answers], dict[str, str], int]:
    """The cue rule ids, a function answering every `train` question without one rule (None: with
    all), each question's report, and the number of questions."""
    from medeventgraph.api import load, make_note_pipeline, select_patient
    from medeventgraph.core.answer import verify_query
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.core.query.model import VerificationQuery
    from medeventgraph.evaluation.protocol_mtsamples import load_labels
    from medeventgraph.model.settings import Settings
    from medeventgraph.nlp import relations

    settings = Settings(notes=True)
    pipeline = make_note_pipeline(settings)
    questions = [q for q in load_labels(folder) if q.split == "train" and q.problem is None and q.query]
    by_report: dict[str, list[Any]] = defaultdict(list)
    for q in questions:
        by_report[q.patient].append(q)
    asked = []
    for patient, qs in sorted(by_report.items()):
        index = build_index(select_patient(load(folder / "bundles" / f"{patient}.json", settings=settings), patient),
                            settings, notes=pipeline)
        asked.extend((q, index, VerificationQuery.model_validate(q.query)) for q in qs)
    every = relations._load_order_rules()

    def answer(left_out: str | None) -> Answers:
        rules = every if left_out is None else replace(every, rules=tuple(r for r in every.rules if r.id != left_out))
        original = relations._load_order_rules
        relations._load_order_rules = lambda: rules  # type: ignore[assignment]
        try:
            return {q.id: (verify_query(index, query, settings).verdict.value == "supported") == (q.gold == "supported")
                    for q, index, query in asked}
        finally:
            relations._load_order_rules = original  # type: ignore[assignment]

    return [r.id for r in every.rules], answer, {q.id: q.patient for q in questions}, len(questions)


def table(result: Mapping[str, Any]) -> str:
    lines = [
        "# Order cue rules: leave-one-report-out check",
        "",
        (f"Generated by `benchmarks/check_order_rules.py` on commit {result['commit']}, {result['date']}: "
        f"{result['questions']} MTSamples `train` questions over {result['reports']} reports, each answered with "
        "every cue rule of `nlp/resources/order_rules.json` and without one. Gain: answers made right minus made "
        "wrong by the rule; best report: where it gains most, taken as the one it was written from; held out: its "
        "gain in every other report. The order of telling, the phases, stated changes and window extremes are "
        "not cue rules and are not judged here."),
        "",
        f"Rules reported: {len(result['reported'])}" + (f" ({', '.join(result['reported'])})." if result["reported"] else "."),
        "",
        "| rule | status | gain | best report | held out | reports changed |",
        "|---|---|---|---|---|---|",
    ]
    for r in result["rules"]:
        units = ", ".join(f"{u} {g:+d}" for u, g in r["units"].items()) or "-"
        lines.append(f"| `{r['id']}` | {r['status']} | {r['gain']} | {r['best_unit'] or '-'} | {r['held_out']} | "
                     f"{units} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mts", type=Path, default=MTS_DATA)
    parser.add_argument("--out", type=Path, default=REPO / "results")
    args = parser.parse_args(argv)
    if not (args.mts / "labels").is_dir():
        print(f"no labels in {args.mts}: nothing to check", file=sys.stderr)
        return 0
    rule_ids, answer, unit_of, n = _answerer(args.mts)
    rules = check(rule_ids, answer, unit_of)
    reported = [r["id"] for r in rules if r["status"] not in ("kept", "no effect")]
    result = {"commit": git_commit(), "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "questions": n, "reports": len(set(unit_of.values())), "rules": rules, "reported": reported}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "order_rules.json").write_text(json.dumps(result, indent=1) + "\n")
    md = table(result)
    (args.out / "ORDER_RULES.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
