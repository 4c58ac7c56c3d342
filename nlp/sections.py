"""Section detection: medspaCy's Sectionizer with our heading rules, read back as plain spans."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from medspacy.common.util import prune_overlapping_matches
from medspacy.section_detection import Section, SectionRule
from medspacy.section_detection import Sectionizer as MedspacySectionizer
from spacy.attrs import LOWER, ORTH
from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc
from spacy.vocab import Vocab

from .rules import TITLE_END, section_assertion_kinds, section_assertions, section_rules, stated_done_pattern

__all__ = ["SectionSpan", "add_sectionizer", "doc_sections", "section_flags_for", "sentence_section_flags"]


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """A section in character offsets: its heading [title_start, title_end) and body up to `end`."""

    category: str | None
    title_start: int
    title_end: int
    end: int


def add_sectionizer(nlp: Language) -> None:
    """Headings must start a line (or be run in, see `_starts_a_heading`); header and body start
    new sentences; no span attributes."""
    nlp.add_pipe("medeventgraph_sectionizer")


@Language.factory("medeventgraph_sectionizer")
def make_sectionizer(nlp, name):  # untyped: spaCy builds its config schema from the annotations
    return _Sectionizer(nlp, name)


class _Sectionizer(MedspacySectionizer):
    """medspaCy's Sectionizer with our heading rules, giving the same `doc._.sections` and sentence
    starts for less: the title patterns are matched only where a title can start
    (`HeadingMatcher`), and no `token._.section` is written (medspaCy sets it on every token, a
    quarter of a cold note's NLP; nothing here reads it, only `doc._.sections`). medspaCy's own
    `__call__` stays callable on it (`MedspacySectionizer.__call__(sectionizer, doc)`), which is
    what the tests hold this one to."""

    def __init__(self, nlp: Language, name: str = "medeventgraph_sectionizer") -> None:
        super().__init__(nlp, name, rules=None, require_start_line=True, span_attrs=None,
                         apply_sentence_boundary=True)
        self.add(section_rules())
        # What the short __call__ below leaves out of medspaCy's: parents, end-of-line headings,
        # section length caps and span attributes, none of which these rules use.
        assert not self._parent_sections and not self.require_end_line and self.max_section_length is None
        assert self.assertion_attributes_mapping is None
        # the rules in medspaCy's order, under ids of its form: the same ties, broken the same way
        self.rule_map: Mapping[str, SectionRule] = {f"{r.category}_{i}": r for i, r in enumerate(self.rules)}
        self.headings = HeadingMatcher(nlp.vocab, self.rule_map)

    def filter_start_lines(self, doc: Doc, matches: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        """The sectionizer's start-of-line filter, widened to run-in capital headings."""
        return [m for m in matches if _starts_a_heading(doc, m[1], m[2])]

    def __call__(self, doc: Doc) -> Doc:
        matches = self.filter_start_lines(doc, self.headings(doc))
        sections: list[Section] = []
        doc._.sections = sections
        n = len(doc)
        if not matches:
            sections.append(Section(None, 0, 0, 0, n))
            return doc
        if matches[0][1] != 0:
            sections.append(Section(None, 0, 0, 0, matches[0][1]))
        strings = doc.vocab.strings
        for i, (match_id, start, end) in enumerate(matches):
            doc[start].sent_start = True  # the header is a sentence, and so is what follows it
            if end < n:
                doc[end].sent_start = True
            rule = self.rule_map[strings[match_id]]
            body_end = matches[i + 1][1] if i + 1 < len(matches) else n
            if rule.max_scope is not None:
                body_end = min(end + rule.max_scope, body_end)
            sections.append(Section(rule.category, start, end, end, body_end, None, rule))
        return doc


class HeadingMatcher:
    """What medspaCy's section matcher returns for a doc (spaCy's token Matcher over every title
    pattern, then the longest of overlapping matches), computed where a title can start.

    spaCy's Matcher starts every pattern at every token (cost: tokens x ~400 patterns, most of a
    note's section detection). A title pattern starts with one word ('chief', or '#' repeated)
    and takes at most one token per further element, so a match lies within its pattern's length
    of a token holding its first word (after the run of '#'). Patterns are grouped by those words,
    and each group's Matcher runs only on the stretches around the tokens that hold its word:
    the same Matcher on the same tokens, so the same matches. Where every title of a group has a
    second word ('chief complaint'), only the tokens followed by one are tried ('patient' starts
    titles, and most of its uses do not). The matches come in another order than the whole
    Matcher's, which pruning reads only to break a tie between two matches on the same tokens: a
    doc with such a tie is matched whole (our titles give none)."""

    def __init__(self, vocab: Vocab, rule_map: Mapping[str, SectionRule]) -> None:
        self.everywhere = Matcher(vocab)
        groups: dict[tuple[int, int | None], list[tuple[str, list[dict[str, Any]]]]] = {}
        self.windowed = True
        for rule_id, rule in rule_map.items():
            pattern = rule.pattern
            if not isinstance(pattern, list):  # a literal or a regular expression: not a token pattern
                raise TypeError(f"section rule {rule.literal!r}: token patterns only")
            self.everywhere.add(rule_id, [pattern], on_match=rule.on_match)
            key = _group_key(vocab, pattern)
            if key is None or rule.on_match is not None:  # a callback would see a stretch's offsets
                self.windowed = False
            else:
                groups.setdefault(key, []).append((rule_id, pattern))
        self.hash_run = vocab.strings.add("#")
        self.groups: dict[tuple[int, int | None], tuple[Matcher, int, frozenset[int] | None]] = {}
        for key, patterns in groups.items():
            matcher = Matcher(vocab)
            for rule_id, pattern in patterns:
                matcher.add(rule_id, [pattern])
            seconds = [_second_word(vocab, p) for _, p in patterns] if key[1] is None else [None]
            after = None if None in seconds else frozenset(s for s in seconds if s is not None)
            self.groups[key] = (matcher, max(len(p) for _, p in patterns), after)
        self.firsts = np.array(sorted({k[0] for k in self.groups if k[1] is None}), dtype=np.uint64)

    def __call__(self, doc: Doc) -> list[tuple[int, int, int]]:
        if not self.windowed:
            return self.whole(doc)
        n = len(doc)
        if not n:
            return []
        arr = doc.to_array([ORTH, LOWER])
        orth, lower = arr[:, 0].tolist(), arr[:, 1]
        starts: dict[tuple[int, int | None], list[int]] = {}
        for i in np.flatnonzero(np.isin(lower, self.firsts)).tolist():
            starts.setdefault((int(lower[i]), None), []).append(i)
        run: list[int] = []  # a run of '#': each may start a markdown title; the word after it says which
        for i in np.flatnonzero(arr[:, 0] == self.hash_run).tolist():
            run.append(i)
            if i + 1 < n and orth[i + 1] == self.hash_run:
                continue
            if i + 1 < n:
                starts.setdefault((self.hash_run, int(lower[i + 1])), []).extend(run)
            run = []
        found: list[tuple[int, int, int]] = []
        for key, positions in starts.items():
            group = self.groups.get(key)
            if group is None:
                continue
            matcher, width, after = group
            if after is not None:
                positions = [p for p in positions if p + 1 < n and int(lower[p + 1]) in after]
            for a, b in _stretches(positions, width, n):
                found.extend((match_id, a + s, a + e) for match_id, s, e in matcher(doc[a:b]))
        if len({(s, e) for _, s, e in found}) < len(found):
            return self.whole(doc)  # a tie the pruning breaks by the whole Matcher's order
        return prune_overlapping_matches(found)

    def whole(self, doc: Doc) -> list[tuple[int, int, int]]:
        """medspaCy's way: every pattern from every token, then pruned."""
        return prune_overlapping_matches(self.everywhere(doc))


def _group_key(vocab: Vocab, pattern: list[dict[str, Any]]) -> tuple[int, int | None] | None:
    """(first word's LOWER, None) for a pattern starting with one word; ('#', next word's LOWER)
    for a markdown title ('#' one or more times, then the title's words); None for any other
    shape (the doc is then matched whole). Every element after the first must take at most one
    token."""
    first, rest = pattern[0], pattern[1:]
    if any(e.get("OP") not in (None, "?") for e in rest):
        return None
    if set(first) == {"LOWER"} and isinstance(first["LOWER"], str):
        return (vocab.strings.add(first["LOWER"]), None)
    if first == {"TEXT": "#", "OP": "+"} and rest and set(rest[0]) == {"LOWER"} \
            and isinstance(rest[0]["LOWER"], str) and rest[0]["LOWER"] != "#":
        return (vocab.strings.add("#"), vocab.strings.add(rest[0]["LOWER"]))
    return None


def _second_word(vocab: Vocab, pattern: list[dict[str, Any]]) -> int | None:
    """The LOWER a title's second token must have, or None when it may end after its first word
    or its second token is not one plain word."""
    if len(pattern) < 2 or set(pattern[1]) != {"LOWER"} or not isinstance(pattern[1]["LOWER"], str):
        return None
    return vocab.strings.add(pattern[1]["LOWER"])


def _stretches(positions: list[int], width: int, n: int) -> list[tuple[int, int]]:
    """[p, p + width) for each position (sorted), overlapping ones merged, cut at the doc's end."""
    out: list[tuple[int, int]] = []
    for p in positions:
        if out and p < out[-1][1]:
            out[-1] = (out[-1][0], min(n, p + width))
        else:
            out.append((p, min(n, p + width)))
    return out


_RUN_IN_AFTER = frozenset({",", ".", ";", ":"})
_RUN_ON = frozenset({"of"})  # a word that ties a title to what follows: not a heading
_TITLE_END = re.compile(TITLE_END)


def _starts_a_heading(doc: Doc, start: int, end: int) -> bool:
    """A heading is a title ending in ':', '-' or a line break that starts a line; a title in
    capitals may also run into its text ('FAMILY HISTORY Negative'). A title in capitals ending
    in ':' right after a comma, full stop, colon or a run of spaces is a heading too: MTSamples and
    other exports flatten line breaks ("... no rashes.,PAST MEDICAL HISTORY: , Asthma.")."""
    title = doc[start:end]
    words = [t.text for t in title if t.is_alpha]
    capitals = bool(words) and all(w.isupper() for w in words)
    ended = _TITLE_END.match(title[-1].text) is not None and not title[-1].is_alpha
    if not ended and not capitals and title[0].text != "#":
        return False
    if not ended and end < len(doc) and doc[end].lower_ in _RUN_ON:
        return False  # "HISTORY OF GIANT CELL ARTERITIS.": the title's word begins a phrase
    if start == 0 or "\n" in doc[start - 1].text or "\r" in doc[start - 1].text:
        return True
    if not capitals or title[-1].text != ":":
        return False
    before = doc[start - 1]
    if before.is_space:
        # A run of spaces is where dictated reports put line breaks once flattened ("…LATERAL
        # HISTORY:  PNEUMONIA"): spaCy keeps a single space on the word, so this token is 2+.
        return True
    return before.text in _RUN_IN_AFTER


def doc_sections(doc: Doc) -> tuple[SectionSpan, ...]:
    """The sections the sectionizer found, as character spans in document order."""
    out = []
    for section in doc._.sections:
        t0, t1 = section.title_span
        b1 = section.body_span[1]
        title_start = doc[t0].idx if t1 > t0 else (doc[t0].idx if t0 < len(doc) else len(doc.text))
        title_end = doc[t1 - 1].idx + len(doc[t1 - 1]) if t1 > t0 else title_start
        end = doc[b1 - 1].idx + len(doc[b1 - 1]) if b1 > 0 else 0
        out.append(SectionSpan(section.category, title_start, title_end, end))
    return tuple(out)


_LIST_ITEM = re.compile(r"(?:[-*\u2022+]|\d{1,3}[.)])\s")


def sentence_section_flags(sentences: Sequence[tuple[str | None, bool, str]]) -> tuple[frozenset[str], ...]:
    """The ConText flags each sentence (section category, is a heading, text) gets from its
    section. In a section that makes its mentions hypothetical (a plan), a sentence stating
    what was done ('The patient was prescribed the following medications:') and the list items
    right after it are facts: they keep the section's other flags only."""
    by_section = section_assertions()
    done = stated_done_pattern()
    out: list[frozenset[str]] = []
    stated = False  # inside a statement of what was done and its list
    previous: str | None = None
    for section, is_heading, text in sentences:
        flags = by_section.get(section or "", frozenset())
        if is_heading or section != previous:
            stated = False
        previous = section
        if "hypothetical" in flags and not is_heading:
            if done.search(text):
                stated = True
            elif not _LIST_ITEM.match(text):
                stated = False
            if stated:
                flags = flags - {"hypothetical"}
        out.append(flags)
    return tuple(out)


def section_flags_for(section: str | None, flags: frozenset[str], kind: str | None) -> frozenset[str]:
    """A sentence's section flags as they hold for a mention of target type `kind`: a section
    whose flags are for some types only (section_rules.json 'assertion_kinds') gives the others
    none; an unknown type (None) gets them all."""
    kinds = section_assertion_kinds().get(section or "")
    if kinds is None or kind is None or kind in kinds:
        return flags
    return frozenset()
