"""create_app(settings) and run(host, port, settings): the CDS Hooks service."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from medeventgraph.cds_hooks.auth.replay import ReplayCache
from medeventgraph.cds_hooks.auth.trust import load_trust_store
from medeventgraph.cds_hooks.body_limit import BodyLimitMiddleware
from medeventgraph.cds_hooks.deps import ServiceState
from medeventgraph.cds_hooks.engine import Engine
from medeventgraph.cds_hooks.errors import install_error_handlers
from medeventgraph.cds_hooks.feedback_log import FeedbackLog
from medeventgraph.cds_hooks.log_safety import ErrorIdMiddleware, configure_service_logging
from medeventgraph.cds_hooks.routes import discovery as routes_discovery
from medeventgraph.cds_hooks.routes import feedback as routes_feedback
from medeventgraph.cds_hooks.routes import hooks as routes_hooks
from medeventgraph.cds_hooks.watchlist import load_watchlist
from medeventgraph.model.settings import Settings
from medeventgraph.model.version import __version__

__all__ = ["create_app", "run"]

log = logging.getLogger("medeventgraph.cds_hooks")

# A cold record allocates a few hundred thousand small objects (tokens, mentions, graph edges) on a
# heap the models already made large; at Python's default young-generation threshold (700) the
# collector then took about a quarter of a cold hook call, where torch is not installed (with the
# dense extra, thinc imports torch, whose objects make full passes rare and this changes little;
# make bench measures the two, alternating, in benchmarks/bench_hook.py, docs/performance.md).
# A serving process (warm=True) raises it for its lifetime and restores it on shutdown.
SERVING_GC_YOUNG_THRESHOLD = 10_000


def create_app(settings: Settings, *, warm: bool = False) -> FastAPI:
    """The ASGI app for `settings`; nothing is read from the environment here. `warm`: import the
    core and build the note pipeline during start-up (`run` does), so the service accepts requests
    once its first one costs no more than any cold one; without it (tests, embedding) discovery
    answers at once and the first hook request pays that set-up."""
    state = ServiceState(
        settings=settings,
        trust=load_trust_store(settings.trusted_issuers_file, timeout=settings.fhir_timeout_seconds),
        replay=ReplayCache(settings.jwt_replay_cache_size, leeway=settings.jwt_leeway_seconds),
        engine=Engine(settings),
        watchlist=load_watchlist(settings.watchlist_path),
        feedback=FeedbackLog(settings.feedback_log),
    )
    if not settings.jwt_required:
        log.warning("!" * 72)
        log.warning("JWT CHECKS ARE OFF (jwt_required=false): any caller may read patient data through "
                    "this service. Use only for local development.")
        log.warning("!" * 72)
    if settings.feedback_log is None:
        log.info("feedback_log is not set: card feedback is accepted but not stored")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        before = gc.get_threshold()
        if warm:
            await asyncio.to_thread(state.engine.warm)  # off the event loop; before the first request
            gc.set_threshold(SERVING_GC_YOUNG_THRESHOLD, *before[1:])
        try:
            async with httpx.AsyncClient(follow_redirects=False) as http:
                state.http = http
                yield
                state.http = None
        finally:
            gc.set_threshold(*before)
        state.engine.close()

    app = FastAPI(title="MedEventGraph CDS Hooks service", version=__version__, lifespan=lifespan,
                  description="CDS Hooks 2.0 services that verify clinical event relations in the "
                              "patient's FHIR record and cite the evidence.")
    app.state.meg = state
    # Inside CORS (so a browser can read the 413), outside everything that reads a body.
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_request_bytes)
    # Outside the routes and the body limit, inside CORS: any exception becomes a logged error id.
    app.add_middleware(ErrorIdMiddleware)
    # Browsers (e.g. the CDS Hooks sandbox) call cross-origin; preflights never need a JWT.
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_credentials="*" not in settings.cors_origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type"],
        max_age=600,
    )
    install_error_handlers(app)
    for module in (routes_discovery, routes_hooks, routes_feedback):
        app.include_router(module.router)
    return app


def run(host: str, port: int, settings: Settings) -> None:
    import uvicorn

    configure_service_logging()  # httpx/httpcore at WARNING: their INFO lines carry FHIR URLs
    # access_log off: request lines can carry patient ids in query strings
    uvicorn.run(create_app(settings, warm=True), host=host, port=port, access_log=False, log_level="info")
