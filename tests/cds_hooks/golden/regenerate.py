"""Rebuild the golden verdict inputs from the golden patients with the real engine.

    .venv/bin/python tests/cds_hooks/golden/regenerate.py

Each case in cases.json names a bundle, a query and the template it is meant to reach; the
verdict the engine gives is frozen into inputs/<case>.json so the card tests exercise the
wording alone (a change in the core does not rewrite what a card is expected to say). A case
marked "edit" starts from another case's verdict with fields replaced: it stands for verdicts
only another assessor (settings.assessor = llm) can give, such as a refutation with no code.
Then refresh the expected cards: MEG_GOLDEN_UPDATE=1 pytest tests/cds_hooks/test_cards_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

from medeventgraph.api import load, make_note_pipeline, parse_query, select_patient
from medeventgraph.core.answer import verify_query
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.model.settings import Settings

HERE = Path(__file__).resolve().parent


def main() -> None:
    cases = json.loads((HERE / "cases.json").read_text())
    settings = Settings()
    notes = make_note_pipeline(settings)
    indexes = {}
    out = HERE / "inputs"
    out.mkdir(exist_ok=True)
    verdicts: dict[str, dict] = {}
    for case in cases:
        if "edit" in case:
            continue
        key = (case["bundle"], case["patient"])
        if key not in indexes:
            indexes[key] = build_index(select_patient(load(HERE / case["bundle"], settings=settings),
                                                      case["patient"]), settings, notes=notes)
        query = parse_query(case["query"])
        verdict = verify_query(indexes[key], query, settings).model_dump(mode="json")
        verdict.pop("search", None)  # discovery metadata: audit only, never shown on a card
        verdicts[case["name"]] = verdict
    for case in cases:
        if "edit" in case:
            base = next(c for c in cases if c["name"] == case["edit"]["from"])
            case = {**case, "query": {**base["query"], **case["edit"].get("query", {})}}
            verdicts[case["name"]] = {**verdicts[base["name"]], **case["edit"]["set"]}
        body = {"name": case["name"], "about": case["about"], "template": case["template"],
                "query": case["query"], "verdict": verdicts[case["name"]]}
        (out / f"{case['name']}.json").write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
        print(f"{case['name']:34} {verdicts[case['name']]['verdict']:13} {verdicts[case['name']]['failure']}")


if __name__ == "__main__":
    main()
