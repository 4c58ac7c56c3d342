"""Events found: of the labelled supported MTSamples questions, the share whose named events are
all grounded (issue #19 item 2), per split and per event kind, and per binding basis.

    .venv/bin/python benchmarks/eval_events_found.py [--data ../shared/data/mtsamples] [--out results]

An event is found when grounding (core.simple.ground_all: the index's occurrences and the
note mentions of the query's own words) nominates at least one occurrence for it; whether the
contract then admits it is the verifier's business and measured by its BA/FSR. The `check`
split is for an honest figure: rules are written on `train` only.

Writes <out>/events_found.json and prints one line per split.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def measure(data: Path) -> dict[str, dict]:
    from medeventgraph.api import load, make_note_pipeline, select_patient
    from medeventgraph.core.discover.exhaustive import ground_all
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.core.query.model import VerificationQuery
    from medeventgraph.model.settings import Settings

    queries = {}
    for line in (data / "labels" / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        queries[row["id"]] = row
    gold = [json.loads(line) for line in (data / "labels" / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    settings = Settings()
    pipeline = make_note_pipeline(settings)
    out: dict[str, dict] = {}
    for split in ("train", "check"):
        rows = [g for g in gold if g["split"] == split and g["gold"] == "supported"]
        index, patient = None, None
        all_found = 0
        kinds: Counter[str] = Counter()
        found: Counter[str] = Counter()
        bases: Counter[str] = Counter()
        for g in rows:
            if g["patient"] != patient:
                patient = g["patient"]
                record = select_patient(load(data / "bundles" / f"{patient}.json", settings=settings), None)
                index = build_index(record, settings, notes=pipeline)
            assert index is not None
            query = {k: v for k, v in queries[g["id"]].items() if k != "patient"}
            vq = VerificationQuery.model_validate(query)
            groundings = ground_all(index, vq)
            every = True
            for event in vq.events:
                matches = groundings[event.id].matches
                kinds[event.kind or "any"] += 1
                found[event.kind or "any"] += bool(matches)
                bases.update({m.basis.kind.value for m in matches if m.basis is not None})
                every = every and bool(matches)
            all_found += every
        out[split] = {
            "supported_questions": len(rows),
            "all_events_found": all_found,
            "rate": round(100 * all_found / len(rows), 1),
            "events_found_per_kind": {k: {"found": found[k], "events": kinds[k],
                                          "rate": round(100 * found[k] / kinds[k], 1)} for k in sorted(kinds)},
            "matches_per_basis": dict(sorted(bases.items())),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "mtsamples")
    parser.add_argument("--out", type=Path, default=REPO / "results")
    args = parser.parse_args()
    result = measure(args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "events_found.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for split, row in result.items():
        kinds = ", ".join(f"{k} {v['found']}/{v['events']}" for k, v in row["events_found_per_kind"].items())
        print(f"{split}: {row['all_events_found']}/{row['supported_questions']} = {row['rate']}% ({kinds})")


if __name__ == "__main__":
    main()
