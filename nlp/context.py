"""ConText, split in two so the term-independent half is cached with the note.

`ModifierFinder.find(doc)` matches medspaCy's default ConText rules plus ours and settles the
modifiers' scopes against each other (sentence bounds, terminations): this depends only on
the text, and is the expensive part (~150 rules; see cues.py for how they match in one pass), so it
is cached.
`assert_targets` then links cached modifiers to a query's targets with medspaCy's own
ConTextGraph — the same algorithm as the `medspacy_context` component, without touching
`doc.ents` or span extensions, so a cached doc carries nothing from one query to the next.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

import medspacy
import numpy as np
from medeventgraph.model.occurrence import Assertion
from medspacy.common.util import prune_overlapping_matches
from medspacy.context import ConTextGraph, ConTextModifier, ConTextRule
from spacy.attrs import IDX, IS_SPACE, LENGTH, SENT_START, SPACY
from spacy.language import Language
from spacy.tokens import Doc, Span

from .cues import CueMatcher
from .doc_text import doc_text
from .rules import UNKNOWN_TYPE, context_rules

__all__ = ["CATEGORY_FLAGS", "ModifierFinder", "ScopedModifier", "all_rules", "assert_targets",
           "assertion_from_flags"]

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


def all_rules() -> list[ConTextRule]:
    """medspaCy's default rules and ours (nlp/resources/context_rules.json), in matching order."""
    return [*_default_rules(), *context_rules()]


