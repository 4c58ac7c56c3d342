"""N1: the labelled questions on real transcribed reports (MTSamples, notes only).

The questions and labels are not written here: they are `mtsamples/labels/` of the shared
data (`queries.jsonl` + `gold.jsonl`, README.md and GUIDE.md there): 559 questions over the
150 development reports, each written from the report and judged again blind by a second
independent reading, only agreed labels kept; split `train` (reports d001-d100) for
development and `check` (d101-d150) for an honest figure. Gold is binary (`supported` | `not`)
with a reason; no label was read off any system's output.

This module only reads and joins the two files. A question whose query or label is missing
or malformed stays in the set with the problem named (`LabelledQuestion.problem`): the run
counts it as an error row, it is never dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BUNDLES", "DATA", "LABELS", "NAME", "NOTES", "SPLITS", "TITLE", "LabelledQuestion", "load_labels",
           "run", "smoke_subset"]

NAME = "N1"
TITLE = "labelled questions on real reports (MTSamples, notes only; splits train and check)"
DATA = "mtsamples"  # the shared data folder holding labels/ and bundles/
LABELS = "labels"
BUNDLES = "bundles"
NOTES = True  # each record is one note: the note pipeline is the evidence
SPLITS = ("train", "check")
GOLD = ("supported", "not")
SMOKE_REPORTS = 2  # per split: the first reports in label order, every question of each


@dataclass(frozen=True)
class LabelledQuestion:
    id: str
    patient: str  # the report's Patient id (`mts-<row>`); its bundle is bundles/<patient>.json
    split: str  # train | check
    gold: str  # supported | not
    reason: str
    why: str  # the report's own words the label rests on
    query: dict[str, Any] | None  # the query as labelled, without the `patient` field
    problem: str | None = None  # why this line cannot be asked (an error row, never dropped)


def _lines(path: Path) -> list[tuple[int, dict[str, Any] | None]]:
    out: list[tuple[int, dict[str, Any] | None]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            value = None
        out.append((number, value if isinstance(value, dict) else None))
    return out


def _label_problem(g: dict[str, Any]) -> str | None:
    if g.get("split") not in SPLITS:
        return f"split {g.get('split')!r} is not one of {', '.join(SPLITS)}"
    if g.get("gold") not in GOLD:
        return f"gold {g.get('gold')!r} is not one of {', '.join(GOLD)}"
    if not isinstance(g.get("patient"), str) or not g["patient"]:
        return "no patient"
    return None


def load_labels(folder: Path) -> list[LabelledQuestion]:
    """Every labelled question of `folder/labels`, in gold.jsonl order, joined to its query by id.
    A gold line that is not JSON, or names no id, is kept as an error row under its line number."""
    labels = folder / LABELS
    queries: dict[str, dict[str, Any]] = {}
    for _, q in _lines(labels / "queries.jsonl"):
        if q is not None and isinstance(q.get("id"), str):
            queries[q["id"]] = q
    out: list[LabelledQuestion] = []
    for number, g in _lines(labels / "gold.jsonl"):
        if g is None or not isinstance(g.get("id"), str):
            out.append(LabelledQuestion(f"gold.jsonl:{number}", "", "", "", "", "", None,
                                        f"gold.jsonl line {number} is not a labelled question"))
            continue
        raw = queries.get(g["id"])
        query = None if raw is None else {k: v for k, v in raw.items() if k != "patient"}
        problem = _label_problem(g)
        if problem is None and raw is None:
            problem = "no query with this id in queries.jsonl"
        elif problem is None and raw is not None and raw.get("patient") != g["patient"]:
            problem = "queries.jsonl names another report for this id"
        out.append(LabelledQuestion(g["id"], str(g.get("patient") or ""), str(g.get("split") or ""),
                                    str(g.get("gold") or ""), str(g.get("reason") or ""), str(g.get("why") or ""),
                                    query, problem))
    return out


def smoke_subset(questions: list[LabelledQuestion]) -> list[LabelledQuestion]:
    """Both splits, small: every question of the first SMOKE_REPORTS reports of each split."""
    keep: set[tuple[str, str]] = set()
    for split in SPLITS:
        reports = list(dict.fromkeys(q.patient for q in questions if q.split == split))
        keep |= {(split, p) for p in reports[:SMOKE_REPORTS]}
    return [q for q in questions if (q.split, q.patient) in keep]


def run(folder: Path, *, smoke: bool, log=print, pipeline=None) -> dict[str, Any]:
    """The protocol's result for eval.json: every row, and per split the rates and reasons."""
    from medeventgraph.evaluation.notes_run import ask_all
    from medeventgraph.evaluation.notes_score import score

    if not (folder / LABELS / "gold.jsonl").is_file():
        return {"title": TITLE, "skipped": f"{DATA}/{LABELS}/gold.jsonl not found"}
    questions = load_labels(folder)
    if smoke:
        questions = smoke_subset(questions)
    log(f"{NAME}: {len(questions)} labelled questions over {len({q.patient for q in questions})} reports")
    rows = ask_all(folder / BUNDLES, questions, log=log, pipeline=pipeline)
    return {"title": TITLE, "data": f"{DATA}/{LABELS}", "kind": "labelled-notes", **score(rows), "rows": rows}
