"""Problems found in input, and their FHIR OperationOutcome rendering.

Diagnostics name the resource (type, id, position) and the rule it broke, never field values
or note text, so they are safe to log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["InputError", "Issue", "operation_outcome"]

Severity = Literal["fatal", "error", "warning", "information"]


@dataclass(frozen=True, slots=True)
class Issue:
    severity: Severity
    code: str  # FHIR issue-type: invalid, structure, required, value, not-found, too-long, ...
    diagnostics: str
    expression: tuple[str, ...] = ()

    def to_fhir(self) -> dict[str, Any]:
        out: dict[str, Any] = {"severity": self.severity, "code": self.code, "diagnostics": self.diagnostics}
        if self.expression:
            out["expression"] = list(self.expression)
        return out


def operation_outcome(issues: list[Issue] | tuple[Issue, ...]) -> dict[str, Any]:
    return {"resourceType": "OperationOutcome", "issue": [i.to_fhir() for i in issues]}


class InputError(ValueError):
    """Input that cannot be used at all (not one bad resource among good ones)."""

    def __init__(self, issue: Issue):
        super().__init__(issue.diagnostics)
        self.issue = issue