class ModifierFinder:
    """Finds ConText modifiers in a doc (by default medspaCy's rules + nlp/resources/context_rules.json;
    benchmarks/check_assertion_rules.py gives it the rules less one)."""

    def __init__(self, nlp: Language, rules: Sequence[ConTextRule] | None = None) -> None:
        rules = all_rules() if rules is None else list(rules)
        self.rules = tuple(rules)
        self._matcher = CueMatcher(nlp, rules)
        self._by_literal = {r.literal.lower(): r for r in rules}
        self._vocab = nlp.vocab

    def find(self, doc: Doc) -> tuple[ScopedModifier, ...]:
        """Cues with scopes settled against the other cues of their own sentence only: medspaCy's
        ConTextGraph compares every pair of cues it is given, so one graph per sentence keeps
        the whole note linear (sentences are capped in length, see sentences.py)."""
        return self.settle(doc, self.matches(doc))

    def matches(self, doc: Doc) -> list[tuple[int, int, int]]:
        """Every cue match (match id, start, end), overlapping ones included: `settle` prunes them."""
        return self._cue_matches(doc)

    def rule_of(self, match_id: int) -> ConTextRule:
        return self._matcher.rule_map[self._vocab.strings[match_id]]

    def settle(self, doc: Doc, matches: Sequence[tuple[int, int, int]]) -> tuple[ScopedModifier, ...]:
        """The modifiers of these cue matches (all of `matches`, or some left out to see what
        a rule does: benchmarks/check_assertion_rules.py)."""
        sent_start = _sentence_starts(doc)
        by_sentence: dict[int, list[ConTextModifier]] = {}
        for match_id, start, end in self._pruned(list(matches)):
            rule = self.rule_of(match_id)
            first = sent_start[end - 1]
            if start < first:
                # A cue across a sentence break (": no" after a heading that ends a sentence)
                # is the cue of its last sentence only, if that part is a cue on its own.
                rule = self._by_literal.get(" ".join(doc[first:end].text.lower().split()))
                if rule is None:
                    continue
                start = first
            by_sentence.setdefault(first, []).append(ConTextModifier(rule, start, end, doc))
        out: list[ScopedModifier] = []
        for first in sorted(by_sentence):
            modifiers = by_sentence[first]
            out.extend(_settled(modifiers))
        return tuple(out)


    def _cue_matches(self, doc: Doc) -> list[tuple[int, int, int]]:
        """Cue matches in `doc`'s token indices, found as written: runs of spaces and line
        breaks inside a cue ("negative   for", "no\n evidence of") are skipped, as for targets."""
        if not len(doc):
            return self._matcher(doc)
        # the words' offsets, lengths, trailing space and sentence starts, from the arrays: no Token made
        arr = doc.to_array([IS_SPACE, IDX, LENGTH, SPACY, SENT_START])
        word = arr[:, 0] == 0
        if word.all():
            return self._matcher(doc)
        kept = arr[word]
        where = np.flatnonzero(word)
        positions = where.tolist()
        text = doc_text(doc)
        # sentence starts kept: a cue of an order given in the imperative starts its sentence. A
        # sentence that starts on a space ("pneumonia.  Start ceftriaxone": the second space is a
        # token, and the sentencizer starts the sentence there) starts at its first word.
        started = np.cumsum(arr[:, 4] == 1)
        before = np.concatenate(([0], started[where[:-1]]))
        compact = Doc(doc.vocab, words=[text[i:i + n] for i, n in kept[:, 1:3].tolist()],
                      spaces=(kept[:, 3] == 1).tolist(), sent_starts=(started[where] > before).tolist())
        return [(match_id, positions[start], positions[end - 1] + 1)
                for match_id, start, end in self._matcher(compact)]

    def _pruned(self, matches: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        """Longest cue wins (medspaCy's pruning); of two cues on the same words, ours wins, so
        a rule in nlp/resources can refine a default one ("no history of" is also historical)."""
        best: dict[tuple[int, int], tuple[int, int, int]] = {}
        for match in matches:
            span = (match[1], match[2])
            if span not in best or self._ours(match[0]):
                best[span] = match
        cues = prune_overlapping_matches([m for m in best.values() if not self._ends(m[0])])
        # A terminator acts where it starts: one that runs into a cue ("but was" of "but was not
        # intubated") ends the scopes before it and leaves the cue its words.
        ends = []
        for match_id, start, end in best.values():
            if self._ends(match_id):
                end = min([end, *(s for _, s, e in cues if start < s < end)])
                if not any(s <= start < e for _, s, e in cues):
                    ends.append((match_id, start, end))
        return sorted(cues + prune_overlapping_matches(ends), key=lambda m: (m[1], m[2]))

    def _ends(self, match_id: int) -> bool:
        return self.rule_of(match_id).direction.upper() == "TERMINATE"

    def _ours(self, match_id: int) -> bool:
        metadata = self._matcher.rule_map[self._vocab.strings[match_id]].metadata or {}
        return metadata.get("source") == "medeventgraph"


def _sentence_starts(doc: Doc) -> list[int]:
    """Token index -> index of the first token of its sentence, read from the doc's sentence-start
    array (`token.sent` walks, and a Token per index costs more than the whole array)."""
    if not len(doc):
        return []
    starts = doc.to_array(SENT_START) == 1  # is_sent_start is True exactly where the flag is 1
    return np.maximum.accumulate(np.where(starts, np.arange(len(doc)), 0)).tolist()


def assert_targets(doc: Doc, modifiers: Sequence[ScopedModifier], targets: Sequence[Span],
                   kinds: Sequence[str | None] | None = None) -> list[frozenset[str]]:
    """ConText flags for each target, in order (PSEUDO and TERMINATE cues flag nothing).

    A cue inside a target's own words is part of its name, not a modifier: "migraine without
    aura", "diabetes without complication", "no reflow phenomenon" modify nothing. A cue whose
    rule lists `kinds` modifies only targets of those types (`kinds[i]`, the target type of
    `targets[i]`; None, unknown, meets every cue): "we will start heparin for the DVT" plans the
    heparin, not the DVT. medspaCy's own rule follows: cues of one category but for different
    types do not end each other's scope ("as if she was going to pass out": the 'if' still
    reaches the fainting past the 'going to' of planned acts). Each target meets only the cues whose scope reaches it (scopes stay
    inside a sentence), so the work is linear in the note rather than targets x cues."""
    if kinds is not None and len(kinds) != len(targets):
        raise ValueError("assert_targets: one kind per target")
    if not targets or not modifiers:
        return [frozenset() for _ in targets]
    spans = sorted((t.start, t.end) for t in targets)
    starts = [s for s, _ in spans]
    reach = list(accumulate((e for _, e in spans), max))  # furthest target end up to each start

    def inside_a_target(m: ScopedModifier) -> bool:
        i = bisect_right(starts, m.start) - 1  # targets starting at or before the cue
        return i >= 0 and reach[i] >= m.end

    live = [m for m in modifiers if not inside_a_target(m)]
    if len(live) < len(modifiers):
        live = _resettled(doc, live, [m for m in modifiers if inside_a_target(m)])
    live.sort(key=lambda m: m.scope_start)
    scope_starts = [m.scope_start for m in live]
    widest = max((m.scope_end - m.scope_start for m in live), default=0)
    out: list[frozenset[str]] = []
    for i, target in enumerate(targets):
        kind = kinds[i] if kinds is not None else None
        lo = bisect_left(scope_starts, target.start - widest)
        hi = bisect_left(scope_starts, target.end)
        near = [m for m in live[lo:hi] if m.scope_end > target.start]
        out.append(_flags(doc, target, kind, near) if near else frozenset())
    return out


def _resettled(doc: Doc, live: list[ScopedModifier], removed: list[ScopedModifier]) -> list[ScopedModifier]:
    """Scopes settled again, in the sentences of `removed`, without those cues: a cue that is
    part of a target's name must not cut another cue's scope short either ("a past medical
    history of coronary artery disease, STATUS POST CABG": the history reaches the CABG)."""
    sent_start = _sentence_starts(doc)
    touched = {sent_start[m.end - 1] for m in removed}
    out = [m for m in live if sent_start[m.end - 1] not in touched]
    again: dict[int, list[ConTextModifier]] = {}
    for m in live:
        first = sent_start[m.end - 1]
        if first in touched:
            again.setdefault(first, []).append(ConTextModifier(m.rule, m.start, m.end, doc))
    for modifiers in again.values():
        out.extend(_settled(modifiers))
    return out


def _settled(modifiers: list[ConTextModifier]) -> list[ScopedModifier]:
    """The cues of one sentence with scopes settled against each other, then held to a rule's
    `max_scope` (tokens past the cue, from the rule's metadata)."""
    ConTextGraph(modifiers=modifiers).update_scopes()
    # medspaCy lets a terminating cue ("but") of a cue's own category pass over it when the two
    # name different target types, which a cue kept to some kinds ("refused": acts) always does
    ends = [m.modifier_span for m in modifiers if m.direction.upper() == "TERMINATE"]
    out = []
    for m in modifiers:
        start, end = m.modifier_span
        scope_start, scope_end = m.scope_span
        if m.direction.upper() != "TERMINATE":
            scope_end = min([scope_end, *(s for s, _ in ends if s >= end)])
            scope_start = max([scope_start, *(e for _, e in ends if e <= start)])
        reach = (m.rule.metadata or {}).get("max_scope")
        if reach is not None:
            scope_start, scope_end = max(scope_start, start - reach), min(scope_end, end + reach)
        out.append(ScopedModifier(m.rule, start, end, scope_start, scope_end))
    return out


def _flags(doc: Doc, target: Span, kind: str | None, near: Sequence[ScopedModifier]) -> frozenset[str]:
    modifiers = [ConTextModifier(m.rule, m.start, m.end, doc, scope_start=m.scope_start, scope_end=m.scope_end)
                 for m in near]
    # medspaCy checks a rule's allowed_types (rules.py: its 'kinds' and UNKNOWN) against the target's label
    typed = Span(doc, target.start, target.end, label=(kind or UNKNOWN_TYPE).upper())
    graph = ConTextGraph(targets=[typed], modifiers=modifiers)
    graph.apply_modifiers()
    flags = set()
    for _, modifier in graph.edges:
        flag = CATEGORY_FLAGS.get(modifier.category.upper())
        if flag is not None and modifier.direction.upper() not in ("PSEUDO", "TERMINATE"):
            flags.add(flag)
            flags.update((modifier.rule.metadata or {}).get("also", ()))
    return frozenset(flags)


def assertion_from_flags(flags: Iterable[str]) -> Assertion:
    present = set(flags)
    return Assertion(
        negated="negated" in present,
        uncertain="uncertain" in present,
        hypothetical="hypothetical" in present,
        historical="historical" in present,
        family="family" in present,
    )
