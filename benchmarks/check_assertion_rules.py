"""Leave-one-report-out check of the project's ConText rules: a rule that helps only on the one
report it could have been written from is dropped.

    .venv/bin/python benchmarks/check_assertion_rules.py [--kit ../shared/data/negex-context-dev]
                                                         [--mts ../shared/data/mtsamples] [--no-mts]
                                                         [--out results] [--rules other_context_rules.json]

Cases, each in a unit (a report, as far as the data tells):
- every row of the NegEx/ConText kit's development half: the row's condition read in its sentence,
  scored on negation, historical, hypothetical and family (4 decisions). The kit's rows carry no
  report id (its first column numbers the rows of a shuffled file), so the unit is the sentence:
  rows of one sentence come from one report, and a rule fitted to a sentence gains in that unit;
- every MTSamples `train` question measured by eval_mts_assertions.py: the mentions its `why`
  quotes (1 decision); the unit is its report (`mts-<row>`).

For each rule of nlp/resources/context_rules.json, every case is read with all rules and with all
but that rule (same pipeline, same target spans; only the cues change). Its gain in a unit is
the decisions it makes right there minus those it makes wrong. The unit where it gains most is
taken as the one its words came from; its held-out gain is its gain everywhere else. A rule is
- kept when its held-out gain is positive;
- kept as "no effect" when it changes no decision at all (the data cannot judge it);
- dropped otherwise: "fits one report" (it gains in one unit only) or "does not help" (it gains
  nowhere, or its gains elsewhere are cancelled by its losses).
Rules interact (one rule's scope ends another's), so the check is repeated without the dropped
rules until none is dropped; a rule dropped in any round is listed. For the kit, F1 per attribute
with and without each rule on the rows outside its best unit is reported too.

Writes <out>/assertion_rules.json and <out>/ASSERTION_RULES.md; prints the table. Exit status 1
when a rule of the file is dropped (so the file is not yet clean).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from eval_assertions import ATTRIBUTES, Row, f1, load_rows
from eval_mts_assertions import DATA as MTS_DATA
from eval_mts_assertions import Item, item_correct, load_items
from measure import git_commit

KIT_DATA = REPO.parent / "shared" / "data" / "negex-context-dev"


@dataclass(frozen=True, slots=True)
class Target:
    """One target read in one processed note: its span and target type."""

    note: int  # index into Cases.notes
    start: int  # token span in the note's doc
    end: int
    kind: str | None


@dataclass(frozen=True, slots=True)
class Case:
    unit: str
    label: str
    targets: tuple[Target, ...]  # none: the kit row's target was not found (all attributes absent)
    gold: frozenset[str] | None  # kit: the row's attributes; None for an MTSamples question
    expected: frozenset[str] | None = None  # MTSamples: as eval_mts_assertions.Item.expected

    def decisions(self, flags: Sequence[frozenset[str]]) -> frozenset[str] | bool:
        """What is scored of a reading: the kit's attributes, or whether the question reads as expected."""
        if self.gold is not None:
            return (flags[0] if flags else frozenset()) & frozenset(ATTRIBUTES)
        return item_correct(self.expected, flags)

    def errors(self, flags: Sequence[frozenset[str]]) -> int:
        if self.gold is not None:
            got = flags[0] if flags else frozenset()
            return sum((a in got) != (a in self.gold) for a in ATTRIBUTES)
        return 0 if item_correct(self.expected, flags) else 1


@dataclass
class Cases:
    notes: list[Any]  # ProcessedNote
    cases: list[Case]


def kit_unit(sentence: str) -> str:
    return "kit:" + hashlib.sha1(" ".join(sentence.split()).lower().encode()).hexdigest()[:10]


