"""Concept grounding: which occurrences can stand for a query event, and why.

Order of evidence for a match: codes (system + code), then the normalised event text
against codings' displays and text, then lexicon synonyms (and drug-class members).
A match is a nomination for the contract to check, never a verdict: each carries the
`BindingBasis` (core.binding) the contract re-checks from the item and the query alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from medeventgraph.core.evidence.binding import (
    EXCLUDED_STATUS,
    NOT_AFTER_NON,
    BasisKind,
    BindingBasis,
    allowed_kinds,
    derived_finding_basis,
    kind_allows,
    phrase_basis,
)
from medeventgraph.core.query.actions import action_admits, counts_against
from medeventgraph.core.query.lexicon import ExpandedTerm, Lexicon, display_text, normalize_text
from medeventgraph.core.query.model import EventSpec
from medeventgraph.core.query.value_query import parse_value_query, value_matches
from medeventgraph.model.occurrence import Kind, Occurrence

__all__ = ["Grounding", "Match", "ground_event", "kind_allows", "term_pattern"]

_HISTORY_PREFIX = re.compile(r"\b(history of|past history of|h/o|hx of)\s+$")
_HISTORY_ANY = re.compile(r"\b(history of|h/o|hx of)\b")


def term_pattern(terms: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(t) for t in sorted(set(terms), key=lambda t: (-len(t), t)) if t)
    return re.compile(rf"{NOT_AFTER_NON}{'(?:' + alternatives + ')' if alternatives else '(?!)'}(?![\w])")


@dataclass(frozen=True, slots=True)
class Match:
    occurrence: str
    reason: str  # "code", "text", "synonym", "class", "note", "kind", "derived-finding", "value", "phrase"
    detail: str  # the code or the surface term that matched
    historical_display: bool = False  # e.g. "History of myocardial infarction (situation)"
    basis: BindingBasis | None = None  # why it binds, for the contract to re-check


@dataclass(frozen=True)
class Grounding:
    event: str
    expanded: ExpandedTerm | None
    matches: tuple[Match, ...]

    @property
    def occurrence_ids(self) -> tuple[str, ...]:
        return tuple(m.occurrence for m in self.matches)


def ground_event(
    event: EventSpec,
    occurrences: Iterable[Occurrence],
    lexicon: Lexicon,
    displays: dict[str, str] | None = None,
) -> Grounding:
    """Match one query event against occurrences. `displays` caches `display_text` by id."""
    expanded = lexicon.expand(event.text, event.kind) if event.text else None
    query_codes = {(c.system, c.code) for c in event.codes}
    lexicon_codes = set(expanded.codes) if expanded else set()
    pattern = term_pattern(expanded.terms) if expanded else None
    literal = normalize_text(event.text) if event.text else None
    matches: list[Match] = []
    allowed = allowed_kinds(event.kind)  # kind_allows, hoisted
    codes = query_codes | lexicon_codes
    texts: dict[str, tuple[str, bool] | None] = {}  # display text -> (term, historical) or no match
    action = event.effective_action
    # A condition the rules compute from values ("hyperkalemia": K > 5.5) is also grounded by
    # the derived findings whose rule indicates it (core.binding, basis derived-finding) - as a
    # stand-in: where the record names the condition itself (a Condition, a note mention), that
    # decides, and the card cites the words that name it.
    indicated = (expanded.concepts if expanded is not None and event.kind in (None, "condition")
                 and not event.hidden else ())
    findings: list[Match] = []
    recorded = False  # a condition record or mention grounds the event
    # "creatinine 3.2": only an item of that analyte with that value stands for the event, never
    # the words alone (core.value_query); the basis says which value and what the query left out.
    stated = (parse_value_query(event.text, lexicon) if event.text and not event.hidden
              and event.kind in (None, "lab", "vital") else None)
    for occ in occurrences:
        if indicated and occ.kind is Kind.DERIVED:
            found = derived_finding_basis(event, indicated, occ.kind, _codes(occ), occ.value, occ.derived_from)
            if found is not None and occ.status not in EXCLUDED_STATUS:
                findings.append(Match(occ.id, "derived-finding", found.detail, basis=found))
                continue
        if occ.kind not in allowed or not action_admits(action, occ.action, occ.kind, occ.issued is not None):
            continue
        if occ.status in EXCLUDED_STATUS and not counts_against(action, occ.status):
            continue
        if stated is not None:
            if stated.codes.intersection(_codes(occ)) and value_matches(stated, occ.value):
                matches.append(Match(occ.id, "value", stated.detail,
                                     basis=BindingBasis(event.id, BasisKind.VALUE, stated.detail)))
            continue
        if event.hidden:
            matches.append(Match(occ.id, "kind", event.kind or "", basis=BindingBasis(event.id, BasisKind.KIND,
                                                                                      event.kind or "")))
            continue
        if literal is not None and occ.extra_value("phrase_term") == literal:
            # the note tells the event in its own order and forms (nlp/phrases.py): only the
            # phrase basis, which the contract re-reads from the note's words, binds it
            basis = phrase_basis(event.id, occ.extra_value("phrase_pieces") or "", occ.extra_value("phrase_without"),
                                 occ.extra_value("phrase_named"))
            matches.append(Match(occ.id, "phrase", basis.detail, basis=basis))
            recorded = recorded or occ.kind is Kind.CONDITION
            continue
        match = _match_one(occ, codes, pattern, literal, expanded, displays, texts)
        if match is not None:
            matches.append(replace(match, basis=_basis(event.id, match, query_codes, expanded, lexicon)))
            recorded = recorded or occ.kind is Kind.CONDITION
    if not recorded:
        matches.extend(findings)
    if literal and _HISTORY_ANY.search(literal):
        # The question is about the history itself ("past pregnancy history of miscarriage"):
        # a "History of ..." display is then exactly what was asked for, not a past event.
        matches = [replace(m, historical_display=False) for m in matches]
    return Grounding(event.id, expanded, tuple(matches))


def _codes(occ: Occurrence) -> tuple[str, ...]:
    return tuple(f"{c.system or ''}|{c.code}" for c in occ.concept.codings if c.code)


def _match_one(
    occ: Occurrence,
    codes: set[tuple[str, str]],
    pattern: re.Pattern[str] | None,
    literal: str | None,
    expanded: ExpandedTerm | None,
    displays: dict[str, str] | None,
    texts: dict[str, tuple[str, bool] | None],
) -> Match | None:
    for coding in occ.concept.codings:
        key = (coding.system or "", coding.code or "")
        if key in codes:
            return Match(occ.id, "code", f"{key[0]}|{key[1]}")
    if pattern is None:
        return None
    text = displays.get(occ.id) if displays is not None else None
    if text is None:
        text = display_text(occ)
    # Records repeat a few hundred display texts thousands of times: search each text once.
    if text in texts:
        hit = texts[text]
    else:
        found = pattern.search(text)
        hit = texts[text] = (
            None if found is None else (found.group(0), bool(_HISTORY_PREFIX.search(text[: found.start()])))
        )
    if hit is None:
        return None
    term, historical = hit
    reason = "text" if term == literal else ("class" if expanded and expanded.via == "class" else "synonym")
    return Match(occ.id, reason, term, historical)


def _basis(
    event: str, match: Match, query_codes: set[tuple[str, str]], expanded: ExpandedTerm | None, lexicon: Lexicon
) -> BindingBasis:
    """Name the evidence a match rests on: the query's code, the lexicon entry, or its text."""
    if match.reason == "code":
        system, code = match.detail.split("|", 1)
        if (system, code) in query_codes:
            return BindingBasis(event, BasisKind.CODE, match.detail)
        entry = next(c for c in (expanded.concepts if expanded else ())
                     if any((k.system, k.code) == (system, code) for k in lexicon.concepts[c].codes))
        return BindingBasis(event, BasisKind.LEXICON, entry)
    if match.reason == "text":
        return BindingBasis(event, BasisKind.TEXT, match.detail)
    concepts = expanded.concepts if expanded else ()
    entry = next((c for c in concepts
                  if any(normalize_text(s) == match.detail for s in lexicon.concepts[c].synonyms)), None)
    return BindingBasis(event, BasisKind.LEXICON, entry if entry is not None else f"class:{match.detail}")
