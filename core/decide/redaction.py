"""What of the patient's identity is cut out of text before it leaves the process (the LLM
assessor's payload): the patient id, and the identifiers and name parts of the patient's own
Patient resource when the record holds it.

A term is replaced by `[patient]` wherever it occurs in a string, whatever surrounds it:
as a whole token, inside a reference (`Patient/<id>`, `Encounter/<id>-1`), inside a longer
token (`MRN<id>x`), in any letter case, and percent-encoded (`Patient%2F<id>`, `%70t-1`: a
string whose percent-decoded form holds a term is sent decoded, with the term replaced). The
price of "wherever": a term of a few characters also hides those characters where they occur by
chance in the text sent (a patient id `12` turns "K 4.12" into "K 4.[patient]"); only strings
copied from the record or the query are rewritten, never the times, numbers and labels the
payload renders itself, so dates and values stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import unquote

__all__ = ["LABEL", "Redactor", "patient_terms"]

LABEL = "[patient]"
_MIN_NAME_CHARS = 2  # a one-letter initial identifies no one and would hide every such letter
_MAX_DECODE_ROUNDS = 3  # percent-encoding nested deeper than this is left encoded (and not matched)


@dataclass(frozen=True)
class Redactor:
    """Replaces every occurrence of `terms` (case-insensitive) in a string by `LABEL`."""

    terms: tuple[str, ...]

    @classmethod
    def of(cls, patient: str, others: Iterable[str] = ()) -> Redactor:
        # longest first: a term inside a longer one must not split it ("Ann" inside "Anna")
        unique = {t.casefold(): t for t in (patient, *others) if t and t.strip()}
        return cls(tuple(sorted(unique.values(), key=lambda t: (-len(t), t))))

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        if not self.terms:
            return None
        return re.compile("|".join(re.escape(t) for t in self.terms), re.IGNORECASE)

    def __call__(self, text: str) -> str:
        pattern = self._pattern
        if pattern is None:
            return text
        decoded = _percent_decoded(text)
        if decoded != text and pattern.search(decoded):
            text = decoded
        return pattern.sub(LABEL, text)

    def strings(self, obj: Any) -> Any:
        """`obj` (JSON-like: dicts, lists, strings, scalars) with every string redacted."""
        if isinstance(obj, str):
            return self(obj)
        if isinstance(obj, dict):
            return {k: self.strings(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [self.strings(v) for v in obj]
        return obj


def _percent_decoded(text: str) -> str:
    for _ in range(_MAX_DECODE_ROUNDS):
        if "%" not in text:
            break
        decoded = unquote(text, errors="replace")
        if decoded == text:
            break
        text = decoded
    return text


def patient_terms(patient: str, resources: Mapping[str, Mapping[str, Any]]) -> tuple[str, ...]:
    """The identifier values and name parts of `Patient/<patient>` among `resources` (a record's
    raw resources), for `Redactor.of(patient, ...)`. Malformed elements are skipped."""
    resource = resources.get(f"Patient/{patient}")
    if not isinstance(resource, Mapping):
        return ()
    terms: list[str] = []
    for ident in _list(resource.get("identifier")):
        if isinstance(ident, Mapping) and isinstance(ident.get("value"), str):
            terms.append(ident["value"].strip())
    for name in _list(resource.get("name")):
        if not isinstance(name, Mapping):
            continue
        parts = [name.get("family"), *_list(name.get("given")), name.get("text")]
        for part in parts:
            if isinstance(part, str):
                terms.extend(w for w in re.split(r"[\s,]+", part) if len(w.strip(".")) >= _MIN_NAME_CHARS)
    return tuple(t for t in dict.fromkeys(terms) if t)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
