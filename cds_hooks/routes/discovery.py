"""GET /cds-services: the discovery document."""

from __future__ import annotations

from fastapi import APIRouter
from medeventgraph.cds_hooks.deps import OptionalCallerDep
from medeventgraph.cds_hooks.models import Discovery
from medeventgraph.cds_hooks.services import SERVICES

router = APIRouter(tags=["discovery"])


@router.get("/cds-services", response_model=Discovery, response_model_exclude_none=True)
def discovery(caller: OptionalCallerDep) -> Discovery:
    # Discovery holds no patient data and clients probe it before any trust is set up, so a token
    # is verified when sent (a bad one is still refused) but not required.
    return Discovery(services=list(SERVICES.values()))