def kit_cases(rows: Iterable[Row], pipeline: Any) -> Cases:
    from medeventgraph.model.occurrence import EventTime, Granularity, Kind, NoteDocument, NoteText, TimeType
    from medeventgraph.nlp import TargetTerm
    from medeventgraph.nlp.pipeline import matched_targets
    from medeventgraph.nlp.targets import TermMatcher

    date = EventTime(start=datetime(2020, 1, 1, tzinfo=UTC), type=TimeType.DOCUMENTATION, granularity=Granularity.DAY)
    out = Cases([], [])
    for row in rows:
        note = NoteDocument("DocumentReference", f"kit-{row.line}", "Patient/kit", None, date,
                            (NoteText(0, "text/plain", row.sentence),))
        processed = pipeline.process(note, note.texts[0])
        term = TargetTerm(row.condition, row.condition, Kind.CONDITION, "query")
        found = matched_targets(processed, TermMatcher(pipeline.nlp, [term], pipeline.wordforms))[:1]
        out.notes.append(processed)
        targets = tuple(Target(len(out.notes) - 1, span.start, span.end, "condition") for span, _ in found)
        out.cases.append(Case(kit_unit(row.sentence), row.line, targets, row.gold))
    return out


def mts_cases(items: Iterable[Item], documents: dict[str, Any], pipeline: Any, into: Cases) -> int:
    """Adds the measurable MTSamples questions; returns how many quoted mentions, read again with
    all rules, differ from what the verifier's index holds (0 expected: the same reading)."""
    from medeventgraph.nlp.pipeline import target_flags

    seen: dict[tuple[str, int], int] = {}
    mismatched = 0
    for item in items:
        targets = []
        for m in item.mentions:
            key = (m.document, m.attachment)
            if key not in seen:
                document = documents[m.document]
                into.notes.append(pipeline.process(document, document.texts[m.attachment]))
                seen[key] = len(into.notes) - 1
            processed = into.notes[seen[key]]
            span = processed.doc.char_span(m.start, m.end, alignment_mode="expand")
            (context, section), = target_flags(processed, [span], [m.kind])
            mismatched += (context | section) != m.flags
            targets.append(Target(seen[key], span.start, span.end, m.kind))
        if targets:
            into.cases.append(Case(f"mts:{item.patient}", item.question, tuple(targets), None, item.expected))
    return mismatched


class Reader:
    """Reads every case with a rule set: all of the finder's rules less some left out."""

    def __init__(self, finder: Any, cases: Cases) -> None:
        self.finder = finder
        self.cases = cases
        self.matches = [finder.matches(n.doc) for n in cases.notes]
        self.by_note: dict[int, list[int]] = {}
        for i, case in enumerate(cases.cases):
            for note in {t.note for t in case.targets}:
                self.by_note.setdefault(note, []).append(i)

    def notes_with(self, rules: Sequence[Any]) -> list[int]:
        """The notes where one of the rules matches: only their cases can change without them."""
        ids = {id(r) for r in rules}
        return [i for i, ms in enumerate(self.matches) if any(id(self.finder.rule_of(m[0])) in ids for m in ms)]

    def read(self, left_out: set[int], notes: Iterable[int] | None = None) -> dict[int, Flags]:
        """Case index -> the flags of its targets, for the cases of `notes` (None: every note),
        without the rules whose id() is in `left_out`."""
        from medeventgraph.nlp.pipeline import target_flags

        wanted = list(range(len(self.cases.notes)) if notes is None else notes)
        read = {}
        for note in wanted:
            processed = self.cases.notes[note]
            kept = [m for m in self.matches[note] if id(self.finder.rule_of(m[0])) not in left_out]
            read[note] = replace(processed, modifiers=self.finder.settle(processed.doc, kept))
        out: dict[int, Flags] = {}
        for note in wanted:
            for i in self.by_note.get(note, ()):
                if i in out:
                    continue
                flags = []
                for t in self.cases.cases[i].targets:
                    processed = read.get(t.note, self.cases.notes[t.note])
                    (context, section), = target_flags(processed, [processed.doc[t.start:t.end]], [t.kind])
                    flags.append(context | section)
                out[i] = tuple(flags)
        if notes is None:  # every case: those with no target found read nothing
            out.update((i, ()) for i in range(len(self.cases.cases)) if i not in out)
        return out


Flags = tuple[frozenset[str], ...]


