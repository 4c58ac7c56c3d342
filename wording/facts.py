"""The facts a wording template is filled with, read from the verdict (and its query).

Events are named in the order the question expects them to happen: `first` is the one that
should come earlier ("vancomycin" in "AKI after vancomycin"), `second` the later one. A class
name in the question ("nephrotoxic drug") is replaced by the member the deciding entry names
("vancomycin") when the lexicon finds it there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from medeventgraph.core import EvidenceOut, RelationOut, Verdict, VerificationQuery
from medeventgraph.wording.computed import computed_name, is_computed
from medeventgraph.wording.templates import Wording
from medeventgraph.wording.times import (
    When,
    date_range,
    day_text,
    duration_words,
    gap_words,
    interval,
    item_when,
    when_text,
)

__all__ = ["Facts", "affirmed", "event_names", "facts_for"]

_NOT_CURRENT = ("negated", "hypothetical", "historical", "family")


@dataclass(frozen=True)
class Facts:
    values: dict[str, str]
    variant: str | None
    deciding: tuple[str, ...]  # occurrence ids of the entries to show


def affirmed(item: EvidenceOut) -> bool:
    return not any(item.assertion.get(k) for k in _NOT_CURRENT)


def _ordered_ends(rel: RelationOut) -> tuple[str, str]:
    """(earlier event, later event) as the relation states them."""
    return (rel.target, rel.source) if rel.type == "after" else (rel.source, rel.target)


@lru_cache(maxsize=512)
def _member_terms(text: str) -> tuple[tuple[str, str], ...]:
    """(surface term, member concept id) for a class name; empty for anything else."""
    from medeventgraph.core import load_lexicon, normalize_text

    lex = load_lexicon()
    expanded = lex.expand(text)
    if expanded.via != "class":
        return ()
    pairs = [(normalize_text(s), cid) for cid in expanded.concepts for s in lex.concepts[cid].synonyms]
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


def _name(event: str, query: VerificationQuery | None, item: EvidenceOut | None) -> str:
    spec = next((e for e in query.events if e.id == event), None) if query else None
    base = (spec.text or spec.kind or event) if spec else (item.concept if item else event)
    if spec and spec.text and item is not None:
        from medeventgraph.core import normalize_text

        concept = f" {normalize_text(item.concept)} "
        for term, cid in _member_terms(spec.text):
            if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", concept):
                return cid
    return " ".join(base.split())


def _key(item: EvidenceOut) -> tuple[int, str]:
    """Resolved times after bounds after unknown: the last of a sorted list is the latest
    entry whose time is actually recorded."""
    w = item_when(item)
    return ((1 if w.bound else 2), w.start.isoformat()) if w else (0, "")


def _on_text(w: When | None) -> str:
    """"on 3 Feb 2015", "in a note of 9 Feb 2015", "at an unknown time"."""
    if w is None:
        return "at an unknown time"
    if w.bound:
        return "in a " + when_text(w)
    return "on " + when_text(w)


class _Reader:
    def __init__(self, verdict: Verdict, query: VerificationQuery | None, w: Wording):
        self.v, self.q, self.w = verdict, query, w
        self.by_id = {e.occurrence: e for e in verdict.evidence}
        order = [e.id for e in query.events] if query else []
        for r in verdict.relations:
            order += [r.source, r.target]
        self.events = list(dict.fromkeys(order))
        self.grounded = {e: sorted((i for i in verdict.evidence if e in i.events and affirmed(i)), key=_key)
                         for e in self.events}
        self.chosen: dict[str, EvidenceOut] = {}
        for r in verdict.relations:
            for event, occ in zip((r.source, r.target), r.pair, strict=False):
                if occ in self.by_id:
                    self.chosen.setdefault(event, self.by_id[occ])

    def item(self, event: str, latest: bool = True) -> EvidenceOut | None:
        if event in self.chosen:
            return self.chosen[event]
        items = self.grounded.get(event) or []
        if not items:
            return None
        if latest:
            return items[-1]
        best = max(_key(i)[0] for i in items)
        return next(i for i in items if _key(i)[0] == best)

    def choose_resolved_pair(self, first: str, second: str, closest_reverse: bool) -> None:
        """For an order or window refutation: the closest pair of countering entries whose times
        are both recorded, so the dates shown are the ones that refute."""
        def resolved(event: str) -> list[EvidenceOut]:
            items = [i for i in self.v.evidence if event in i.events and i.polarity == "counters" and affirmed(i)]
            return sorted((i for i in items if _key(i)[0] == 2), key=_key)

        a, b = resolved(first), resolved(second)
        if a and b:
            self.chosen[first], self.chosen[second] = (a[0], b[-1]) if closest_reverse else (a[-1], b[0])

    def name(self, event: str) -> str:
        return _name(event, self.q, self.item(event))

    def finding_name(self, event: str) -> str:
        """The event as the finding names it: a deciding entry the project computed from values is
        named as that computation, not as the condition the question asked about."""
        item = self.item(event)
        return computed_name(item, self.w) if item is not None and is_computed(item) else self.name(event)

    def documented(self, *events: str) -> str:
        """" documented" unless an entry deciding one of `events` was computed (nobody documented it)."""
        return "" if any(is_computed(self.item(e)) for e in events) else self.w.documented_word

    def missing(self) -> list[str]:
        return [e for e in self.events if not self.grounded.get(e)]


def _relation(v: Verdict, missing: list[str]) -> RelationOut | None:
    if not v.relations:
        return None
    if missing:
        return next((r for r in v.relations if r.source in missing or r.target in missing), v.relations[0])
    if v.verdict.value == "supported":
        return v.relations[0]
    return next((r for r in v.relations if r.timing != "compatible"), v.relations[0])


def _counter(rd: _Reader, rel_ends: tuple[str, str]) -> EvidenceOut | None:
    counters = [i for i in rd.v.evidence if i.polarity == "counters" and not affirmed(i)]
    if not counters:
        counters = [i for e in rel_ends for i in rd.v.evidence if e in i.events and i.assertion.get("negated")]
    return max(counters, key=_key) if counters else None


def event_names(verdict: Verdict, query: VerificationQuery | None, w: Wording) -> list[tuple[str, str]]:
    """(event id, name) in the question's order, named as the wording names them."""
    rd = _Reader(verdict, query, w)
    return [(e, rd.name(e)) for e in rd.events]


