"""The plain-language finding of a screening line (DetectedIssue.detail, the report).

The one place screening meets the project's wording (medeventgraph.wording.summary), so cards,
the SMART page and written-back findings say the same thing. The line's `evidence` stays the
machine record (references, ISO times); `finding` is what people read, rows included.
"""

from __future__ import annotations

from typing import Any

from medeventgraph.core import Verdict, VerificationQuery
from medeventgraph.wording.evidence import EvidenceLine
from medeventgraph.wording.summary import finding_text

__all__ = ["finding_words"]


def _evidence_row(ln: EvidenceLine) -> dict[str, Any]:
    """One deciding entry as the report shows it: the human date, what kind of entry, the
    source's words with the deciding mention kept apart (to mark it), and the FHIR reference."""
    return {"polarity": ln.polarity, "when": ln.when, "label": ln.label, "before": ln.before,
            "mention": ln.mention, "after": ln.after, "qualifiers": list(ln.qualifiers),
            "source": ln.reference + (f" {ln.span}" if ln.span else "")}


def finding_words(verdict: Verdict, query: VerificationQuery) -> dict[str, Any]:
    """{"summary": under 140 characters, "detail": summary and the checked sentence, "evidence":
    the deciding entries newest first, "more": how many others, "audit": codes and scores}."""
    finding = finding_text(verdict, query)
    return {"summary": finding.summary, "detail": f"{finding.summary}. {finding.checked}",
            "evidence": [_evidence_row(ln) for ln in finding.evidence], "more": finding.more,
            "audit": finding.audit_line}
