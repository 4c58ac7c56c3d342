"""N1 (the labelled MTSamples questions): every labelled line is asked or counted as an error
row, both splits are scored, events found is the core's own grounding, and the figures follow
the issue's scoring. Runs on the bundled copies (tests/data/mtsamples: five reports of both splits
and their label lines); the copies are checked against ../shared when it is present."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from medeventgraph.evaluation import protocol_mtsamples as n1
from medeventgraph.evaluation.notes_report import section
from medeventgraph.evaluation.notes_run import ERROR, ask_all
from medeventgraph.evaluation.notes_score import by_reason, rates, score

from ..conftest import BUNDLED_DATA, shared_data_root

COPIES = BUNDLED_DATA / "mtsamples"


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_bundled_label_lines_are_the_shared_ones_verbatim():
    root = shared_data_root()
    if root is None or not (root / "mtsamples" / "labels").is_dir():
        pytest.skip("../shared/data/mtsamples/labels absent: the bundled copy is what the tests read")
    for name in ("queries.jsonl", "gold.jsonl"):
        shared = set(_lines(root / "mtsamples" / "labels" / name))
        assert set(_lines(COPIES / "labels" / name)) <= shared, name
    for bundle in (COPIES / "bundles").glob("*.json"):
        assert bundle.read_bytes() == (root / "mtsamples" / "bundles" / bundle.name).read_bytes()


def test_every_labelled_line_is_loaded_and_joined_to_its_query():
    questions = n1.load_labels(COPIES)
    assert len(questions) == len(_lines(COPIES / "labels" / "gold.jsonl")) == 19
    assert {q.split for q in questions} == {"train", "check"}
    assert all(q.problem is None and q.query is not None and "patient" not in q.query for q in questions)
    assert all(q.query["id"] == q.id for q in questions if q.query)


def test_smoke_keeps_both_splits_and_whole_reports():
    questions = n1.load_labels(COPIES)
    smoke = n1.smoke_subset(questions)
    assert {q.split for q in smoke} == {"train", "check"}
    for q in smoke:  # a report in the smoke set brings every one of its questions
        assert sum(x.patient == q.patient for x in smoke) == sum(x.patient == q.patient for x in questions)
    assert len({q.patient for q in smoke}) == 2 * n1.SMOKE_REPORTS


def _labels_dir(tmp_path: Path, gold: list[str], queries: list[str]) -> Path:
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "gold.jsonl").write_text("\n".join(gold) + "\n")
    (tmp_path / "labels" / "queries.jsonl").write_text("\n".join(queries) + "\n")
    (tmp_path / "bundles").mkdir()
    shutil.copy(COPIES / "mts-3024.json", tmp_path / "bundles" / "mts-3024.json")
    return tmp_path


def _q(qid: str, events: list[tuple[str, str]], **extra) -> str:
    return json.dumps({"patient": "mts-3024", "id": qid, "scope": "patient",
                       "events": [{"id": f"e{k}", "text": t, "kind": kind} for k, (t, kind) in enumerate(events)],
                       "relations": [{"from": "e0", "to": "e1", "type": "before"}], **extra})


def _g(qid: str, gold: str = "supported", patient: str = "mts-3024") -> str:
    return json.dumps({"id": qid, "patient": patient, "split": "train", "gold": gold, "reason": "explicit-sequence",
                       "why": "written for this test"})


def test_lines_that_cannot_be_asked_are_error_rows_scored_as_not_supported(tmp_path, note_pipeline):
    folder = _labels_dir(
        tmp_path,
        gold=[_g("ok"), _g("bad-kind"), _g("no-query"), "not json", _g("other-report", patient="mts-1")],
        queries=[_q("ok", [("DVT", "condition"), ("Coumadin", "medication")]),
                 _q("bad-kind", [("DVT", "spell"), ("Coumadin", "medication")]),
                 _q("other-report", [("DVT", "condition"), ("Coumadin", "medication")])])
    res = n1.run(folder, smoke=False, log=lambda *a: None, pipeline=note_pipeline)
    rows = {r["id"]: r for r in res["rows"]}
    assert len(res["rows"]) == 5  # nothing dropped
    assert rows["ok"]["error"] is None and rows["ok"]["verdict"] != ERROR
    assert "kind" in rows["bad-kind"]["error"]
    assert "no query" in rows["no-query"]["error"]
    assert rows["gold.jsonl:4"]["error"] and rows["other-report"]["error"]
    train = res["splits"]["train"]
    assert train["errors"] == 3 and train["n"] == 4  # the unparseable line belongs to no split
    assert res["all"]["errors"] == 4 and res["all"]["n"] == 5
    # an error row of a supported question is a miss: recall counts it in the denominator
    assert train["sup_recall"] == (rows["ok"]["verdict"] == "supported") / 4
    md = "\n".join(section("N1", res))
    assert "Error rows" in md and "`bad-kind`" in md


def test_events_found_is_the_cores_grounding(tmp_path, note_pipeline):
    folder = _labels_dir(
        tmp_path, gold=[_g("named"), _g("unnamed")],
        queries=[_q("named", [("DVT", "condition"), ("Coumadin", "medication")]),
                 _q("unnamed", [("DVT", "condition"), ("xylophone therapy", "procedure")])])
    rows = ask_all(folder / "bundles", n1.load_labels(folder), log=lambda *a: None, pipeline=note_pipeline)
    named, unnamed = rows
    assert named["events_found"] is True and named["unfound"] == []
    assert unnamed["events_found"] is False and unnamed["unfound"] == ["e1"]
    assert unnamed["verdict"] != "supported"
    assert rates(rows)["events_found"] == 0.5


def _row(gold: str, verdict: str, reason: str = "r", found: bool | None = True, split: str = "train") -> dict:
    return {"id": f"{gold}-{verdict}-{reason}", "patient": "p", "split": split, "gold": gold, "reason": reason,
            "verdict": verdict, "failure": None if verdict == "supported" else "unresolved_time",
            "events_found": found, "unfound": [], "error": "x" if verdict == ERROR else None, "ms": 1.0}


def test_rates_follow_the_issues_scoring():
    rows = [_row("supported", "supported"), _row("supported", "insufficient"), _row("supported", ERROR, found=None),
            _row("supported", "refuted", found=False), _row("not", "supported"), _row("not", "refuted"),
            _row("not", "conflicting"), _row("not", ERROR, found=None)]
    r = rates(rows)
    assert r["sup_recall"] == 1 / 4
    assert r["fsr"] == 1 / 4  # conflicting and an error row count as not supported
    assert r["ba"] == (1 / 4 + 3 / 4) / 2
    assert r["events_found"] == 2 / 4 and r["errors"] == 2


def test_by_reason_recall_is_the_share_answered_as_labelled():
    rows = [_row("not", "supported", "negated"), _row("not", "insufficient", "negated"),
            _row("not", "refuted", "negated"), _row("supported", "supported", "relative-time")]
    per = {r["reason"]: r for r in by_reason(rows)}
    assert per["negated"]["recall"] == 2 / 3 and per["negated"]["n"] == 3
    assert per["negated"]["verdicts"] == {"supported": 1, "insufficient": 1, "refuted": 1}
    assert per["negated"]["failures"] == {"unresolved_time": 2}
    assert by_reason(rows)[0]["gold"] == "supported"  # supported reasons first


def test_report_gives_both_splits_the_goals_and_per_reason_tables():
    rows = [_row("supported", "supported", split="train"), _row("not", "insufficient", split="train"),
            _row("supported", "insufficient", "relative-time", split="check"), _row("not", "refuted", split="check")]
    res = {"title": "t", "data": "mtsamples/labels", "kind": "labelled-notes", **score(rows), "rows": rows}
    md = "\n".join(section("N1", res))
    assert "| train | 1 | 2 (1 / 1) | 0 | 100.0 | 0.0 | 100.0 |" in md
    assert "| check | 1 | 2 (1 / 1) | 0 | 50.0 | 0.0 | 0.0 |" in md
    assert "supported recall >= 75: 0.0 (not met)" in md and "FSR <= 3: 0.0 (met)" in md
    assert "### N1 per reason, `train`" in md and "### N1 per reason, `check`" in md
