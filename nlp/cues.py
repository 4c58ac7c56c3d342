"""ConText cue matching in one pass over the words, whatever the number of rules.

medspaCy's MedspacyMatcher puts every rule with a token pattern into spaCy's token Matcher,
whose cost is tokens x patterns, and whose set predicates ({"LOWER": {"IN": [...]}}) are
evaluated in Python at every token: on the Synthea notes it was half the cold note NLP time
(benchmarks/bench_nlp.py). Most cue patterns are only word alternatives and optional words
("may"? "not" "rule" "out"), a finite set of word sequences; those become phrases of one
PhraseMatcher (a trie walk: linear in the words). Only the few patterns with other token
attributes or repeats ("call ... for", "2)", "two-day history") stay in a token Matcher.
The matches are the same (match id, start, end) triples MedspacyMatcher(prune=False) gives.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from medspacy.context import ConTextRule
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc

__all__ = ["CueMatcher", "word_sequences"]

_MAX_SEQUENCES = 5000  # beyond this a pattern stays in the token Matcher (no rule comes near)


def _starts_a_sentence(pattern: list[dict[str, Any]]) -> bool:
    """Whether the pattern's first word must start its sentence ({"IS_SENT_START": true})."""
    return bool(pattern) and pattern[0].get("IS_SENT_START") is True and "OP" not in pattern[0]


def word_sequences(pattern: list[dict[str, Any]]) -> list[tuple[str, ...]] | None:
    """The lower-cased word sequences a token pattern matches, or None if it is not only
    LOWER words, LOWER IN alternatives and optional ('?') tokens (the first word may be required
    to start its sentence: `_starts_a_sentence`, checked on the matches)."""
    if _starts_a_sentence(pattern):
        pattern = [{k: v for k, v in pattern[0].items() if k != "IS_SENT_START"}, *pattern[1:]]
    choices: list[list[str | None]] = []
    for token in pattern:
        op = token.get("OP")
        if set(token) - {"LOWER", "OP"} or op not in (None, "?"):
            return None
        value = token.get("LOWER")
        if isinstance(value, str):
            words: list[str | None] = [value]
        elif isinstance(value, dict) and set(value) == {"IN"} and all(isinstance(v, str) for v in value["IN"]):
            words = list(value["IN"])
        else:
            return None
        if op == "?":
            words.append(None)
        choices.append(words)
    count = 1
    for words in choices:
        count *= len(words)
    if count > _MAX_SEQUENCES:
        return None
    out = {tuple(w for w in combo if w is not None) for combo in product(*choices)}
    return sorted(seq for seq in out if seq)


class CueMatcher:
    """Matches ConText rules: literals and word-alternative patterns by phrase, the rest by token."""

    def __init__(self, nlp: Language, rules: list[ConTextRule]) -> None:
        self.rule_map: dict[str, ConTextRule] = {}
        self._rank: dict[int, tuple[int, int]] = {}  # match id -> order among cues on the same words
        self._phrases = PhraseMatcher(nlp.vocab, attr="LOWER")
        self._tokens = Matcher(nlp.vocab)
        self._sentence_initial: set[int] = set()  # match ids of phrases that must start a sentence
        for index, rule in enumerate(rules):
            key = f"{rule.category}_{index}"
            self.rule_map[key] = rule
            # MedspacyMatcher listed token-pattern matches before literal ones, in rule order;
            # callers that keep the first of two cues on the same words still see that order.
            self._rank[nlp.vocab.strings.add(key)] = (0 if rule.pattern is not None else 1, index)
            if rule.pattern is None:
                self._phrases.add(key, [nlp.tokenizer(rule.literal.lower())])
                continue
            if not isinstance(rule.pattern, list):
                raise TypeError(f"context rule {rule.literal!r}: only token patterns are supported")
            sequences = word_sequences(rule.pattern)
            if sequences is None:
                self._tokens.add(key, [rule.pattern])
            else:
                self._phrases.add(key, [Doc(nlp.vocab, words=list(seq)) for seq in sequences])
                if _starts_a_sentence(rule.pattern):
                    self._sentence_initial.add(nlp.vocab.strings[key])

    def __call__(self, doc: Doc) -> list[tuple[int, int, int]]:
        """(match id, start, end) of every cue, overlapping ones included, in text order."""
        phrases = [m for m in self._phrases(doc) if m[0] not in self._sentence_initial or doc[m[1]].is_sent_start]
        found = (set(self._tokens(doc)) if len(self._tokens) else set()) | set(phrases)
        return sorted(found, key=lambda m: (m[1], m[2], self._rank[m[0]]))