def facts_for(verdict: Verdict, query: VerificationQuery | None, w: Wording) -> Facts:
    rd = _Reader(verdict, query, w)
    missing = rd.missing()
    rel = _relation(verdict, missing)
    first, second = _ordered_ends(rel) if rel else ((rd.events + ["first", "second"])[:2])
    overlaps = rel is not None and rel.type == "overlaps"
    failure = verdict.failure.value if verdict.failure else None
    if failure in ("opposite_order", "window") and verdict.verdict.value == "refuted":
        rd.choose_resolved_pair(first, second, closest_reverse=failure == "opposite_order")
    a, b = rd.item(first), rd.item(second, latest=False)
    wa, wb = (item_when(a) if a else None), (item_when(b) if b else None)
    vals: dict[str, str] = {}
    for role, event in (("first", first), ("second", second)):
        vals[role] = rd.finding_name(event)
        vals[f"{role}_s"] = w.short(vals[role])
        vals[f"{role}_documented"] = rd.documented(event)
    vals["pair_documented"] = rd.documented(first, second)
    vals["first_date"], vals["second_date"] = when_text(wa), when_text(wb)
    vals["first_on"], vals["second_on"] = _on_text(wa), _on_text(wb)
    vals.update(_gaps(wa, wb))
    vals.update(_window(rel.within if rel else None))
    vals["relation_words"] = "at the same time as" if overlaps else "after"
    scope = query.scope.value if query else "patient"
    vals["scope"] = w.scope_words[scope]
    vals["scope_short"] = w.scope_words[scope]
    vals["scope_clause"] = "" if scope == "patient" else " " + w.scope_words[scope]
    vals.update(_endpoint_dates(rd, first, second))
    counter = _counter(rd, (first, second))
    denied = next((e for e in (second, first) if counter is not None and e in counter.events), second)
    other = first if denied == second else second
    vals.update(denied=rd.finding_name(denied), other=rd.finding_name(other), other_date=vals[f"{'first' if other == first else 'second'}_date"],
                other_on=vals[f"{'first' if other == first else 'second'}_on"])
    vals["denied_s"], vals["other_s"] = w.short(vals["denied"]), w.short(vals["other"])
    vals["denied_rel"] = "during" if overlaps else ("after" if denied == second else "before")
    cw = item_when(counter) if counter else None
    vals["counter_date"] = when_text(cw)
    vals["counter_day"] = when_text(cw, with_time=False)
    vals.update(_chain(rd, verdict))
    vals["note_basis"] = _note_basis(rd, rel)
    variant = _variant(verdict, rel, missing, first, second)
    if variant == "chain" or (verdict.failure and verdict.failure.value == "unresolved_transition"):
        vals["dates"] = vals["chain_dates"]
    vals.pop("chain_dates", None)
    deciding = _deciding(rd, verdict, missing, counter)
    return Facts(vals, variant, deciding)


