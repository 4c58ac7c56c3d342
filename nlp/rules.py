"""Typed models of the rule files shipped in `nlp/resources/`, loaded with importlib.resources.

Each JSON file has one small frozen model; the models know how to become medspaCy rule
objects, so the spaCy side never reads raw dicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from medeventgraph.model.occurrence import Kind
from medeventgraph.model.packaged import packaged_object
from medspacy.context import ConTextRule
from medspacy.section_detection import SectionRule

__all__ = [
    "ASSERTION_FLAGS",
    "TARGET_TYPES",
    "TITLE_END",
    "UNKNOWN_TYPE",
    "ContextRuleSpec",
    "SectionSpec",
    "context_rules",
    "context_rules_from",
    "context_specs_from_json",
    "load_context_specs",
    "load_section_specs",
    "section_assertion_kinds",
    "section_assertions",
    "section_rules",
    "stated_done_pattern",
]

ASSERTION_FLAGS = ("negated", "uncertain", "hypothetical", "historical", "family")
_DIRECTIONS = {"FORWARD", "BACKWARD", "BIDIRECTIONAL", "TERMINATE", "PSEUDO"}
TITLE_END = r"^(?::|--?|[ \t]*[\r\n]\s*)$"  # the token that ends a heading: ':', '-', a line break

# What a cue may modify: the kinds of a target term (occurrence.Kind values) and "value", a lab
# or vital value the note states with its number (a result: it was measured).
TARGET_TYPES = frozenset({k.value for k in Kind} | {"value"})
UNKNOWN_TYPE = "unknown"  # a target of no stated kind: every cue modifies it


def _read_json(name: str) -> Any:
    return packaged_object("medeventgraph.nlp", name)


@dataclass(frozen=True, slots=True)
class SectionSpec:
    """One section category: its heading titles and the ConText flags it gives its mentions."""

    category: str
    titles: tuple[str, ...]
    assertion: tuple[str, ...] = ()
    assertion_kinds: tuple[str, ...] = ()  # target types the flags are for (none listed: every type)

    def __post_init__(self) -> None:
        bad = [flag for flag in self.assertion if flag not in ASSERTION_FLAGS]
        if bad:
            raise ValueError(f"section {self.category}: unknown assertion flags {bad}")
        if not self.titles:
            raise ValueError(f"section {self.category}: no titles")
        unknown = sorted(set(self.assertion_kinds) - TARGET_TYPES)
        if unknown:
            raise ValueError(f"section {self.category}: unknown target types in 'assertion_kinds': {unknown}")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SectionSpec:
        return cls(
            category=str(data["category"]),
            titles=tuple(str(t) for t in data["titles"]),
            assertion=tuple(str(a) for a in data.get("assertion", ())),
            assertion_kinds=tuple(str(k) for k in data.get("assertion_kinds", ())),
        )

    def to_rules(self) -> list[SectionRule]:
        """Two token patterns per title (the sectionizer requires them to start a line): a markdown
        heading ('# Title'), and the title followed by ':', '-' or a line break, or by nothing —
        which `sections.starts_a_heading` keeps only for a title in capitals ('PAST MEDICAL
        HISTORY Hypertension', as dictated reports run them in). Few patterns: the matcher's
        cost grows with their number."""
        rules = []
        for title in self.titles:
            words = [{"LOWER": w} for w in _title_tokens(title)]
            markdown = [{"TEXT": "#", "OP": "+"}, *words, {"TEXT": ":", "OP": "?"}]
            plain = [*words, {"TEXT": {"REGEX": TITLE_END}, "OP": "?"}]
            rules.append(SectionRule(literal=f"# {title}", category=self.category, pattern=markdown))
            rules.append(SectionRule(literal=f"{title}:", category=self.category, pattern=plain))
        return rules


def _title_tokens(title: str) -> list[str]:
    """Lower-cased tokens of a title as the medspaCy tokenizer splits them ('a/p' -> a, /, p)."""
    out: list[str] = []
    for word in title.lower().split():
        part = ""
        for ch in word:
            if ch.isalnum():
                part += ch
            else:
                if part:
                    out.append(part)
                out.append(ch)
                part = ""
        if part:
            out.append(part)
    return out


@dataclass(frozen=True, slots=True)
class ContextRuleSpec:
    """One extra ConText modifier; `pattern` is a spaCy token pattern or None for the literal."""

    literal: str
    category: str
    direction: str
    pattern: tuple[dict[str, Any], ...] | None = None
    also: tuple[str, ...] = ()  # flags the cue sets besides its category's ("no history of": historical)
    max_scope: int | None = None  # tokens the scope may reach past the cue (None: to the sentence end)
    kinds: tuple[str, ...] = ()  # target types the cue modifies (none listed: every type)
    lexicon_class: str = ""  # the class of clinical language the cue belongs to (context_rules.json "classes")
    exceptions: tuple[str, ...] = ()  # words holding the cue that are not it ('risk factors' for 'risk')

    def __post_init__(self) -> None:
        if self.direction.upper() not in _DIRECTIONS:
            raise ValueError(f"context rule {self.literal!r}: bad direction {self.direction}")
        bad = [flag for flag in self.also if flag not in ASSERTION_FLAGS]
        if bad:
            raise ValueError(f"context rule {self.literal!r}: unknown flags in 'also': {bad}")
        if self.max_scope is not None and self.max_scope < 1:
            raise ValueError(f"context rule {self.literal!r}: max_scope must be at least 1")
        unknown = sorted(set(self.kinds) - TARGET_TYPES)
        if unknown:
            raise ValueError(f"context rule {self.literal!r}: unknown target types in 'kinds': {unknown}")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ContextRuleSpec:
        pattern = data.get("pattern")
        return cls(
            literal=str(data["literal"]),
            category=str(data["category"]).upper(),
            direction=str(data["direction"]).upper(),
            pattern=tuple(pattern) if pattern else None,
            also=tuple(str(a) for a in data.get("also", ())),
            max_scope=int(data["max_scope"]) if data.get("max_scope") is not None else None,
            kinds=tuple(str(k) for k in data.get("kinds", ())),
            lexicon_class=str(data.get("class", "")),
            exceptions=tuple(str(e) for e in data.get("exceptions", ())),
        )

    def to_rules(self) -> list[ConTextRule]:
        """The cue, and one PSEUDO cue per exception: as the longer match on the same words, an
        exception displaces the cue there and, being of its category, ends an earlier one's scope."""
        pattern = [dict(p) for p in self.pattern] if self.pattern else None
        # max_scope is applied by context.py once scopes are settled, not by medspaCy: its overlap
        # test misses a scope lying inside another's, so a terminator would not end a short scope.
        metadata = {"also": list(self.also), "source": "medeventgraph", "max_scope": self.max_scope,
                    "class": self.lexicon_class, "rule": self.literal}
        allowed = {*self.kinds, UNKNOWN_TYPE} if self.kinds else None
        rules = [ConTextRule(self.literal, self.category, pattern=pattern, direction=self.direction,
                             metadata=metadata, allowed_types=allowed)]
        for exception in self.exceptions:
            rules.append(ConTextRule(exception, self.category, direction="PSEUDO", allowed_types=allowed,
                                     metadata={**metadata, "also": [], "max_scope": None}))
        return rules


@cache
def load_section_specs() -> tuple[SectionSpec, ...]:
    return tuple(SectionSpec.from_json(d) for d in _read_json("section_rules.json")["sections"])


@cache
def load_context_specs() -> tuple[ContextRuleSpec, ...]:
    return context_specs_from_json(_read_json("context_rules.json"))


def context_specs_from_json(data: dict[str, Any]) -> tuple[ContextRuleSpec, ...]:
    """The rules of a context rule file; each names one of the file's `classes`, and no two
    share a literal (the literal names a rule in reports and in benchmarks/check_assertion_rules.py)."""
    classes = data.get("classes", {})
    specs = tuple(ContextRuleSpec.from_json(d) for d in data["rules"])
    seen: set[str] = set()
    for spec in specs:
        if classes and spec.lexicon_class not in classes:
            raise ValueError(f"context rule {spec.literal!r}: class {spec.lexicon_class!r} is not one of {sorted(classes)}")
        if spec.literal in seen:
            raise ValueError(f"context rule {spec.literal!r}: two rules with this literal")
        seen.add(spec.literal)
    return specs


def section_rules() -> list[SectionRule]:
    return [rule for spec in load_section_specs() for rule in spec.to_rules()]


def context_rules() -> list[ConTextRule]:
    return [rule for spec in load_context_specs() for rule in spec.to_rules()]


def context_rules_from(data: dict[str, Any]) -> list[ConTextRule]:
    """The ConText rules of another rule file's content (benchmarks measure earlier rule sets)."""
    return [rule for spec in context_specs_from_json(data) for rule in spec.to_rules()]


def section_assertions() -> dict[str, frozenset[str]]:
    """Section category -> the ConText flags its mentions receive (past history -> historical)."""
    return {s.category: frozenset(s.assertion) for s in load_section_specs() if s.assertion}


@cache
def section_assertion_kinds() -> dict[str, frozenset[str]]:
    """Section category -> the target types its flags are for, where the file limits them (a
    plan's flags are for what it plans: drugs, procedures, tests; not the problems it names)."""
    return {s.category: frozenset(s.assertion_kinds) for s in load_section_specs() if s.assertion_kinds}


@cache
def stated_done_pattern() -> re.Pattern[str]:
    """Words that state an act as done ('was prescribed'): section_rules.json 'stated_done'."""
    phrases = [str(p) for p in _read_json("section_rules.json").get("stated_done", ())]
    if not phrases:
        return re.compile(r"(?!)")
    alternatives = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in phrases)
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)
