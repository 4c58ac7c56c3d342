"""Verdicts as CDS Hooks cards: short summary, indicator from the verdict, evidence in detail.

Every evidence line names the FHIR resource it came from (and the character span for a note
sentence) so the clinician can open the source; nothing in a card is free of a citation.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from medeventgraph.core.verdict import reading_order
from medeventgraph.settings import Settings

from .models import Card, Coding, Link, Source

if TYPE_CHECKING:
    from medeventgraph.core.query import VerificationQuery
    from medeventgraph.core.verdict import EvidenceOut, Verdict

__all__ = ["OVERRIDE_REASONS", "TOPIC_SYSTEM", "describe_query", "verdict_card", "wants_card"]

TOPIC_SYSTEM = "https://medeventgraph.org/fhir/CodeSystem/cds-topic"
OVERRIDE_SYSTEM = "https://medeventgraph.org/fhir/CodeSystem/override-reason"
OVERRIDE_REASONS = [
    Coding(system=OVERRIDE_SYSTEM, code="evidence-incorrect", display="The cited evidence is wrong"),
    Coding(system=OVERRIDE_SYSTEM, code="not-clinically-relevant", display="Not clinically relevant now"),
    Coding(system=OVERRIDE_SYSTEM, code="already-addressed", display="Already addressed"),
]
_MAX_SUMMARY = 139  # the spec: fewer than 140 characters
_MAX_EVIDENCE_LINES = 20
_LABEL_WORD = {"supported": "Documented", "conflicting": "Conflicting evidence", "refuted": "Not documented",
               "insufficient": "Cannot tell"}


def wants_card(label: str, settings: Settings) -> bool:
    """Supported and conflicting always make cards; refuted and insufficient when configured."""
    if label in ("supported", "conflicting"):
        return True
    return settings.cards_for_refuted if label == "refuted" else settings.cards_for_insufficient


def indicator(label: str, adverse: bool) -> str:
    # A documented adverse relation, or evidence on both sides, needs the clinician's eye.
    if label == "conflicting" or (label == "supported" and adverse):
        return "warning"
    return "info"


def describe_query(query: VerificationQuery) -> str:
    parts = []
    for rel in query.relations:
        a, b = query.event(rel.source), query.event(rel.target)
        within = f" within {rel.within}" if rel.within else ""
        parts.append(f"{a.text or a.kind} {rel.type.value} {b.text or b.kind}{within}")
    return "; ".join(parts) + f" (scope: {query.scope.value})"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _md(text: str) -> str:
    # Evidence text comes from the record: keep it on one line and inert as markdown.
    return " ".join(text.split()).replace("`", "'").replace("*", "\\*").replace("_", "\\_")


def evidence_line(item: EvidenceOut) -> str:
    ref = f"`{item.source.reference}`"
    if item.source.start is not None and item.source.end is not None:
        ref += f" chars {item.source.start}–{item.source.end}"
    when = item.time.start or (f"documented {item.documented.start}" if item.documented and item.documented.start
                               else "time unknown")
    if item.time.granularity and item.time.granularity not in ("second", "unknown"):
        when += f" ({item.time.granularity})"
    head = f"- {ref} — {when} — {item.kind}: {_md(item.concept)}"
    if item.polarity and item.polarity != "neutral":
        head += f" [{item.polarity}]"
    if item.origin == "note" or item.source.start is not None:
        return head + f"\n  > {_clip(_md(item.context), 400)}"
    return head + (f" — {_clip(_md(item.context), 200)}" if item.context else "")


def verdict_card(verdict: Verdict, query: VerificationQuery, settings: Settings, *, title: str | None = None,
                 topic: str = "verification", adverse: bool = False, patient: str | None = None) -> Card:
    label = verdict.verdict.value
    what = title or describe_query(query)
    summary = _clip(f"{_LABEL_WORD.get(label, label)}: {what}", _MAX_SUMMARY)
    lines = [f"**Verdict: {label}** (S+ {verdict.s_plus:.2f}, S− {verdict.s_minus:.2f})", "",
             f"Checked: {_md(describe_query(query))}"]
    if verdict.failure is not None:
        lines.append(f"Reason: {verdict.failure.value.replace('_', ' ')}")
    for rel in verdict.relations:
        if rel.explanation:
            lines.append(f"Timing: {_md(rel.explanation)}")
    if verdict.evidence:
        lines += ["", "Evidence:"]
        lines += [evidence_line(e) for e in sorted(verdict.evidence, key=reading_order)[:_MAX_EVIDENCE_LINES]]
        if len(verdict.evidence) > _MAX_EVIDENCE_LINES:
            lines.append(f"- … and {len(verdict.evidence) - _MAX_EVIDENCE_LINES} more")
    else:
        lines += ["", "No admissible evidence was found in the record."]
    links = None
    if settings.smart_app_url:
        app_context = json.dumps({"patient": patient, "query": query.dump(), "verdict": verdict.id},
                                 separators=(",", ":"))
        links = [Link(label="Open the evidence in MedEventGraph", url=settings.smart_app_url, type="smart",
                      appContext=app_context)]
    return Card(
        uuid=str(uuid.uuid4()),
        summary=summary,
        detail="\n".join(lines),
        indicator=indicator(label, adverse),  # type: ignore[arg-type]
        source=Source(label="MedEventGraph", topic=Coding(system=TOPIC_SYSTEM, code=topic, display=topic)),
        overrideReasons=OVERRIDE_REASONS,
        links=links,
    )
