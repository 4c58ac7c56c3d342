"""ConText, split in two so the term-independent half is cached with the note.

`ModifierFinder.find(doc)` matches medspaCy's default ConText rules plus ours and settles the
modifiers' scopes against each other (sentence bounds, terminations): this depends only on
the text, and is the expensive part (the token Matcher over ~140 rules), so it is cached.
`assert_targets` then links cached modifiers to a query's targets with medspaCy's own
ConTextGraph — the same algorithm as the `medspacy_context` component, without touching
`doc.ents` or span extensions, so a cached doc carries nothing from one query to the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import medspacy
from medeventgraph.occurrence import Assertion
from medspacy.common.medspacy_matcher import MedspacyMatcher
from medspacy.context import ConTextGraph, ConTextModifier, ConTextRule
from spacy.language import Language
from spacy.tokens import Doc, Span

from .rules import context_rules

__all__ = ["CATEGORY_FLAGS", "ModifierFinder", "ScopedModifier", "assert_targets", "assertion_from_flags"]

CATEGORY_FLAGS = {
    "NEGATED_EXISTENCE": "negated",
    "POSSIBLE_EXISTENCE": "uncertain",
    "HYPOTHETICAL": "hypothetical",
    "HISTORICAL": "historical",
    "FAMILY": "family",
}


@dataclass(frozen=True, slots=True)
class ScopedModifier:
    """A ConText cue at tokens [start, end) whose scope is tokens [scope_start, scope_end)."""

    rule: ConTextRule
    start: int
    end: int
    scope_start: int
    scope_end: int


def _default_rules() -> list[ConTextRule]:
    path = Path(medspacy.__file__).resolve().parents[1] / "resources" / "en" / "context_rules.json"
    rules = ConTextRule.from_json(str(path))
    for rule in rules:
        # medspaCy's ": no" cue looks only backward ("Fever: no"). After a heading it negates
        # what follows ("Assessment: no acute kidney injury"), and as the longer match it
        # displaces the plain "no" cue, so here it looks both ways.
        if rule.literal == ": no":
            rule.direction = "BIDIRECTIONAL"
    return rules


class ModifierFinder:
    """Finds ConText modifiers in a doc (medspaCy default rules + nlp/resources/context_rules.json)."""

    def __init__(self, nlp: Language) -> None:
        self._matcher = MedspacyMatcher(nlp, name="medeventgraph_context", phrase_matcher_attr="LOWER", prune=True)
        rules = [*_default_rules(), *context_rules()]
        self._matcher.add(rules)
        self._by_literal = {r.literal.lower(): r for r in rules}
        self._vocab = nlp.vocab

    def find(self, doc: Doc) -> tuple[ScopedModifier, ...]:
        modifiers = []
        for match_id, start, end in self._matcher(doc):
            rule = self._matcher.rule_map[self._vocab.strings[match_id]]
            sent_start = doc[end - 1].sent.start
            if start < sent_start:
                # A cue across a sentence break (": no" after a heading that ends a sentence)
                # is the cue of its last sentence only, if that part is a cue on its own.
                rule = self._by_literal.get(doc[sent_start:end].text.lower())
                if rule is None:
                    continue
                start = sent_start
            modifiers.append(ConTextModifier(rule, start, end, doc))
        graph = ConTextGraph(modifiers=modifiers)
        graph.update_scopes()
        return tuple(
            ScopedModifier(m.rule, m.modifier_span[0], m.modifier_span[1], *m.scope_span) for m in modifiers
        )


def assert_targets(doc: Doc, modifiers: Sequence[ScopedModifier], targets: Sequence[Span]) -> list[frozenset[str]]:
    """ConText flags for each target, in order (PSEUDO and TERMINATE cues flag nothing)."""
    if not targets or not modifiers:
        return [frozenset() for _ in targets]
    live = [ConTextModifier(m.rule, m.start, m.end, doc, scope_start=m.scope_start, scope_end=m.scope_end)
            for m in modifiers]
    graph = ConTextGraph(targets=list(targets), modifiers=live)
    graph.apply_modifiers()
    by_span: dict[tuple[int, int], set[str]] = {}
    for target, modifier in graph.edges:
        flag = CATEGORY_FLAGS.get(modifier.category.upper())
        if flag is not None and modifier.direction.upper() not in ("PSEUDO", "TERMINATE"):
            by_span.setdefault((target.start, target.end), set()).add(flag)
    return [frozenset(by_span.get((t.start, t.end), ())) for t in targets]


def assertion_from_flags(flags: Iterable[str]) -> Assertion:
    present = set(flags)
    return Assertion(
        negated="negated" in present,
        uncertain="uncertain" in present,
        hypothetical="hypothetical" in present,
        historical="historical" in present,
        family="family" in present,
    )
