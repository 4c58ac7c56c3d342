"""One line of a `verify --queries` batch: validated on its own, answered with a verdict or an error.

Whatever a line holds, it yields exactly one output row, so one bad line can never end the
batch or cost another line its verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from medeventgraph.model.outcome import InputError, Issue, operation_outcome
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

__all__ = ["answer_line", "json_line"]


class _BatchLine(BaseModel):
    """A query object (its own fields, validated as a VerificationQuery) or {"id", "question"},
    either optionally with "patient"."""

    model_config = ConfigDict(extra="allow")
    id: StrictStr | StrictInt | None = None
    patient: str | None = Field(default=None, pattern=r"^(Patient/)?[A-Za-z0-9\-.]{1,64}$")
    question: str | None = Field(default=None, min_length=1, max_length=1000)

    def query_fields(self) -> dict[str, Any]:
        fields = dict(self.model_extra or {})
        if self.id is not None:
            fields["id"] = str(self.id)
        return fields


def json_line(raw_line: bytes | str, where: str) -> dict[str, Any]:
    """One JSONL line's object; an InputError naming `where` ("line 7") when the line is empty,
    not JSON, or JSON but not an object. Shared by every JSONL input (batches, `notes --in`)."""
    if not raw_line.strip():
        raise InputError(Issue("error", "structure", f"{where}: empty line"))
    try:
        raw = orjson.loads(raw_line)
    except orjson.JSONDecodeError:
        raise InputError(Issue("error", "structure", f"{where}: malformed JSON")) from None
    if not isinstance(raw, dict):
        raise InputError(Issue("error", "structure", f"{where}: expected a JSON object"))
    return raw


def _first_error(exc: ValidationError, n: int) -> Issue:
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ()))
    return Issue("error", "invalid", f"line {n}: {loc + ': ' if loc else ''}{first.get('msg', 'invalid')}")


def _line_id(raw: Any, n: int) -> Any:
    qid = raw.get("id") if isinstance(raw, dict) else None
    return qid if isinstance(qid, (str, int)) and not isinstance(qid, bool) else f"line-{n}"


def answer_line(raw_line: bytes, n: int, verify: Callable[[Any, str | None, str | None], dict[str, Any]],
                parse_query: Callable[[Any], Any]) -> dict[str, Any]:
    """The output row for input line `n`: `verify(query, patient, question)`'s verdict, or
    {"id", "error"}. A question line is parsed here, before its patient's record is read (so a
    bad one costs no index); `question` goes along for `verify` to read against the record."""
    raw: Any = None
    try:
        raw = json_line(raw_line, f"line {n}")
        line = _BatchLine.model_validate(raw)
        if line.question is not None:
            if line.model_extra:
                raise InputError(Issue("error", "invalid", f"line {n}: a question line holds only id, "
                                                            "question and patient"))
            query = parse_query(line.question)
            query = query.model_copy(update={"id": str(line.id) if line.id is not None else f"line-{n}"})
        else:
            query = parse_query(line.query_fields())
        return verify(query, line.patient, line.question)
    except InputError as exc:
        issue = exc.issue
        if not issue.diagnostics.startswith("line "):
            issue = Issue(issue.severity, issue.code, f"line {n}: {issue.diagnostics}", issue.expression)
    except ValidationError as exc:
        issue = _first_error(exc, n)
    except ValueError as exc:  # a question the parser does not understand, among others
        issue = Issue("error", "invalid", f"line {n}: {type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - one line must never end the batch
        issue = Issue("error", "exception", f"line {n}: could not be verified ({type(exc).__name__})")
    return {"id": _line_id(raw, n), "error": operation_outcome([issue])}
