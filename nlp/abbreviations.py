"""Abbreviations a note defines ("contrast-induced nephropathy (CIN)"), found with the
Schwartz & Hearst (2003) algorithm, so that later uses of the short form count as mentions
of the long form's concept.

Pure functions over text; scispacy's AbbreviationDetector implements the same algorithm but
needs a downloaded model, which this project cannot fetch at run time.

>>> [(a.short, a.long) for a in find_definitions("Risk of contrast-induced nephropathy (CIN) noted.")]
[('CIN', 'contrast-induced nephropathy')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Definition", "best_long_form", "find_definitions", "short_form_uses"]

# "long form (SF)": SF of 2-10 characters, one or two words, starting with a letter or digit.
_PAREN = re.compile(r"\(\s*([A-Za-z0-9][\w\-/&.]{1,9}(?:\s[\w\-/&.]{1,9})?)\s*\)")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Definition:
    short: str
    long: str
    long_start: int  # character offsets of the long form in the text
    long_end: int
    short_start: int  # offsets of the short form inside the parentheses


def best_long_form(short: str, long: str) -> str | None:
    """Schwartz & Hearst: match the short form's characters right to left in the candidate;
    the first character must start a word. Returns the shortest long form that fits."""
    s, l = len(short) - 1, len(long) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while l >= 0 and (long[l].lower() != c or (s == 0 and l > 0 and long[l - 1].isalnum())):
            l -= 1
        if l < 0:
            return None
        l -= 1
        s -= 1
    start = long.rfind(" ", 0, l + 1) + 1
    return long[start:]


def find_definitions(text: str) -> list[Definition]:
    out: list[Definition] = []
    for m in _PAREN.finditer(text):
        short = m.group(1)
        if not any(ch.isalpha() for ch in short) or short.lower() == short and len(short) > 5:
            continue  # "(2019)" or a lower-case phrase is an aside, not an abbreviation
        before = text[: m.start()].rstrip()
        words = list(_WORD.finditer(before))
        window = words[-min(len(short) + 5, 2 * len(short)):]
        if not window:
            continue
        cand_start = window[0].start()
        candidate = before[cand_start:]
        long = best_long_form(short, candidate)
        if long is None or len(long) <= len(short) or short.lower() in long.lower().split():
            continue
        long_start = cand_start + candidate.rfind(long)
        out.append(Definition(short, long, long_start, long_start + len(long), m.start(1)))
    return out


def short_form_uses(text: str, definition: Definition) -> list[tuple[int, int]]:
    """Whole-word, case-sensitive uses of a defined short form, excluding the definition."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(definition.short)}(?![\w-])")
    return [(m.start(), m.end()) for m in pattern.finditer(text) if m.start() != definition.short_start]
