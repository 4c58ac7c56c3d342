"""Findings the project computed from recorded values (core.index.derive), in words that say so.

A KDIGO creatinine rise bound to "acute kidney injury" is not AKI that someone documented: every
surface names it as what it is ("creatinine rise meeting KDIGO criteria") and never says
"documented" of it. The names live in wording.json (`computed_names`, keyed by derive rule id).
"""

from __future__ import annotations

from medeventgraph.core import EvidenceOut
from medeventgraph.wording.templates import Wording

__all__ = ["computed_name", "computed_value", "is_computed", "rule_id"]

# The coding system core.index.derive gives a derived occurrence; its code is the rule id.
_DERIVE_SYSTEM = "urn:medeventgraph:derive|"


def is_computed(item: EvidenceOut | None) -> bool:
    return item is not None and item.origin == "derived"


def rule_id(item: EvidenceOut) -> str | None:
    return next((c.removeprefix(_DERIVE_SYSTEM) for c in item.codes if c.startswith(_DERIVE_SYSTEM)), None)


def computed_name(item: EvidenceOut, w: Wording) -> str:
    """"creatinine rise meeting KDIGO criteria"; a rule without its own words gets the default
    template around the rule's display ("elevated lactate, computed from results")."""
    rule = rule_id(item)
    if rule is not None and rule in w.computed_names:
        return w.computed_names[rule]
    display = " ".join(item.concept.split()) or "finding"
    return w.computed_default.format(finding=display[:1].lower() + display[1:])


def computed_value(item: EvidenceOut) -> str:
    """The values a computed finding rests on, from the rule's own detail ("0.9 -> 2.1 mg/dL: +1.20
    mg/dL within 48 h" reads "0.9 → 2.1 mg/dL (+1.20 mg/dL within 48 h)"); "" when it has none."""
    text = str((item.value or {}).get("text") or "").strip()
    if not text:
        return ""
    values, _, why = text.partition(": ")
    values = values.replace(" -> ", " → ")
    return f"{values} ({why})" if why else values
