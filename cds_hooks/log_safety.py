"""What the service logs, kept free of patient data.

- httpx / httpcore log every request URL at INFO; outgoing FHIR URLs carry patient ids
  (`GET …/Patient/<id>`), so those loggers are held at WARNING.
- An unexpected exception is answered with a 500 OperationOutcome carrying an error id, and the
  log gets that id and the exception type only: no traceback, whose frames and messages can
  quote request values. Caught here, inside the app, so uvicorn never prints its own traceback.
"""

from __future__ import annotations

import logging
import uuid

from medeventgraph.cds_hooks.errors import outcome_response
from medeventgraph.model.outcome import Issue
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["QUIET_LOGGERS", "ErrorIdMiddleware", "configure_service_logging"]

log = logging.getLogger("medeventgraph.errors")

QUIET_LOGGERS = ("httpx", "httpcore", "hpack", "urllib3")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_service_logging(level: int = logging.INFO) -> None:
    """Logging for `medeventgraph serve`: our loggers at `level`, HTTP client loggers at WARNING."""
    logging.basicConfig(level=level, format=_FORMAT)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


class ErrorIdMiddleware:
    """Outermost inside the app: turns an exception escaping every handler into a logged id."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        except Exception as exc:  # noqa: BLE001 (the point: nothing unexpected escapes with its traceback)
            error_id = uuid.uuid4().hex[:12]
            log.error("internal error %s: %s (%s)", error_id, type(exc).__name__, scope.get("method", "?"))
            if started:
                return  # the response is under way; the server closes the connection
            issue = Issue("fatal", "exception", f"internal error {error_id}; see the service log")
            await outcome_response(500, [issue])(scope, receive, send)
