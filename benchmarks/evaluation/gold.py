"""The gold rules' own matcher: which structured rows a query event names, and the term a
rule uses for a row. Written apart from the verifier on purpose (benchmarks/README.md,
"Gold matcher"): it imports no code from `medeventgraph.core`, so a defect in the system's
grounding or normalisation cannot make the labels agree with it. The one thing it takes from
the core is data: the kind table (`KIND_ALLOWS`, which occurrence kinds a query kind names).
That table is the query language's definition of "kind: lab", not a step of grounding; the
question and its judge must read "kind" alike, as both read `model.occurrence.Kind` alike, and
two copies could only drift apart.

Where the judge differs from the verifier, on purpose:
  procedure orders  the kind table admits a procedure order (a ServiceRequest) for a
                   procedure event and the core's `action_admits` lets it stand for
                   `action: ordered` only; the judge never counts an order as a procedure
                   instance, since no protocol here asks `action: ordered`, so its gold rows
                   are procedures done (tests/evaluation/test_gold.py holds both readings).

  normalised text  lower-cased; every character that is not a letter, digit, space or one
                   of / + . - becomes a space; runs of spaces collapse (doses and ratios
                   keep their punctuation, brackets and commas do not).
  names            a row is named by (term, kind) when it is an instance of the query kind
                   (its kind is one the query kind stands for, lab and vital also taking
                   untyped observations; a procedure *order* is no procedure instance) and the
                   term occurs in one of its displays as a whole-word phrase.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from medeventgraph.core.evidence.binding import KIND_ALLOWS
from medeventgraph.model.occurrence import Action, Kind, Occurrence, Origin

__all__ = ["display_term", "gold_matches", "instance_of", "kind_names", "norm", "phrase_in"]

_KEEP = frozenset("/+.-")
_TAG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz /")


@lru_cache(maxsize=65536)
def norm(text: str) -> str:
    chars = (c if c.isalnum() or c == "_" or c.isspace() or c in _KEEP else " " for c in text.lower())
    return " ".join("".join(chars).split())


def kind_names(query_kind: str | None, kind: Kind) -> bool:
    if query_kind is None:
        return any(kind in kinds for kinds in KIND_ALLOWS.values())
    return kind in KIND_ALLOWS[query_kind]


def instance_of(kind: str | None, occ: Occurrence) -> bool:
    """A query kind's instances: its kinds, less procedure orders (a ServiceRequest grounds only
    `action: ordered`, which no protocol here asks)."""
    return kind_names(kind, occ.kind) and not (occ.kind is Kind.PROCEDURE and occ.action is Action.ORDERED)


def phrase_in(term: str, text: str) -> bool:
    """`term` in `text` as whole words: both ends at a non-word character or the text's edge."""
    if not term:
        return False
    start = text.find(term)
    while start != -1:
        end = start + len(term)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = text.find(term, start + 1)
    return False


def display_term(occ: Occurrence) -> str:
    """The query text rules use for a row: its display, SNOMED semantic tag stripped, normalised."""
    text = (occ.concept.text or "").rstrip()
    open_at = text.rfind("(")
    if text.endswith(")") and open_at != -1 and len(text) - open_at > 2 and set(text[open_at + 1:-1]) <= _TAG_CHARS:
        text = text[:open_at]  # a trailing "(disorder)", "(regime/therapy)", ...
    return norm(text)


def gold_matches(term: str, kind: str | None, occurrences: Iterable[Occurrence]) -> list[Occurrence]:
    """Every structured row a query event (text `term`, `kind`) names, by the rule above."""
    out = []
    for o in occurrences:
        if o.origin is not Origin.STRUCTURED or not instance_of(kind, o):
            continue
        if any(phrase_in(term, norm(d)) for d in o.concept.displays()):
            out.append(o)
    return out
