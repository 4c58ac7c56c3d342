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
from spacy.attrs import LOWER, SHAPE
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc
from spacy.vocab import Vocab

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
        # The token patterns again, each in a Matcher of its own run only near its anchor word
        # (`_near_anchors`); `_rest` holds those without one. `_tokens` is all of them, whole doc.
        self._windowed: list[tuple[Matcher, list[tuple[int, frozenset[int], int, int]], int]] = []
        self._rest = Matcher(nlp.vocab)
        self._anchor_of: dict[tuple[int, int], list[tuple[int, int]]] = {}  # (attr, value) -> (pattern, anchor)
        self._anchor_values: dict[int, frozenset[int]] | None = None
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
                anchors = _anchors(nlp.vocab, rule.pattern)
                if anchors:
                    matcher = Matcher(nlp.vocab)
                    matcher.add(key, [rule.pattern])
                    for a, (attr, values, _, _) in enumerate(anchors):
                        for value in values:
                            self._anchor_of.setdefault((attr, value), []).append((len(self._windowed), a))
                    self._windowed.append((matcher, anchors, len(rule.pattern)))
                else:
                    self._rest.add(key, [rule.pattern])
            else:
                self._phrases.add(key, [Doc(nlp.vocab, words=list(seq)) for seq in sequences])
                if _starts_a_sentence(rule.pattern):
                    self._sentence_initial.add(nlp.vocab.strings[key])

    def __call__(self, doc: Doc) -> list[tuple[int, int, int]]:
        """(match id, start, end) of every cue, overlapping ones included, in text order."""
        phrases = [m for m in self._phrases(doc) if m[0] not in self._sentence_initial or doc[m[1]].is_sent_start]
        found = self._token_matches(doc) | set(phrases)
        return sorted(found, key=lambda m: (m[1], m[2], self._rank[m[0]]))

    def _token_matches(self, doc: Doc) -> set[tuple[int, int, int]]:
        """`set(self._tokens(doc))`: the token patterns' matches (a set: the caller sorts)."""
        found = set(self._rest(doc)) if len(self._rest) else set()
        if not self._windowed or not len(doc):
            return found
        if self._anchor_values is None:
            self._anchor_values = {attr: frozenset(v for a, v in self._anchor_of if a == attr)
                                   for attr in _ANCHOR_ATTRS.values()}
        # where each pattern's anchors stand: one set look-up per word and attribute (np.isin
        # compares the column with each anchor value in turn: several times slower on a note)
        hits: list[list[list[int]]] = [[[] for _ in anchors] for _, anchors, _ in self._windowed]
        columns = doc.to_array(list(_ANCHOR_ATTRS.values())).T.tolist()
        for attr, values in self._anchor_values.items():
            anchor_of = self._anchor_of
            for i, value in enumerate(columns[_COLUMN[attr]]):
                if value in values:
                    for pattern, anchor in anchor_of[(attr, value)]:
                        hits[pattern][anchor].append(i)
        for (matcher, anchors, width), where in zip(self._windowed, hits, strict=True):
            found.update(_near_anchors(doc, matcher, anchors, where, width))
        return found


_ANCHOR_ATTRS = {"LOWER": LOWER, "SHAPE": SHAPE}  # token attributes an anchor word may be tested on
_COLUMN = {attr: i for i, attr in enumerate(_ANCHOR_ATTRS.values())}  # its column in `to_array`


def _anchors(vocab: Vocab, pattern: list[dict[str, Any]]) -> list[tuple[int, frozenset[int], int, int]]:
    """The pattern's required elements that test one word's LOWER or SHAPE (one value or IN a
    list; the first such test of an element, whatever else it tests), each as (attribute, value hashes, fewest and most tokens before it): a match starts
    that many tokens before a token passing it. Empty when an element may take more than one
    token (its matches are then looked for everywhere)."""
    out = []
    lo = 0  # required elements before this one; `hi`: all elements before it
    for hi, element in enumerate(pattern):
        op = element.get("OP")
        if op not in (None, "?"):
            return []
        if op is None:
            # Any one word test of a required element is a condition every match meets, whatever
            # else the element tests ("would" but not "May": LOWER IN [...] and TEXT NOT_IN [...]);
            # the Matcher run on the stretch checks the rest.
            for name, value in element.items():
                if name not in _ANCHOR_ATTRS:
                    continue
                values = [value] if isinstance(value, str) else (
                    value["IN"] if isinstance(value, dict) and set(value) == {"IN"} else None)
                if values is not None and all(isinstance(v, str) for v in values):
                    out.append((_ANCHOR_ATTRS[name], frozenset(vocab.strings.add(v) for v in values), lo, hi))
                    break
        lo += op is None
    return out


def _near_anchors(doc: Doc, matcher: Matcher, anchors: list[tuple[int, frozenset[int], int, int]],
                  hits: list[list[int]], width: int) -> list[tuple[int, int, int]]:
    """`matcher(doc)` for a Matcher of one pattern whose elements each take at most one token:
    a match starts lo..hi tokens before a token passing each of its anchors (`hits`: where each
    anchor's tokens are), and ends within `width` tokens of its start, so the Matcher runs only
    on the stretches from such starts, and finds the same matches there (its tests are of single
    tokens)."""
    possible: set[int] | None = None
    for (_, _, lo, hi), where in zip(anchors, hits, strict=True):
        starts = {p - k for p in where for k in range(lo, hi + 1) if p >= k}
        possible = starts if possible is None else possible & starts
        if not possible:
            return []
    n = len(doc)
    out: list[tuple[int, int, int]] = []
    stretch: list[int] = []
    for start in [*sorted(possible or ()), None]:
        if start is not None and stretch and start < stretch[1]:
            stretch[1] = min(n, start + width)
            continue
        if stretch:
            a, b = stretch
            out.extend((match_id, a + s, a + e) for match_id, s, e in matcher(doc[a:b]))
        if start is not None:
            stretch = [start, min(n, start + width)]
    return out
