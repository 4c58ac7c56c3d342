"""Ask every labelled question of N1 (protocol_mtsamples) of its report: one row per question.

The verifier is B6 as shipped (`verify_query` with the default settings: controller discovery,
the note pipeline reading the report). Whether the question's events are found is the core's
own grounding (`core.verify.ground_all`, the call the verifier makes before it searches), not a
copy of it. The row holds nothing of the label but what scoring needs (split, gold, reason);
the verifier sees the query alone.
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from medeventgraph.evaluation.protocol_mtsamples import LabelledQuestion

__all__ = ["ERROR", "ask_all"]

ERROR = "error"  # the verdict cell of a question that could not be asked (scored as not supported)


def _row(q: LabelledQuestion, **cells: Any) -> dict[str, Any]:
    return {"id": q.id, "patient": q.patient, "split": q.split, "gold": q.gold, "reason": q.reason,
            "verdict": ERROR, "failure": None, "events_found": None, "unfound": [], "error": None,
            "ms": None, **cells}


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "query"
        return f"invalid query: {where}: {first.get('msg', '')}"
    return f"{type(exc).__name__}: {exc}"


def ask_all(bundles: Path, questions: list[LabelledQuestion], *, log=print, pipeline=None) -> list[dict[str, Any]]:
    """Rows in the questions' order (one per question, duplicates of an id included). One index
    per report, built once for its questions. `pipeline`: a note pipeline already built (tests
    share one); by default the one the settings make."""
    from medeventgraph.api import load, make_note_pipeline, select_patient
    from medeventgraph.core.answer import verify_query
    from medeventgraph.core.discover.exhaustive import ground_all
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.core.query.model import VerificationQuery
    from medeventgraph.model.outcome import InputError
    from medeventgraph.model.settings import Settings
    from pydantic import ValidationError

    settings = Settings(notes=True)
    pipeline = pipeline or make_note_pipeline(settings)
    by_report: dict[str, list[tuple[int, LabelledQuestion]]] = defaultdict(list)
    rows: list[dict[str, Any]] = [_row(q, error=q.problem) for q in questions]
    for k, q in enumerate(questions):
        if q.problem is None:
            by_report[q.patient].append((k, q))
    t0 = time.time()
    for n, (patient, asked) in enumerate(sorted(by_report.items()), 1):
        path = bundles / f"{patient}.json"
        if not path.is_file():
            for k, q in asked:
                rows[k] = _row(q, error=f"no bundle {path.name} in {bundles.name}/")
            continue
        try:
            record = select_patient(load(path, settings=settings), patient)
        except InputError as exc:
            for k, q in asked:
                rows[k] = _row(q, error=f"{path.name}: {exc}")
            continue
        index = build_index(record, settings, notes=pipeline)
        for k, q in asked:
            try:
                query = VerificationQuery.model_validate(q.query)
            except ValidationError as exc:
                rows[k] = _row(q, error=_first_error(exc))
                continue
            groundings = ground_all(index, query)
            started = time.perf_counter()
            verdict = verify_query(index, query, settings)
            unfound = [e.id for e in query.events if not e.hidden and not groundings[e.id].matches]
            rows[k] = _row(q, verdict=verdict.verdict.value, events_found=not unfound, unfound=unfound,
                              failure=verdict.failure.value if verdict.failure else None,
                              ms=round(1000 * (time.perf_counter() - started), 2))
        if n % 25 == 0:
            log(f"  N1: {n}/{len(by_report)} reports, {time.time() - t0:.0f}s")
    return rows
