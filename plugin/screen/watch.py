"""Watch-list items for screening: the CDS Hooks watch-list JSON, or a queries/questions JSONL.

An item is one line of output per patient. A watch with several outcome alternatives
(kidney injury *or* creatinine rise) is one item whose queries are combined by `item_verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson
from medeventgraph.batch import json_line
from medeventgraph.cds_hooks.watchlist import WatchList
from medeventgraph.core import VerificationQuery
from medeventgraph.model.outcome import InputError, Issue

__all__ = ["WatchItem", "item_verdict", "load_items"]

# Supported beats everything; conflicting beats what is left; refuted only when every
# alternative is refuted, since "X then (Y or Z)" is refuted only if both are.
_LABELS = ("supported", "conflicting", "refuted", "insufficient")


@dataclass(frozen=True, slots=True)
class WatchItem:
    id: str
    title: str
    queries: tuple[VerificationQuery, ...]
    adverse: bool = True
    # The question each query was parsed from (None for a query sent as JSON): "started on" is
    # read against each patient's record when the item is verified (core.question_record).
    questions: tuple[str | None, ...] = ()

    def asked(self) -> list[tuple[VerificationQuery, str | None]]:
        return [(q, self.questions[i] if i < len(self.questions) else None) for i, q in enumerate(self.queries)]


def item_verdict(labels: list[str]) -> tuple[str, int]:
    """(item verdict, index of the alternative that decides it)."""
    for wanted in ("supported", "conflicting"):
        if wanted in labels:
            return wanted, labels.index(wanted)
    if labels and all(label == "refuted" for label in labels):
        return "refuted", 0
    idx = next((i for i, label in enumerate(labels) if label == "insufficient"), 0)
    return "insufficient", idx


def _from_watchlist(raw: dict) -> list[WatchItem]:
    wl = WatchList.model_validate(raw)
    return [WatchItem(w.id, w.title, tuple(w.queries()), w.adverse) for w in wl.watches]


def _from_jsonl(text: str, name: str) -> list[WatchItem]:
    from medeventgraph.api import parse_query

    items: list[WatchItem] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        raw = json_line(line, f"{name} line {n}")
        qid = str(raw.get("id") or f"line-{n}")
        question: str | None = None
        try:
            if "question" in raw:
                question = str(raw["question"])
                query = parse_query(question).model_copy(update={"id": qid})
                title = question
            else:
                raw.pop("patient", None)
                query = parse_query(raw)
                title = str(raw.get("title") or qid)
        except ValueError as exc:
            raise InputError(Issue("error", "invalid", f"{name} line {n}: {type(exc).__name__}: {exc}")) from None
        items.append(WatchItem(qid, title[:200], (query,), True, (question,)))
    return items


def load_items(path: Path) -> list[WatchItem]:
    """Items from a watch-list JSON ({"watches": [...]}) or a JSONL of queries/questions."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(Issue("fatal", "not-found", f"{path}: cannot be read ({type(exc).__name__})")) from None
    try:
        whole = orjson.loads(text)
    except orjson.JSONDecodeError:
        whole = None
    items = _from_watchlist(whole) if isinstance(whole, dict) and "watches" in whole else _from_jsonl(text, Path(path).name)
    if not items:
        raise InputError(Issue("error", "required", f"{path}: no watch-list items"))
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise InputError(Issue("error", "duplicate", f"{path}: item ids are not unique"))
    return items
