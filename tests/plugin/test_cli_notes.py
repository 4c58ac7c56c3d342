"""`medeventgraph notes --in FILE.jsonl`: mentions, spans, assertions and times of a user's own texts."""

from __future__ import annotations

import orjson
from medeventgraph.cli.main import main

LINES = [
    {"id": "a", "text": "Pt denies   chest\n pain. Started Zosyn 2 days ago.", "date": "2024-01-03",
     "targets": ["chest pain", {"literal": "zosyn", "concept": "piperacillin", "kind": "medication"}]},
    "not json",
    {"text": 5, "targets": ["x"]},
    {"text": "h/o GI bleed while on Coumadin.", "targets": []},
    {"text": "FAMILY HISTORY:\nMother with breast cancer.", "targets": "breast cancer"},
    {"text": "FAMILY HISTORY:\nMother with breast cancer.", "targets": ["breast cancer"]},
]


def run(tmp_path, capsys, *extra: str) -> list[dict]:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else orjson.dumps(x).decode() for x in LINES) + "\n")
    assert main(["notes", "--in", str(path), *extra]) == 0
    return [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_mentions_spans_assertions_and_times(tmp_path, capsys):
    rows = run(tmp_path, capsys)
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5, 6]  # every line answered, bad ones too
    first = rows[0]
    text = LINES[0]["text"]
    assert first["id"] == "a"
    chest, zosyn = first["mentions"]
    assert (chest["text"], chest["assertion"]["negated"], chest["time"]) == ("chest\n pain", True, None)
    assert text[chest["start"]:chest["end"]] == chest["text"]
    assert (zosyn["concept"], zosyn["kind"], zosyn["time"]["start"][:10], zosyn["time"]["text"]) == \
        ("piperacillin", "medication", "2024-01-01", "2 days ago")
    assert rows[5]["mentions"][0]["section"] == "family_history"
    assert rows[5]["mentions"][0]["assertion"]["family"] is True


def test_bad_lines_get_operation_outcomes(tmp_path, capsys):
    rows = run(tmp_path, capsys)
    diagnostics = {r["line"]: r["error"]["issue"][0]["diagnostics"] for r in rows if "error" in r}
    assert set(diagnostics) == {2, 3, 4, 5}
    assert "malformed JSON" in diagnostics[2]
    assert "text" in diagnostics[3]
    assert "no targets" in diagnostics[4]
    assert "targets" in diagnostics[5]
    assert all(r["error"]["resourceType"] == "OperationOutcome" for r in rows if "error" in r)


def test_lexicon_names(tmp_path, capsys):
    rows = run(tmp_path, capsys, "--lexicon")
    got = {(m["text"], m["concept"], m["assertion"]["historical"]) for m in rows[3]["mentions"]}
    assert got == {("GI bleed", "gastrointestinal bleeding", True), ("Coumadin", "warfarin", True)}
