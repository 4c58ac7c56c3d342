"""POST /cds-services/{id}: run a service and answer with cards.

The route only validates, gathers data and dispatches; the work runs on the engine's worker
threads under the call's deadline (cds_hooks/worker_pool.py), because building an index and verifying
are CPU-bound.
"""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import APIRouter
from medeventgraph.cds_hooks.cards import action_note, verdict_card, wants_card
from medeventgraph.cds_hooks.deps import CallerDep, ServiceState, StateDep
from medeventgraph.cds_hooks.encounter import index_for_question
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.models import (
    Card,
    CdsResponse,
    HookRequest,
    OrderContext,
    PatientViewContext,
    VerifyContext,
)
from medeventgraph.cds_hooks.orders import draft_medications, order_queries
from medeventgraph.cds_hooks.prefetch import PatientData, gather
from medeventgraph.cds_hooks.services import ORDER_SELECT, ORDER_SIGN, PATIENT_VIEW, SERVICES, VERIFY
from medeventgraph.cds_hooks.worker_pool import Deadline
from medeventgraph.fhir_adapters.json_shape import shape_problem
from pydantic import BaseModel, ValidationError

router = APIRouter(tags=["hooks"])

C = TypeVar("C", bound=BaseModel)
_RANK = {"supported": 0, "conflicting": 1, "refuted": 2, "insufficient": 3}


def _context(model: type[C], req: HookRequest, max_depth: int) -> C:
    """The hook's context as `model`; 400 naming the field for a value the model refuses, or
    one of its fields the record's readers and hashers cannot take (a lone surrogate in the
    question, a draft order nested too deep: fhir_adapters.json_shape). Unknown fields are not
    read, so not checked."""
    try:
        ctx = model.model_validate(req.context)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        raise HookError(400, f"context.{loc}: {first.get('msg')}", code="invalid",
                        expression=(f"context.{loc}",)) from None
    for name in model.model_fields:
        if name in req.context:
            _check_shape(req.context[name], f"context.{name}", max_depth)
    return ctx


def _check_shape(value: Any, where: str, max_depth: int) -> None:
    problem = shape_problem(value, max_depth)
    if problem is not None:
        at = f" at {problem.path}" if problem.path else ""
        raise HookError(400, f"{where}: {problem.rule}{at}", code=problem.code, expression=(where,))


def _patient_view(state: ServiceState, ctx: PatientViewContext, data: PatientData, deadline: Deadline) -> list[Card]:
    engine, settings = state.engine, state.settings
    index = engine.index_for(ctx.patientId, data, "cds-hooks:patient-view", deadline)
    cards = []
    for watch in state.watchlist.watches:
        # One card per watch: its most definite outcome alternative.
        results = [(q, engine.verify(index, q, deadline)) for q in watch.queries()]
        query, verdict = min(results, key=lambda qv: _RANK[qv[1].verdict.value])
        if wants_card(verdict.verdict.value, settings):
            cards.append(verdict_card(verdict, query, settings, title=watch.title, topic=watch.topic,
                                      adverse=watch.adverse, patient=ctx.patientId, encounter=ctx.encounterId))
    return cards


def _orders(state: ServiceState, ctx: OrderContext, data: PatientData, hook: str, deadline: Deadline) -> list[Card]:
    engine, settings = state.engine, state.settings
    drugs = draft_medications(ctx.draftOrders, ctx.selections if hook == "order-select" else None)
    if not drugs:
        return []
    index = engine.index_for(ctx.patientId, data, f"cds-hooks:{hook}", deadline)
    cards = []
    for drug in drugs:
        best: dict[str, tuple[Any, Any, Any]] = {}
        for query, watch in order_queries(drug, state.watchlist):
            verdict = engine.verify(index, query, deadline)
            outcome = query.events[1].text or ""
            if outcome not in best or _RANK[verdict.verdict.value] < _RANK[best[outcome][1].verdict.value]:
                best[outcome] = (query, verdict, watch)
        for outcome, (query, verdict, watch) in best.items():
            if wants_card(verdict.verdict.value, settings):
                title = f"Checked because {drug.name} is being ordered ({watch.title.lower()})"
                cards.append(verdict_card(verdict, query, settings, title=title, topic=watch.topic,
                                          adverse=True, patient=ctx.patientId,
                                          lead=f"{drug.name[:1].upper()}{drug.name[1:]} ordered",
                                          encounter=ctx.encounterId))
    return cards


def _verify(state: ServiceState, ctx: VerifyContext, data: PatientData, deadline: Deadline) -> list[Card]:
    query = state.engine.parse_query(ctx.query)
    # An encounter-scoped question asked in an encounter is about that encounter.
    index = index_for_question(state.engine, ctx.patientId, data, "cds-hooks:verify", query, ctx.encounterId,
                               deadline)
    question = ctx.query.strip() if isinstance(ctx.query, str) else None
    query, verdict = state.engine.verify_asked(index, query, question, deadline)
    return [verdict_card(verdict, query, state.settings, title=action_note(verdict), topic="verification",
                         patient=ctx.patientId, encounter=ctx.encounterId)]


@router.post("/cds-services/{service_id}", response_model=CdsResponse, response_model_exclude_none=True)
async def call_service(service_id: str, req: HookRequest, state: StateDep, caller: CallerDep) -> CdsResponse:
    service = SERVICES.get(service_id)
    if service is None:
        raise HookError(404, "unknown CDS service", code="not-found")
    if req.hook != service.hook:
        raise HookError(400, f"service {service_id} answers hook {service.hook}", code="invalid",
                        expression=("hook",))
    http = state.http_client()
    workers = state.engine.workers

    def deadline() -> Deadline:
        # Starts once the record is read: reading has its own bounds (MEG_FHIR_TIMEOUT_SECONDS per
        # request, MEG_FHIR_MAX_PAGES), the deadline bounds the verification.
        return Deadline(state.settings.request_deadline_seconds)

    if service_id == PATIENT_VIEW:
        pv = _context(PatientViewContext, req, state.settings.max_json_depth)
        pv_data = await gather(req, service.prefetch, state.settings, http)
        cards = await workers.run(_patient_view, deadline(), state, pv, pv_data)
    elif service_id in (ORDER_SELECT, ORDER_SIGN):
        oc = _context(OrderContext, req, state.settings.max_json_depth)
        if not draft_medications(oc.draftOrders, oc.selections if req.hook == "order-select" else None):
            return CdsResponse(cards=[])  # nothing this service checks: no need to read the record
        order_data = await gather(req, service.prefetch, state.settings, http)
        cards = await workers.run(_orders, deadline(), state, oc, order_data, req.hook)
    elif service_id == VERIFY:
        vc = _context(VerifyContext, req, state.settings.max_json_depth)
        state.engine.parse_query(vc.query)  # a bad query is a 400 before any FHIR traffic
        verify_data = await gather(req, service.prefetch, state.settings, http)
        cards = await workers.run(_verify, deadline(), state, vc, verify_data)
    else:  # pragma: no cover - SERVICES and this dispatch are edited together
        raise HookError(404, "unknown CDS service", code="not-found")
    return CdsResponse(cards=cards)
