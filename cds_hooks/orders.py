"""Order checks: for a draft MedicationRequest, has this drug (or its class) been followed by
an adverse event in this patient's record before?

The draft drug is named by its codes (RxNorm) or by a lexicon drug name found in its text;
its classes come from the lexicon. Outcomes come from the watch list's adverse watches on the
drug's classes, plus the watch list's extra order outcomes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from medeventgraph.cds_hooks.watchlist import Watch, WatchEvent, WatchList
from medeventgraph.core import VerificationQuery

__all__ = ["DraftDrug", "draft_medications", "order_queries"]


@dataclass(frozen=True)
class DraftDrug:
    order_ref: str  # "MedicationRequest/draft-1"
    name: str  # lexicon concept id, or the order's own text when the lexicon does not know it
    classes: tuple[str, ...]
    known: bool


def _concept_text(req: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    cc = req.get("medicationCodeableConcept")
    if not isinstance(cc, dict):
        return "", []
    coding = cc.get("coding")
    codings = [c for c in coding if isinstance(c, dict)] if isinstance(coding, list) else []
    codes = [(c["system"], c["code"]) for c in codings
             if isinstance(c.get("system"), str) and isinstance(c.get("code"), str)]
    texts = [cc.get("text")] + [c.get("display") for c in codings]
    return " ".join(t for t in texts if isinstance(t, str) and t), codes


def _identify(text: str, codes: list[tuple[str, str]]) -> tuple[str, tuple[str, ...], bool]:
    from medeventgraph.core import load_lexicon, normalize_text

    lex = _lexicon(load_lexicon)
    for system, code in codes:
        concept = lex.concept_for_code(system, code)
        if concept is not None and concept.kind == "medication":
            return concept.id, tuple(concept.classes), True
    norm = f" {normalize_text(text)} "
    best = None
    for term, concept_id, kind in lex.all_terms():
        if kind != "medication":
            continue
        t = normalize_text(term)
        if t and re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", norm) and (best is None or len(t) > best[0]):
            best = (len(t), concept_id)
    if best is not None:
        concept = lex.concepts[best[1]]
        return concept.id, tuple(concept.classes), True
    return " ".join(text.split())[:80], (), False


_LEX: list[Any] = []


def _lexicon(loader: Any) -> Any:
    if not _LEX:
        _LEX.append(loader())
    return _LEX[0]


def draft_medications(draft_orders: dict[str, Any], selections: list[str] | None) -> list[DraftDrug]:
    """Draft MedicationRequests (the selected ones, for order-select) as identified drugs."""
    chosen = set(selections or [])
    out = []
    entries = draft_orders.get("entry")
    for entry in entries if isinstance(entries, list) else []:
        res = entry.get("resource") if isinstance(entry, dict) else None
        if not isinstance(res, dict) or res.get("resourceType") != "MedicationRequest":
            continue
        ref = f"MedicationRequest/{res.get('id', '')}"
        if chosen and ref not in chosen:
            continue
        text, codes = _concept_text(res)
        if not text and not codes:
            continue
        name, classes, known = _identify(text, codes)
        if name:
            out.append(DraftDrug(ref, name, classes, known))
    return out


def order_queries(drug: DraftDrug, watchlist: WatchList) -> list[tuple[VerificationQuery, Watch]]:
    """(query, watch it came from) pairs: same drug, then same class, each before an outcome."""
    watches = [w for w in watchlist.watches if w.adverse and w.exposure.kind == "medication"]
    relevant = [w for w in watches if w.exposure.text in drug.classes or w.exposure.text == drug.name]
    checks = watchlist.order_checks
    generic = Watch(id="order-adverse", title="Adverse event after earlier exposure", topic="drug-safety",
                    exposure=WatchEvent(text=drug.name, kind="medication"), outcomes=checks.extra_outcomes
                    or [WatchEvent(text="rash", kind="condition")], within=checks.extra_within)
    same_drug = WatchEvent(text=drug.name, kind="medication")
    out: list[tuple[VerificationQuery, Watch]] = []
    for w in relevant + [generic]:
        for outcome in w.outcomes:
            out.append((w.query(outcome, same_drug, qid=f"{drug.order_ref}:{drug.name}:{outcome.text}"), w))
    for w in relevant:
        if w.exposure.text != drug.name:
            for outcome in w.outcomes:
                out.append((w.query(outcome, qid=f"{drug.order_ref}:{w.exposure.text}:{outcome.text}"), w))
    return out[: checks.max_queries_per_order]
