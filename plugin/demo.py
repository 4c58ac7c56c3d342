"""`make demo`: verify the example queries against the bundled Synthea patients.

Reads examples/synthea (three patients in one folder, so every query also shows other
patients' resources being excluded) and examples/queries.jsonl, prints a summary table,
one verdict in full, and writes every verdict to results/demo_verdicts.jsonl.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson
from medeventgraph.api import load, make_note_pipeline, parse_query, select_patient
from medeventgraph.core import PatientIndex, answer, build_index
from medeventgraph.model.settings import Settings
from medeventgraph.wording.table import format_table, verdict_table

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m medeventgraph.demo")
    ap.add_argument("--examples", type=Path, default=REPO / "examples")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "demo_verdicts.jsonl")
    args = ap.parse_args(argv)

    settings = Settings()
    result = load(args.examples / "synthea", settings=settings)
    print(f"loaded {len(result.resources)} resources, {len(result.patient_ids())} patients, "
          f"{len(result.issues)} input issues from {args.examples / 'synthea'}")
    notes = make_note_pipeline(settings)
    indexes: dict[str, PatientIndex] = {}
    rows, verdicts = [], []
    first_query = None
    for line in (args.examples / "queries.jsonl").read_text().splitlines():
        raw = orjson.loads(line)
        patient = raw.pop("patient")
        if patient not in indexes:
            indexes[patient] = build_index(select_patient(result, patient), settings, notes=notes)
        query = parse_query(raw)
        first_query = first_query or query
        verdict = answer(indexes[patient], query, settings).verdict
        verdicts.append(verdict)
        rows.append({
            "query": query.id,
            "scope": query.scope.value,
            "verdict": verdict.verdict.value,
            "S+": f"{verdict.s_plus:.2f}",
            "S-": f"{verdict.s_minus:.2f}",
            "failure": verdict.failure.value if verdict.failure else "",
            "citations": len(verdict.citations),
        })
    print()
    print(format_table(rows, ["query", "scope", "verdict", "S+", "S-", "failure", "citations"]))
    print(verdict_table(verdicts[0], first_query))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("wb") as fh:
        for v in verdicts:
            fh.write(orjson.dumps(v.model_dump(mode="json")) + b"\n")
    print(f"all verdicts (JSON, with evidence and citations): {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
