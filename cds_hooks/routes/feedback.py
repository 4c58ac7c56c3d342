"""POST /cds-services/{id}/feedback: what the clinician did with our cards."""

from __future__ import annotations

from fastapi import APIRouter
from medeventgraph.cds_hooks.cards import OVERRIDE_REASONS, OVERRIDE_SYSTEM
from medeventgraph.cds_hooks.deps import CallerDep, StateDep
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.feedback_models import FeedbackItem, FeedbackRequest
from medeventgraph.cds_hooks.services import SERVICES
from starlette.concurrency import run_in_threadpool

router = APIRouter(tags=["feedback"])

_DECLARED = {c.code for c in OVERRIDE_REASONS}


def _check_reasons(items: list[FeedbackItem]) -> None:
    """A reason in our own code system (or with none) must be one discovery declared."""
    for k, item in enumerate(items):
        reason = item.overrideReason.reason if item.overrideReason else None
        if reason is not None and reason.system in (None, OVERRIDE_SYSTEM) and reason.code not in _DECLARED:
            field = f"feedback.{k}.overrideReason.reason.code"
            raise HookError(400, f"{field}: not one of this service's override reasons "
                                 f"({', '.join(sorted(_DECLARED))})", expression=(field,))


@router.post("/cds-services/{service_id}/feedback")
async def feedback(service_id: str, body: FeedbackRequest, state: StateDep, caller: CallerDep) -> dict:
    if service_id not in SERVICES:
        raise HookError(404, "unknown CDS service", code="not-found")
    _check_reasons(body.feedback)
    await run_in_threadpool(state.feedback.append, service_id, body.feedback)
    return {}
