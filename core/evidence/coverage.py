"""Completeness: does a bundle hold every occurrence the record grounds, per event and scope unit?

"Every time-resolved pair in the opposite order" and "documented absent where the event should
be" are claims about *all* the record's occurrences of the two events in a scope unit. A bundle
that holds only some of them (a search under a budget, an operator's top 20) cannot make them:
the pair it left out may be the one in the stated order. So the contract measures each bundle
against exhaustive grounding of the query over the record (the reference, computed from the
index and the query alone) and records, per (event, unit), how many of the reference's admitted
occurrences the bundle holds. The rows are part of the hashed bundle, and core.counter reads them:
an order- or absence-based piece of counter-evidence needs both of its events complete in its
unit.

Counted where binding has been checked (before scope-invalid and copied-forward items are set
aside, which depend on the whole set): an item the bundle lacks there is one it never had.

>>> rows = coverage([("A/1", ("e0",), "u1")], [("A/1", ("e0",), "u1"), ("A/2", ("e0",), "u1")])
>>> rows, is_complete(rows, "e0", "u1")
((('e0', 'u1', 1, 2),), False)
>>> is_complete(coverage([("A/1", ("e0",), "u1")], [("A/1", ("e0",), "u1")]), "e0", "u1")
True
>>> is_complete((), "e0", "u1")  # no reference: nothing is known to be complete
False
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

__all__ = ["CoverageRow", "complete_units", "coverage", "is_complete"]

CoverageRow = tuple[str, str, int, int]  # (event, scope unit, held by the bundle, grounded in the record)
Bound = tuple[str, tuple[str, ...], str | None]  # (occurrence id, events it binds to, scope unit)


def _by_unit(bound: Iterable[Bound]) -> dict[tuple[str, str], set[str]]:
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for oid, events, unit in bound:
        if unit is None:  # scope-unknown items can neither support nor refute: no unit to complete
            continue
        for e in events:
            out[(e, unit)].add(oid)
    return out


def coverage(held: Iterable[Bound], reference: Iterable[Bound]) -> tuple[CoverageRow, ...]:
    """One row per (event, unit) the reference grounds: how many of its occurrences `held` has."""
    have, want = _by_unit(held), _by_unit(reference)
    return tuple(sorted((e, u, len(ids & have.get((e, u), set())), len(ids)) for (e, u), ids in want.items()))


def is_complete(rows: Iterable[CoverageRow], event: str, unit: str | None) -> bool:
    """True only when a row says the bundle holds every grounded occurrence of `event` in `unit`;
    a unit the reference does not ground (an item bound by similarity alone) is not known complete."""
    return unit is not None and any(e == event and u == unit and held == total for e, u, held, total in rows)


def complete_units(rows: Iterable[CoverageRow]) -> frozenset[tuple[str, str]]:
    """Every (event, unit) the bundle holds completely (for callers that ask many times)."""
    return frozenset((e, u) for e, u, held, total in rows if held == total)
