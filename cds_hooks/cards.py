"""Verdicts as CDS Hooks cards, in the words of medeventgraph.wording.summary: a summary a clinician
reads in five seconds, a detail that says what was checked and shows the deciding entries
(each with its FHIR reference), and the codes and scores only in the audit line at the end.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from medeventgraph.cds_hooks.models import Card, Coding, Link, Source
from medeventgraph.model.settings import Settings
from medeventgraph.wording.summary import finding_text

if TYPE_CHECKING:
    from medeventgraph.core import Verdict, VerificationQuery

__all__ = ["OVERRIDE_REASONS", "TOPIC_SYSTEM", "action_note", "app_context", "verdict_card", "wants_card"]

TOPIC_SYSTEM = "https://medeventgraph.org/fhir/CodeSystem/cds-topic"
OVERRIDE_SYSTEM = "https://medeventgraph.org/fhir/CodeSystem/override-reason"
OVERRIDE_REASONS = [
    Coding(system=OVERRIDE_SYSTEM, code="evidence-incorrect", display="The cited evidence is wrong"),
    Coding(system=OVERRIDE_SYSTEM, code="not-clinically-relevant", display="Not clinically relevant now"),
    Coding(system=OVERRIDE_SYSTEM, code="already-addressed", display="Already addressed"),
]


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


def action_note(verdict: Verdict) -> str | None:
    """How the record decided what a question's words asked for ("started on": a dose given, or
    any medication record), as one line for the card: the clinician sees what was checked."""
    grounding = verdict.search.get("grounding")
    actions = grounding.get("actions") if isinstance(grounding, dict) else None
    if not isinstance(actions, dict) or not actions:
        return None
    text = "; ".join(dict.fromkeys(str(v) for v in actions.values()))
    return text[:1].upper() + text[1:]


def app_context(query: VerificationQuery, verdict: Verdict, patient: str | None, encounter: str | None) -> str:
    """What the card's SMART link hands the page: the question, so it opens already answered."""
    body = {"patient": patient, "encounter": encounter, "query": query.dump(), "verdict": verdict.id}
    return json.dumps({k: v for k, v in body.items() if v is not None}, separators=(",", ":"))


def verdict_card(verdict: Verdict, query: VerificationQuery, settings: Settings, *, title: str | None = None,
                 topic: str = "verification", adverse: bool = False, patient: str | None = None,
                 lead: str | None = None, encounter: str | None = None) -> Card:
    """The card: the plain-language finding (summary, detail, audit line last) and a SMART link."""
    finding = finding_text(verdict, query, lead=lead, note=title)
    links = None
    if settings.smart_app_url:
        links = [Link(label="Open the evidence timeline in MedEventGraph", url=settings.smart_app_url, type="smart",
                      appContext=app_context(query, verdict, patient, encounter))]
    return Card(
        uuid=str(uuid.uuid4()),
        summary=finding.summary,
        detail=finding.detail_markdown,
        indicator=indicator(verdict.verdict.value, adverse),  # type: ignore[arg-type]
        source=Source(label="MedEventGraph", topic=Coding(system=TOPIC_SYSTEM, code=topic, display=topic)),
        overrideReasons=OVERRIDE_REASONS,
        links=links,
    )