def _gaps(wa: When | None, wb: When | None) -> dict[str, str]:
    out = {"gap_after": "after", "gap_before": "before", "gap_later": "later", "dates": "dates unknown"}
    if wa is None or wb is None:
        known = wa or wb
        if known is not None:
            out["dates"] = when_text(known, with_time=False)
        return out
    lo, hi = sorted((wa, wb), key=lambda x: x.start)
    both_fine_same_day = lo.fine and hi.fine and lo.start.date() == hi.start.date()
    out["dates"] = date_range(lo.start, hi.start, with_time=both_fine_same_day)
    if not (wa.exact and wb.exact):
        return out
    d, coarse = interval(wa, wb)
    if d.total_seconds() > 0:
        g = gap_words(d, coarse=coarse)
        out.update(gap_after=f"{g} after", gap_later=f"{g} later")
    elif d.total_seconds() < 0:
        out["gap_before"] = f"{gap_words(d, coarse=coarse)} before"
    elif coarse:
        out.update(gap_after="the same day as", gap_later="the same day")
    return out


def _window(within: str | None) -> dict[str, str]:
    if not within:
        return {"window": "", "window_words": "the time asked about", "window_ok": "", "window_clause": "",
                "window_after": " after it", "window_before": " before it"}
    words = duration_words(within)
    return {"window": f"within {words}", "window_words": words, "window_ok": f", within the {words} asked about",
            "window_clause": f" within {words}", "window_after": f" in the {words} after it",
            "window_before": f" in the {words} before it"}


def _endpoint_dates(rd: _Reader, first: str, second: str) -> dict[str, str]:
    last = rd.grounded.get(first) or []
    early = rd.item(second, latest=False) if rd.grounded.get(second) else None
    lw = item_when(last[-1]) if last else None
    ew = item_when(early) if early else None
    kind = last[-1].kind if last else ""
    return {"first_last_label": "last dose" if kind == "medication" else "last",
            "first_last_day": when_text(lw, with_time=False), "first_last_date": when_text(lw),
            "first_last_on": _on_text(lw), "second_first_on": _on_text(ew),
            "second_first_day": when_text(ew, with_time=False), "second_first_date": when_text(ew)}


def _chain(rd: _Reader, v: Verdict) -> dict[str, str]:
    events = rd.events
    names = [rd.finding_name(e) for e in events]
    dated = []
    whens = []
    for e, n in zip(events, names, strict=True):
        item = rd.chosen.get(e) or rd.item(e)
        wh = item_when(item) if item else None
        if wh:
            whens.append(wh.start)
        dated.append(f"{n} ({when_text(wh)})")
    steps = [f"{rd.finding_name(a)} then {rd.finding_name(b)}" for r in v.relations if r.timing == "compatible"
             for a, b in [_ordered_ends(r)]]
    dates = date_range(min(whens), max(whens)) if whens else "dates unknown"
    return {"chain_s": " → ".join(rd.w.short(n) for n in names), "chain_dated": " → ".join(dated),
            "ordered_steps": "; ".join(steps) or "none", "chain_dates": dates if len(whens) > 1 else
            (day_text(whens[0]) if whens else "dates unknown")}


_BASIS = re.compile(r"\(((?:stated|told)\b[^()]*)\)\s*$")


def _note_basis(rd: _Reader, rel: RelationOut | None) -> str:
    """Where a note-stated order came from, in words: "stated: 'subsequently'", "told in this
    order in the hospital course" (the relation evidence's own words), or "" for recorded times."""
    row = rd.by_id.get(rel.stated) if rel is not None and rel.stated else None
    found = _BASIS.search(row.concept) if row is not None else None
    return found.group(1) if found else ""


def _variant(v: Verdict, rel: RelationOut | None, missing: list[str], first: str, second: str) -> str | None:
    label = v.verdict.value
    if label == "supported":
        if len(v.relations) > 1:
            return "chain"
        overlap = rel is not None and rel.type == "overlaps"
        if rel is not None and rel.stated:
            return "stated_overlap" if overlap else "stated"
        return "overlap" if overlap else None
    if v.failure is not None and v.failure.value == "missing_endpoint":
        if first in missing and second in missing:
            return "both"
        return "first" if first in missing else "second"
    return None


def _deciding(rd: _Reader, v: Verdict, missing: list[str], counter: EvidenceOut | None) -> tuple[str, ...]:
    ids = [e.occurrence for e in v.evidence if e.polarity != "neutral"]
    ids += [occ for r in v.relations for occ in r.pair if occ in rd.by_id]
    if counter is not None:
        ids.append(counter.occurrence)
    if not ids:
        for e in rd.events:
            ids += [i.occurrence for i in (rd.grounded.get(e) or [])[-3:]]
    return tuple(dict.fromkeys(ids))
