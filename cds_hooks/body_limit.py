"""A request-body size limit enforced while the body is read, before any route (and so before
the JWT check) sees it.

A declared `Content-Length` over the limit is answered 413 at once, without buffering a byte of
the body; a chunked body (no length) is counted as it arrives and refused the moment it passes
the limit. Either way the service never holds more than the limit of one request in memory.

The 413 carries `Connection: close` and the connection is closed after it. Closing a socket
whose peer is still sending makes the kernel answer the unread bytes with a reset, which can
destroy the 413 in the client's buffer before it is read (a client such as httpx writes the
whole body before it reads). So the refusal is a lingering close (RFC 9112 §9.6): the answer is
written first, then the rest of the body is read and discarded — bounded in bytes and seconds —
and only then is the response finished and the connection closed.
"""

from __future__ import annotations

import asyncio

from medeventgraph.cds_hooks.errors import outcome_response
from medeventgraph.model.outcome import Issue
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimitMiddleware"]

DRAIN_FACTOR = 4  # read and discard at most this many limits' worth of an over-limit body ...
DRAIN_SECONDS = 10.0  # ... for at most this long, then close regardless


class _RequestTooLarge(HTTPException):
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
            await self._refuse(receive, send)
            return
        seen = 0
        refused = started = False

        async def limited_receive() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    refused = True
                    raise _RequestTooLarge(self.max_bytes)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused and not started:
                return  # whatever the app makes of the exception, this middleware answers it
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _RequestTooLarge:
            if started:
                raise
        if refused and not started:
            await self._refuse(receive, send)

    async def _refuse(self, receive: Receive, send: Send) -> None:
        issue = Issue("error", "too-long", _RequestTooLarge(self.max_bytes).detail)
        response = outcome_response(413, [issue], {"Connection": "close"})
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": response.raw_headers})
        await send({"type": "http.response.body", "body": response.body, "more_body": True})
        await _drain(receive, DRAIN_FACTOR * self.max_bytes, DRAIN_SECONDS)
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _drain(receive: Receive, max_bytes: int, seconds: float) -> None:
    """Reads and drops the rest of the request body until it ends, the client goes away, or a
    bound is reached (a client that keeps sending past it gets the reset it asked for)."""
    discarded = 0
    try:
        async with asyncio.timeout(seconds):
            while discarded <= max_bytes:
                message = await receive()
                if message["type"] != "http.request":
                    return  # http.disconnect
                discarded += len(message.get("body", b""))
                if not message.get("more_body", False):
                    return
    except TimeoutError:
        return


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects a malformed length before we are called
    return None
