"""Typed models of the rule files shipped in `nlp/resources/`, loaded with importlib.resources.

Each JSON file has one small frozen model; the models know how to become medspaCy rule
objects, so the spaCy side never reads raw dicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from medspacy.context import ConTextRule
from medspacy.section_detection import SectionRule

from .rule_files import read_rule_file

__all__ = [
    "ASSERTION_FLAGS",
    "TITLE_END",
    "ContextRuleSpec",
    "SectionSpec",
    "context_rules",
    "load_context_specs",
    "load_section_specs",
    "section_assertions",
    "section_rules",
    "stated_done_pattern",
]

ASSERTION_FLAGS = ("negated", "uncertain", "hypothetical", "historical", "family")
_DIRECTIONS = {"FORWARD", "BACKWARD", "BIDIRECTIONAL", "TERMINATE", "PSEUDO"}
TITLE_END = r"^(?::|--?|[ \t]*[\r\n]\s*)$"  # the token that ends a heading: ':', '-', a line break


def _read_json(name: str) -> Any:
    return read_rule_file(name)


@dataclass(frozen=True, slots=True)
class SectionSpec:
    """One section category: its heading titles and the ConText flags it gives its mentions."""

    category: str
    titles: tuple[str, ...]
    assertion: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        bad = [flag for flag in self.assertion if flag not in ASSERTION_FLAGS]
        if bad:
            raise ValueError(f"section {self.category}: unknown assertion flags {bad}")
        if not self.titles:
            raise ValueError(f"section {self.category}: no titles")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SectionSpec:
        return cls(
            category=str(data["category"]),
            titles=tuple(str(t) for t in data["titles"]),
            assertion=tuple(str(a) for a in data.get("assertion", ())),
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

    def __post_init__(self) -> None:
        if self.direction.upper() not in _DIRECTIONS:
            raise ValueError(f"context rule {self.literal!r}: bad direction {self.direction}")
        bad = [flag for flag in self.also if flag not in ASSERTION_FLAGS]
        if bad:
            raise ValueError(f"context rule {self.literal!r}: unknown flags in 'also': {bad}")
        if self.max_scope is not None and self.max_scope < 1:
            raise ValueError(f"context rule {self.literal!r}: max_scope must be at least 1")

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
        )

    def to_rule(self) -> ConTextRule:
        pattern = [dict(p) for p in self.pattern] if self.pattern else None
        # max_scope is applied by context.py once scopes are settled, not by medspaCy: its overlap
        # test misses a scope lying inside another's, so a terminator would not end a short scope.
        metadata = {"also": list(self.also), "source": "medeventgraph", "max_scope": self.max_scope}
        return ConTextRule(self.literal, self.category, pattern=pattern, direction=self.direction, metadata=metadata)


@cache
def load_section_specs() -> tuple[SectionSpec, ...]:
    return tuple(SectionSpec.from_json(d) for d in _read_json("section_rules.json")["sections"])


@cache
def load_context_specs() -> tuple[ContextRuleSpec, ...]:
    return tuple(ContextRuleSpec.from_json(d) for d in _read_json("context_rules.json")["rules"])


def section_rules() -> list[SectionRule]:
    return [rule for spec in load_section_specs() for rule in spec.to_rules()]


def context_rules() -> list[ConTextRule]:
    return [spec.to_rule() for spec in load_context_specs()]


def section_assertions() -> dict[str, frozenset[str]]:
    """Section category -> the ConText flags its mentions receive (past history -> historical)."""
    return {s.category: frozenset(s.assertion) for s in load_section_specs() if s.assertion}


@cache
def stated_done_pattern() -> re.Pattern[str]:
    """Words that state an act as done ('was prescribed'): section_rules.json 'stated_done'."""
    phrases = [str(p) for p in _read_json("section_rules.json").get("stated_done", ())]
    if not phrases:
        return re.compile(r"(?!)")
    alternatives = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in phrases)
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)
