"""POST /cds-services/{id}/feedback: what the clinician did with our cards."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from .deps import CallerDep, StateDep
from .errors import HookError
from .models import FeedbackRequest
from .services import SERVICES

router = APIRouter(tags=["feedback"])


@router.post("/cds-services/{service_id}/feedback")
async def feedback(service_id: str, body: FeedbackRequest, state: StateDep, caller: CallerDep) -> dict:
    if service_id not in SERVICES:
        raise HookError(404, "unknown CDS service", code="not-found")
    await run_in_threadpool(state.feedback.append, service_id, body.feedback)
    return {}