def judge(rule: Sequence[Any], reader: Reader, left_out: set[int], base: dict[int, Flags]) -> dict[str, Any]:
    """One rule's gain per unit (its ConTextRules: the cue and its exceptions) with the other
    rules of the round (all but `left_out`)."""
    cases = reader.cases.cases
    without = reader.read(left_out | {id(r) for r in rule}, reader.notes_with(rule))
    gains: dict[str, int] = {}
    changed = 0
    for i, flags in without.items():
        delta = cases[i].errors(flags) - cases[i].errors(base[i])
        changed += cases[i].decisions(flags) != cases[i].decisions(base[i])
        if delta:
            gains[cases[i].unit] = gains.get(cases[i].unit, 0) + delta
    total = sum(gains.values())
    best = max(gains, key=lambda u: (gains[u], u)) if gains else None
    held_out = total - (gains[best] if best is not None else 0)
    gaining = sum(g > 0 for g in gains.values())
    if not changed:
        verdict = "no effect"
    elif held_out > 0:
        verdict = "kept"
    elif gaining == 1:
        verdict = "fits one report"
    else:
        verdict = "does not help"
    outside = [i for i, c in enumerate(cases) if c.gold is not None and c.unit != best]
    return {
        "total_gain": total, "best_unit": best, "best_unit_gain": gains.get(best, 0) if best else 0,
        "held_out_gain": held_out, "units_gaining": sum(g > 0 for g in gains.values()),
        "units_losing": sum(g < 0 for g in gains.values()), "cases_changed": changed, "verdict": verdict,
        "gain_by_unit": dict(sorted(gains.items(), key=lambda kv: (-kv[1], kv[0]))),
        "cases_by_unit": {u: sorted(cases[i].label for i, f in without.items() if cases[i].unit == u
                                    and cases[i].errors(f) != cases[i].errors(base[i])) for u in gains},
        "kit_f1_held_out": {"with": kit_f1([(cases[i], base[i]) for i in outside]),
                            "without": kit_f1([(cases[i], without.get(i, base[i])) for i in outside])},
    }


def kit_f1(read: Sequence[tuple[Case, Flags]]) -> dict[str, float | None]:
    counts = {a: [0, 0, 0] for a in ATTRIBUTES}  # tp, fp, fn
    for case, flags in read:
        got = flags[0] if flags else frozenset()
        gold = case.gold or frozenset()
        for a in ATTRIBUTES:
            if a in got or a in gold:
                counts[a][0 if a in got and a in gold else 1 if a in got else 2] += 1
    return {a: f1(*counts[a]) for a in ATTRIBUTES}


DROPPED = ("fits one report", "does not help")


def grouped(rules: Sequence[Any]) -> dict[str, list[Any]]:
    """A rule of the file -> its ConTextRules (the cue and its exceptions), in file order."""
    out: dict[str, list[Any]] = {}
    for rule in rules:
        out.setdefault((rule.metadata or {}).get("rule", rule.literal), []).append(rule)
    return out


def check(reader: Reader, candidates: Sequence[Any], max_rounds: int = 10) -> list[dict[str, Any]]:
    """Rounds of judging every candidate rule still in; the dropped leave before the next round."""
    groups = grouped(candidates)
    left_out: set[int] = set()
    verdicts: dict[str, dict[str, Any]] = {}
    for round_number in range(1, max_rounds + 1):
        base = reader.read(left_out)
        dropped = []
        for name, rules in groups.items():
            if id(rules[0]) in left_out:
                continue
            verdicts[name] = {**judge(rules, reader, left_out, base), "round": round_number}
            if verdicts[name]["verdict"] in DROPPED:
                dropped.extend(rules)
        if not dropped:
            break
        left_out |= {id(r) for r in dropped}
    return [{"rule": rules[0], **verdicts[name]} for name, rules in groups.items()]


def _describe(rule: Any) -> dict[str, Any]:
    meta = rule.metadata or {}
    return {"literal": rule.literal, "class": meta.get("class", ""), "category": rule.category,
            "direction": rule.direction}


