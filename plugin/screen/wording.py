"""The plain-language finding of a screening line (DetectedIssue.detail, the report).

The one place screening meets the project's wording (medeventgraph.wording.summary), so cards,
the SMART page and written-back findings say the same thing.
"""

from __future__ import annotations

from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Verdict
from medeventgraph.wording.summary import finding_text

__all__ = ["finding_words"]


def finding_words(verdict: Verdict, query: VerificationQuery) -> dict[str, str]:
    """{"summary": under 140 characters, "detail": summary and the checked sentence}."""
    finding = finding_text(verdict, query)
    return {"summary": finding.summary, "detail": f"{finding.summary}. {finding.checked}"}
