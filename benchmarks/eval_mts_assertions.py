"""Assertions on the MTSamples labels: does the mention a question's `why` quotes carry the
assertion its gold reason names?

    .venv/bin/python benchmarks/eval_mts_assertions.py [--split train] [--data ../shared/data/mtsamples]
                                                       [--out results] [--rules other_context_rules.json]

Each labelled question names two events and quotes the report's words that decide it (`why`).
The events are grounded as the verifier grounds them (`core.simple.ground_all`: the lexicon's
terms and the question's own words); a note mention of an event that lies inside a quoted piece is
a mention the `why` quotes. Expected, by gold reason:
- negated -> negated; planned-future -> hypothetical; hypothetical -> hypothetical or uncertain
  (the guide's "hypothetical" takes in "possible X" and "X versus Y"); family-history -> family;
  historical-only -> historical: at least one quoted mention carries it;
- supported, order-reversed and concurrent questions: both events happened, so no quoted mention
  may be negated, hypothetical or family (historical is not counted: a past event did happen).
A question none of whose event mentions lies in its `why` is not measurable (reported).

Only the `train` split by default: `check` is for an honest figure, read after a change is done.
Writes <out>/mts_assertions_<split>.json and <out>/MTS_ASSERTIONS.md; prints the table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from measure import git_commit

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "mtsamples"
EXPECTED = {
    "negated": frozenset({"negated"}),
    "planned-future": frozenset({"hypothetical"}),
    "hypothetical": frozenset({"hypothetical", "uncertain"}),
    "family-history": frozenset({"family"}),
    "historical-only": frozenset({"historical"}),
}
AFFIRMED_REASONS = frozenset({"explicit-sequence", "explicit-dates", "relative-time", "concurrent", "order-reversed"})
NOT_HAPPENED = frozenset({"negated", "hypothetical", "family"})  # an affirmed item's quoted mentions carry none


@dataclass(frozen=True, slots=True)
class QuotedMention:
    """A note mention of one of the question's events inside its `why`: where, and for which kind
    of target its flags were computed ('value' for a stated lab/vital value, None: unknown)."""

    document: str  # "DocumentReference/mts-47"
    attachment: int
    start: int
    end: int
    kind: str | None
    flags: frozenset[str]  # as the pipeline gave them


@dataclass(frozen=True, slots=True)
class Item:
    question: str
    patient: str  # the report: the leave-one-report-out unit
    reason: str
    expected: frozenset[str] | None  # one of these on a quoted mention; None: affirmed (none of NOT_HAPPENED)
    mentions: tuple[QuotedMention, ...]


def item_correct(expected: frozenset[str] | None, flags: Iterable[frozenset[str]]) -> bool:
    flags = list(flags)
    if expected is None:
        return not any(f & NOT_HAPPENED for f in flags)
    return any(f & expected for f in flags)


def quoted_spans(text: str, why: str) -> list[tuple[int, int]]:
    """Where each ' ... '-joined piece of `why` stands in the note (white space runs may differ)."""
    spans = []
    for piece in (p.strip() for p in why.split(" ... ")):
        if not piece:
            continue
        at = text.find(piece)
        if at >= 0:
            spans.append((at, at + len(piece)))
            continue
        pattern = r"\s+".join(re.escape(w) for w in piece.split())
        found = re.search(pattern, text)
        if found is not None:
            spans.append(found.span())
    return spans


def _mention_kind(occ: Any) -> str | None:
    if occ.value is not None:
        return "value"
    return None if occ.extra_value("kind") == "unspecified" else occ.kind.value


def _flags(occ: Any) -> frozenset[str]:
    a = occ.assertion
    return frozenset(n for n in ("negated", "uncertain", "hypothetical", "historical", "family") if getattr(a, n))


def load_items(data: Path, split: str, pipeline: Any) -> tuple[list[Item], dict[str, Any]]:
    """The split's questions with the reasons above, their quoted mentions, and each report's
    documents (reference -> NoteDocument) for re-reading them with other rules."""
    from medeventgraph.api import load, select_patient
    from medeventgraph.core.discover.exhaustive import ground_all, query_mentions
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.core.query.model import VerificationQuery
    from medeventgraph.model.occurrence import Origin
    from medeventgraph.model.settings import Settings

    settings = Settings()
    queries = {q["id"]: q for q in map(json.loads, (data / "labels" / "queries.jsonl").read_text().splitlines())}
    gold = [g for g in map(json.loads, (data / "labels" / "gold.jsonl").read_text().splitlines())
            if g["split"] == split and (g["reason"] in EXPECTED or g["reason"] in AFFIRMED_REASONS)]
    by_patient: dict[str, list[dict]] = {}
    for g in gold:
        by_patient.setdefault(g["patient"], []).append(g)
    items: list[Item] = []
    documents: dict[str, Any] = {}
    for patient, labels in by_patient.items():
        record = select_patient(load(data / "bundles" / f"{patient}.json", settings=settings), None)
        index = build_index(record, settings, notes=pipeline)
        documents.update(index.documents)
        for g in labels:
            query = {k: v for k, v in queries[g["id"]].items() if k != "patient"}
            parsed = VerificationQuery.model_validate(query)
            pool = {o.id: o for o in [*index.occurrences.values(), *query_mentions(index, parsed)]}
            quoted: dict[str, QuotedMention] = {}
            for grounding in ground_all(index, parsed).values():
                for match in grounding.matches:
                    occ = pool[match.occurrence]
                    if occ.origin is not Origin.NOTE or occ.source.start is None:
                        continue
                    document = index.documents[occ.reference]
                    text = document.texts[occ.source.attachment].text
                    spans = quoted_spans(text, g["why"])
                    if any(s <= occ.source.start and occ.source.end <= e for s, e in spans):
                        quoted[occ.id] = QuotedMention(occ.reference, occ.source.attachment, occ.source.start,
                                                       occ.source.end, _mention_kind(occ), _flags(occ))
            items.append(Item(g["id"], patient, g["reason"], EXPECTED.get(g["reason"]),
                              tuple(sorted(quoted.values(), key=lambda m: (m.document, m.start)))))
    return items, documents


def score(items: list[Item], flags_of: Callable[[QuotedMention], frozenset[str]]) -> dict[str, Any]:
    """Per reason: questions, measurable ones, and those read as expected."""
    by_reason: dict[str, dict[str, Any]] = {}
    for item in items:
        row = by_reason.setdefault(item.reason, {"questions": 0, "measurable": 0, "as_expected": 0, "wrong": []})
        row["questions"] += 1
        if not item.mentions:
            continue
        row["measurable"] += 1
        if item_correct(item.expected, (flags_of(m) for m in item.mentions)):
            row["as_expected"] += 1
        else:
            row["wrong"].append(item.question)
    for row in by_reason.values():
        row["share"] = round(row["as_expected"] / row["measurable"], 4) if row["measurable"] else None
    return by_reason


def table(result: dict[str, Any]) -> str:
    lines = [
        f"# Assertions on the MTSamples labels (split `{result['split']}`)",
        "",
        (f"Generated by `benchmarks/eval_mts_assertions.py` on commit {result['commit']}, {result['date']}, "
         f"context rules `{result['rules_file']}`. "
         "For each question, the note mentions of its events that lie inside its quoted `why`: a question of a "
         "reason below 'not happened' is read as expected when one of them carries the assertion; a question whose "
         "events happened when none is negated, hypothetical or family. Not measurable: no event mention in the `why`."),
        "",
        "| gold reason | expected on a quoted mention | questions | measurable | as expected | share |",
        "|---|---|---|---|---|---|",
    ]
    for reason, row in sorted(result["reasons"].items(), key=lambda kv: (kv[0] in AFFIRMED_REASONS, kv[0])):
        wanted = " or ".join(sorted(EXPECTED[reason])) if reason in EXPECTED else "none negated/hypothetical/family"
        share = "-" if row["share"] is None else f"{100 * row['share']:.1f} %"
        lines.append(f"| {reason} | {wanted} | {row['questions']} | {row['measurable']} | {row['as_expected']} | {share} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--split", default="train", choices=("train", "check"))
    parser.add_argument("--out", type=Path, default=REPO / "results")
    parser.add_argument("--rules", type=Path, default=None,
                        help="another context rule file instead of nlp/resources/context_rules.json")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "benchmarks"))
    from eval_assertions import rule_set
    from medeventgraph.model.settings import Settings
    from medeventgraph.nlp import NotePipeline

    settings = Settings()
    pipeline = NotePipeline(max_note_chars=settings.max_note_chars, cache_size=settings.note_cache_size,
                            cache_chars=settings.note_cache_chars, context_rules=rule_set(args.rules))
    items, _ = load_items(args.data, args.split, pipeline)
    result = {
        "split": args.split,
        "rules_file": str(args.rules) if args.rules else "nlp/resources/context_rules.json",
        "commit": git_commit(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "reasons": score(items, lambda m: m.flags),
        "items": [{"question": i.question, "reason": i.reason, "mentions": [
            {"document": m.document, "start": m.start, "end": m.end, "kind": m.kind, "flags": sorted(m.flags)}
            for m in i.mentions]} for i in items],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"mts_assertions_{args.split}.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "MTS_ASSERTIONS.md").write_text(table(result))
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