def table(result: dict[str, Any]) -> str:
    lines = [
        "# Leave-one-report-out check of the assertion rules",
        "",
        (f"Generated by `benchmarks/check_assertion_rules.py` on commit {result['commit']}, {result['date']}, "
         f"rules of `{result['rules_file']}`: "
         f"{result['kit_rows']} rows of the NegEx/ConText kit's development half ({result['kit_units']} sentences: the "
         f"kit carries no report id) and {result['mts_questions']} MTSamples `train` questions "
         f"({result['mts_units']} reports). Gain: decisions made right minus made wrong by the rule; best unit: where "
         "it gains most, taken as the report it was written from; held out: its gain everywhere else. Kept when the "
         "held-out gain is positive or it changes nothing; dropped rules are removed from the next round."),
        "",
        f"Rules dropped: {len(result['dropped'])}" + (f" ({', '.join(repr(d) for d in result['dropped'])})"
                                                      if result["dropped"] else "") + ".",
        "",
        "| rule | class | category | verdict | round | gain | best unit | best-unit gain | held-out gain | units + / - |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rules"]:
        lines.append(f"| `{r['literal']}` | {r['class']} | {r['category']} | {r['verdict']} | {r['round']} | "
                     f"{r['total_gain']} | {r['best_unit'] or '-'} | {r['best_unit_gain']} | {r['held_out_gain']} | "
                     f"{r['units_gaining']} / {r['units_losing']} |")
    return "\n".join(lines) + "\n"


def ours(rules: Sequence[Any]) -> list[Any]:
    """The project's rules (nlp/resources/context_rules.json), not medspaCy's defaults."""
    return [r for r in rules if (r.metadata or {}).get("source") == "medeventgraph"]


def run(kit_rows: Sequence[Row], pipeline: Any, finder: Any, candidates: Sequence[Any],
        mts: tuple[list[Item], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The check on these rows (and MTSamples items) read with `finder`'s rules; `candidates`
    (some of the finder's rules) are judged."""
    cases = kit_cases(kit_rows, pipeline)
    mismatched = mts_cases(mts[0], mts[1], pipeline, cases) if mts is not None else 0
    verdicts = check(Reader(finder, cases), candidates)
    kit = [c for c in cases.cases if c.gold is not None]
    questions = [c for c in cases.cases if c.gold is None]
    return {
        "kit_rows": len(kit),
        "kit_units": len({c.unit for c in kit}),
        "mts_questions": len(questions),
        "mts_units": len({c.unit for c in questions}),
        "mts_mentions_read_otherwise": mismatched,
        "dropped": [v["rule"].literal for v in verdicts if v["verdict"] in DROPPED],
        "rules": [{**_describe(v["rule"]), **{k: x for k, x in v.items() if k != "rule"}} for v in verdicts],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kit", type=Path, default=KIT_DATA)
    parser.add_argument("--mts", type=Path, default=MTS_DATA)
    parser.add_argument("--no-mts", action="store_true", help="the kit only")
    parser.add_argument("--out", type=Path, default=REPO / "results")
    parser.add_argument("--rules", type=Path, default=None,
                        help="another context rule file instead of nlp/resources/context_rules.json")
    args = parser.parse_args(argv)
    from eval_assertions import rule_set
    from medeventgraph.model.settings import Settings
    from medeventgraph.nlp import NotePipeline

    settings = Settings()
    pipeline = NotePipeline(max_note_chars=settings.max_note_chars, cache_size=settings.note_cache_size,
                            cache_chars=settings.note_cache_chars, context_rules=rule_set(args.rules))
    path = args.kit / "assertions-dev.tsv" if args.kit.is_dir() else args.kit
    mts = None if args.no_mts else load_items(args.mts, "train", pipeline)
    finder = pipeline.modifier_finder
    result = {"commit": git_commit(), "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "rules_file": str(args.rules) if args.rules else "nlp/resources/context_rules.json",
              **run(load_rows(path), pipeline, finder, ours(finder.rules), mts)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "assertion_rules.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "ASSERTION_RULES.md").write_text(table(result))
    print(table(result))
    return 1 if result["dropped"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
