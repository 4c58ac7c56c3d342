"""Benchmark queries made from a patient's own record, so every bundle gets real work.

pairwise: two named events and one relation; compositional: three named events in a chain;
hidden: a named start and end with an unnamed intermediate (`"hidden": true`, only a kind).
Events are the patient's most frequent condition, medication, lab and procedure displays,
plus lexicon terms (vancomycin, acute kidney injury, sepsis) that most records lack.
"""

from __future__ import annotations

import re
from collections import Counter

from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.occurrence import Kind, Occurrence, Origin

__all__ = ["QUERY_TYPES", "make_queries"]

QUERY_TYPES = ("pairwise", "compositional", "hidden")
_TAG = re.compile(r"\s*\([a-z /]+\)\s*$")


def _top(occurrences: list[Occurrence], kind: Kind, n: int) -> list[str]:
    counts = Counter(
        _TAG.sub("", o.concept.text).strip().lower()
        for o in occurrences
        if o.kind is kind and o.origin is Origin.STRUCTURED and 3 <= len(o.concept.text) <= 80
    )
    return [t for t, _ in counts.most_common(n)]


def _ev(i: int, text: str | None, kind: str, hidden: bool = False) -> dict:
    ev = {"id": f"e{i}", "kind": kind}
    if hidden:
        ev["hidden"] = True
    else:
        ev["text"] = text
    return ev


def _q(qid: str, events: list[dict], rels: list[tuple[int, int, str, str | None]], scope: str) -> VerificationQuery:
    relations = []
    for a, b, typ, within in rels:
        r = {"from": f"e{a}", "to": f"e{b}", "type": typ}
        if within:
            r["within"] = within
        relations.append(r)
    return VerificationQuery.model_validate({"id": qid, "events": events, "relations": relations, "scope": scope})


def make_queries(occurrences: list[Occurrence]) -> dict[str, list[VerificationQuery]]:
    cond = _top(occurrences, Kind.CONDITION, 2) or ["sepsis"]
    med = _top(occurrences, Kind.MEDICATION, 2) or ["vancomycin"]
    lab = _top(occurrences, Kind.LAB, 2) or ["creatinine"]
    proc = _top(occurrences, Kind.PROCEDURE, 1) or ["mechanical ventilation"]
    c0, m0, l0, p0 = cond[0], med[0], lab[0], proc[0]
    m1 = med[-1]
    pairwise = [
        _q("pw-cond-med", [_ev(0, c0, "condition"), _ev(1, m0, "medication")], [(0, 1, "before", None)], "patient"),
        _q("pw-lab-med-1d", [_ev(0, l0, "lab"), _ev(1, m1, "medication")], [(0, 1, "before", "P1D")], "encounter"),
        _q("pw-proc-cond", [_ev(0, p0, "procedure"), _ev(1, c0, "condition")], [(0, 1, "overlaps", None)],
           "episode"),
        _q("pw-vanc-aki", [_ev(0, "vancomycin", "medication"), _ev(1, "acute kidney injury", "condition")],
           [(0, 1, "before", "P7D")], "encounter"),
    ]
    compositional = [
        _q("co-cond-lab-med", [_ev(0, c0, "condition"), _ev(1, l0, "lab"), _ev(2, m0, "medication")],
           [(0, 1, "before", None), (1, 2, "before", None)], "patient"),
        _q("co-sepsis-lactate-abx", [_ev(0, "sepsis", "condition"), _ev(1, "lactate", "lab"),
                                     _ev(2, "vancomycin", "medication")],
           [(0, 1, "before", "P1D"), (1, 2, "before", "PT6H")], "encounter"),
    ]
    hidden = [
        _q("hi-cond-lab-med", [_ev(0, c0, "condition"), _ev(1, None, "lab", hidden=True), _ev(2, m0, "medication")],
           [(0, 1, "before", None), (1, 2, "before", None)], "encounter"),
        _q("hi-proc-med-lab", [_ev(0, p0, "procedure"), _ev(1, None, "medication", hidden=True),
                               _ev(2, l0, "lab")],
           [(0, 1, "before", "P1D"), (1, 2, "before", "P1D")], "episode"),
    ]
    return {"pairwise": pairwise, "compositional": compositional, "hidden": hidden}
