"""The plain-language sentence of a finding (DetectedIssue.detail, report).

The one place to swap in the project's shared wording module once it lands on main.
"""

from __future__ import annotations

from typing import Any

__all__ = ["finding_text"]

_VERB = {
    "supported": "The record documents",
    "conflicting": "The record holds evidence both for and against",
    "refuted": "The record documents the absence of",
    "insufficient": "The record does not show",
}


def finding_text(line: dict[str, Any]) -> str:
    """One sentence from a verdict line: what was checked, the answer, and how many sources."""
    n = len(line.get("citations") or ())
    sources = f"{n} cited source{'s' if n != 1 else ''}"
    title = str(line.get("title") or line.get("item") or "the watched relation")
    return f"{_VERB.get(line['verdict'], 'Checked:')} {title[:1].lower() + title[1:]} ({sources})."
