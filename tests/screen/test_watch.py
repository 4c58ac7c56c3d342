"""Watch-list items: the CDS Hooks watch list, or a JSONL of queries and questions; how an
item's outcome alternatives combine into one verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from medeventgraph.model.outcome import InputError
from medeventgraph.screen.watch import item_verdict, load_items

from .conftest import WATCHLIST


def test_watchlist_items_keep_their_outcome_alternatives() -> None:
    items = {i.id: i for i in load_items(WATCHLIST)}
    assert len(items["nephrotoxic-aki"].queries) == 2 and items["sepsis-antibiotic-1h"].adverse is False


def test_jsonl_of_queries_and_questions(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": "q-aki", "question": "Was AKI documented after vancomycin within one encounter?"}\n\n'
        '{"id": "q-json", "events": [{"id": "e0", "text": "heparin", "kind": "medication"}, '
        '{"id": "e1", "text": "bleeding", "kind": "condition"}], '
        '"relations": [{"from": "e0", "to": "e1", "type": "before"}]}\n', encoding="utf-8")
    items = load_items(path)
    assert [i.id for i in items] == ["q-aki", "q-json"]
    assert items[0].queries[0].id == "q-aki" and items[0].queries[0].scope == "encounter"
    path.write_text('{"id": "a", "question": "Was AKI documented after vancomycin?"}\n{"id": "b", "events": 3}\n',
                    encoding="utf-8")
    with pytest.raises(InputError, match="q.jsonl line 2"):
        load_items(path)


@pytest.mark.parametrize(("labels", "expected"), [
    (["insufficient", "supported"], ("supported", 1)),
    (["refuted", "conflicting"], ("conflicting", 1)),
    (["refuted", "refuted"], ("refuted", 0)),
    (["refuted", "insufficient"], ("insufficient", 1)),
])
def test_item_verdict(labels: list[str], expected: tuple[str, int]) -> None:
    assert item_verdict(labels) == expected
