"""HTTP errors answered as FHIR OperationOutcomes, and the handlers that render them.

Diagnostics name the rule that was broken and where, never request values, so they are safe
to return and to log.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from medeventgraph.model.outcome import Issue, operation_outcome
from starlette.exceptions import HTTPException as StarletteHTTPException

__all__ = ["HookError", "install_error_handlers", "outcome_response"]

log = logging.getLogger("medeventgraph.cds_hooks")

_STATUS_CODE = {400: "invalid", 401: "security", 403: "forbidden", 404: "not-found", 405: "not-supported",
                412: "not-found", 413: "too-long", 415: "not-supported", 500: "exception", 502: "transient",
                503: "timeout"}


class HookError(Exception):
    """Raised anywhere below a route; rendered as `status` with an OperationOutcome body."""

    def __init__(self, status: int, diagnostics: str, *, code: str | None = None,
                 expression: tuple[str, ...] = (), headers: dict[str, str] | None = None):
        super().__init__(diagnostics)
        self.status = status
        self.headers = headers
        self.issue = Issue("error" if status < 500 else "fatal", code or _STATUS_CODE.get(status, "processing"),
                           diagnostics, expression)


def _printable(text: str) -> str:
    # a lone surrogate cannot be sent as UTF-8; shown escaped, the answer still goes out
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def outcome_response(status: int, issues: list[Issue], headers: dict[str, str] | None = None) -> JSONResponse:
    """The OperationOutcome answer; every string is made encodable first, so rendering an error
    can never itself fail (diagnostics name rules, but a path or a key may carry any text)."""
    safe = [Issue(i.severity, i.code, _printable(i.diagnostics), tuple(_printable(e) for e in i.expression))
            for i in issues]
    return JSONResponse(operation_outcome(safe), status_code=status, headers=headers,
                        media_type="application/fhir+json")


def _validation_issues(exc: RequestValidationError) -> list[Issue]:
    issues = []
    for err in exc.errors()[:20]:
        # `loc` and `msg` describe the rule; `input` would echo request values (possibly PHI).
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        issues.append(Issue("error", "invalid", f"{loc or 'body'}: {err.get('msg', 'invalid')}", (loc,) if loc else ()))
    return issues or [Issue("error", "invalid", "request body is not valid")]


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HookError)
    async def _hook_error(request: Request, exc: HookError) -> JSONResponse:
        log.info("%s %s -> %d %s", request.method, request.url.path, exc.status, exc.issue.code)
        headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'} if exc.status == 401 else None
        return outcome_response(exc.status, [exc.issue], {**(headers or {}), **(exc.headers or {})} or None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # The spec's answer to a malformed request is 400, not FastAPI's default 422.
        log.info("%s %s -> 400 invalid body", request.method, request.url.path)
        return outcome_response(400, _validation_issues(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        text = exc.detail if isinstance(exc.detail, str) else "request refused"
        return outcome_response(exc.status_code, [Issue("error", _STATUS_CODE.get(exc.status_code, "processing"), text)])

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Only the exception type is logged: messages can carry resource content.
        log.error("%s %s -> 500 %s", request.method, request.url.path, type(exc).__name__)
        return outcome_response(500, [Issue("fatal", "exception", "internal error; see the service log")])
