"""Dependency aliases for the routers: the service state, settings, and the verified caller."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

import httpx
from fastapi import Depends, Request
from medeventgraph.cds_hooks.auth.tokens import ReplayCache, verify_request
from medeventgraph.cds_hooks.auth.trust import TrustStore
from medeventgraph.cds_hooks.engine import Engine
from medeventgraph.cds_hooks.feedback_log import FeedbackLog
from medeventgraph.cds_hooks.watchlist import WatchList
from medeventgraph.model.settings import Settings

__all__ = ["CallerDep", "OptionalCallerDep", "ServiceState", "SettingsDep", "StateDep"]


@dataclass
class ServiceState:
    """Everything the routes share, built once by create_app from its Settings."""

    settings: Settings
    trust: TrustStore
    replay: ReplayCache
    engine: Engine
    watchlist: WatchList
    feedback: FeedbackLog
    http: httpx.AsyncClient | None = field(default=None)

    def http_client(self) -> httpx.AsyncClient:
        if self.http is None:  # outside the lifespan (e.g. a bare TestClient)
            self.http = httpx.AsyncClient(follow_redirects=False)
        return self.http


def _get_state(request: Request) -> ServiceState:
    return request.app.state.meg


def _get_settings(state: Annotated[ServiceState, Depends(_get_state)]) -> Settings:
    return state.settings


# Sync on purpose: FastAPI runs these in a worker thread, so a JWKS fetch never blocks the loop.
def _verified_caller(request: Request, state: Annotated[ServiceState, Depends(_get_state)]) -> dict[str, Any] | None:
    return verify_request(request, state.settings, state.trust, state.replay, required=True)


def _optional_caller(request: Request, state: Annotated[ServiceState, Depends(_get_state)]) -> dict[str, Any] | None:
    return verify_request(request, state.settings, state.trust, state.replay, required=False)


StateDep = Annotated[ServiceState, Depends(_get_state)]
SettingsDep = Annotated[Settings, Depends(_get_settings)]
CallerDep = Annotated[dict[str, Any] | None, Depends(_verified_caller)]
OptionalCallerDep = Annotated[dict[str, Any] | None, Depends(_optional_caller)]
