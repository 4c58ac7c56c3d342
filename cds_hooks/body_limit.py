"""A request-body size limit enforced while the body is read, before any route (and so before
the JWT check) sees it.

A declared `Content-Length` over the limit is answered 413 at once, without reading a byte of
the body; a chunked body (no length) is counted as it arrives and refused the moment it passes
the limit. Either way the service never holds more than the limit of one request in memory.
"""

from __future__ import annotations

from medeventgraph.outcome import Issue
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import outcome_response

__all__ = ["BodyLimitMiddleware", "RequestTooLarge"]


class RequestTooLarge(HTTPException):
    """Raised from `receive`; FastAPI passes HTTPExceptions from body reading to the handlers,
    which answer it as an OperationOutcome."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than {limit} bytes (setting max_request_bytes)")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise RequestTooLarge(self.max_bytes)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except RequestTooLarge:
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        # "Connection: close": the unread rest of the body must not be parsed as a next request.
        issue = Issue("error", "too-long", RequestTooLarge(self.max_bytes).detail)
        response = outcome_response(413, [issue], {"Connection": "close"})
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects a malformed length before we are called
    return None
