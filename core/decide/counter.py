"""S- = S_jdg-: the refutation axis, graded (paper Eq. 6), from the bundle alone.

Only explicit, source-grounded counter-evidence raises S-, each piece citing the items that
ground it. Every piece weighs its strength times its certainty:

  documented absence  a negated mention, a not-done or refuted row of an endpoint, in scope,
                      where the relation puts the event (after the anchor for "before", ...):
                      strength 1; one piece per item. A structured not-done row, or a note's
                      denial stating no time of its own (read at the note's date), is no
                      absence where the unit affirms the same event without hedging.
  recorded order      every time-resolved pair of a relation, in every scope unit the record
                      grounds both of its events in, contradicts it; one piece per relation,
                      as strong as its closest pair is past the contradiction
                      (`_order_strength`). ORDER_SCALE (an hour) is the recording-delay scale:
                      stamps reversed by less than it may be charting order, not event order,
                      so they weigh below 0.6 (tau-), growing from 0 at level stamps; 0.6 an
                      hour reversed, 1 an hour further. Outside `within` likewise: below 0.6 for
                      less than an hour past the window, 0.6 an hour past it, 1 a whole window
                      further.
  stated order        a note sentence states the reverse order between two grounding mentions:
                      strength 0.8 (STATED_STRENGTH, as on the support side: a sentence is
                      weaker evidence of order than two time stamps); one piece per statement.
  certainty           1 when every item of the piece is asserted without hedging, 0.5 when one
                      is uncertain ("possible", "cannot rule out"): uncertain evidence weighs half.

Completeness: "every pair contradicts" and "documented absent where the event should be" are
claims about all of the record's occurrences, so an order or absence piece needs the bundle to
hold every grounded occurrence of both of its events in the unit (core.coverage): a bundle a
budget cut short never refutes by them. A stated order is one sentence's explicit claim and
needs no completeness.

Independent pieces combine as a noisy-OR, S- = 1 - prod(1 - w): each further piece raises S-,
none alone is exceeded, and S- stays in [0, 1]. tau- is chosen on dev above 0.5 (tuning.py), so
one uncertain negation (0.5) never refutes alone, two (0.75) can.

>>> combine_weights([_piece_weight(1.0, uncertain=True)])  # "cannot rule out no bleeding": half
0.5
>>> combine_weights([0.5, 0.5])  # two independent uncertain negations
0.75
>>> combine_weights([1.0]), combine_weights([])  # a certain negation; no counter-evidence
(1.0, 0.0)
>>> _order_strength("opposite order", reversed_by=timedelta(seconds=73))  # within charting delays
0.0122
>>> _order_strength("opposite order", reversed_by=timedelta(minutes=30))  # still below tau-
0.3
>>> _order_strength("opposite order", reversed_by=timedelta(minutes=90))  # past the delay scale
0.8
>>> _order_strength("opposite order", reversed_by=timedelta(days=2))  # past any charting delay
1.0
>>> _order_strength("outside window", gap=timedelta(minutes=75), within=timedelta(hours=1))  # 15 min over
0.15
>>> _order_strength("outside window", gap=timedelta(hours=31), within=timedelta(hours=24))  # 7 h over
0.7
>>> _order_strength("outside window", gap=timedelta(hours=49), within=timedelta(hours=24))
1.0
>>> combine_weights([_order_strength("opposite order", reversed_by=timedelta(minutes=90)),
...                  _piece_weight(STATED_STRENGTH)])  # recorded order and a note's words agree
0.96
>>> _piece_weight(STATED_STRENGTH, uncertain=True)  # "possibly before": a hedged stated order
0.4
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from medeventgraph.core.evidence.contract import EvidenceItem
from medeventgraph.core.evidence.coverage import CoverageRow, complete_units
from medeventgraph.core.evidence.stated import StatedItem, stated_counter
from medeventgraph.core.evidence.timing import Span, Timing, Window, compare, span_of
from medeventgraph.core.query.model import RelationSpec, RelationType
from medeventgraph.core.query.verdict import FailureType
from medeventgraph.model.occurrence import Origin

__all__ = ["ORDER_SCALE", "STATED_STRENGTH", "Counter", "Piece", "combine_weights", "counter_evidence", "denies",
           "grounds"]

ORDER_SCALE = timedelta(hours=1)  # recording delays: within it, reversed stamps may be charting order
STATED_STRENGTH = 0.8
UNCERTAIN = 0.5
_AT_CRITERION = 0.6  # a contradiction one delay scale past weighs this (tau-); as S_num's "just past"
_MID_CAP = timedelta(days=1)  # an open or coarse window says little about where in it the event lies
# Equal weights name the failure in this order: two time stamps, then a note's words, then absence.
_PRIORITY = {FailureType.WINDOW: 0, FailureType.OPPOSITE_ORDER: 0, "stated": 1, FailureType.NEGATED: 2}


def grounds(item: EvidenceItem) -> bool:
    """The item says the event happened to the patient. A note's past history ("history of X",
    a past medical history section) says so too: it happened before the note, which the item's
    time (no later than the note) already says; a record's "History of X" display does not time
    the event it names, so a structured historical item does not ground."""
    a = item.assertion
    happened = a.affirmed_current or (a.historical and item.origin is Origin.NOTE
                                      and not (a.negated or a.hypothetical or a.family))
    return happened and item.status not in ("not-done", "refuted", "entered-in-error")


def denies(item: EvidenceItem) -> bool:
    a = item.assertion
    explicit = a.negated or item.status in ("not-done", "refuted")
    return explicit and not (a.hypothetical or a.family or a.historical)


@dataclass(frozen=True)
class Piece:
    """One independent piece of counter-evidence: its weight and the items that ground it."""

    weight: float
    failure: FailureType
    ids: tuple[str, ...]
    stated: bool = False


@dataclass(frozen=True)
class Counter:
    s_minus: float
    ids: frozenset[str]
    failure: FailureType | None
    pieces: tuple[Piece, ...]


def _piece_weight(strength: float, *, uncertain: bool = False) -> float:
    return round(strength * (UNCERTAIN if uncertain else 1.0), 4)


def combine_weights(weights: Iterable[float]) -> float:
    """Noisy-OR of independent pieces: 1 - prod(1 - w)."""
    rest = 1.0
    for w in weights:
        rest *= 1.0 - min(1.0, max(0.0, w))
    return round(1.0 - rest, 4)


def _order_strength(reason: str, *, reversed_by: timedelta = timedelta(0), gap: timedelta = timedelta(0),
                   within: timedelta | None = None) -> float:
    """How far a resolved pair is past contradicting its relation. Up to ORDER_SCALE past (how
    far reversed, how far apart for disjoint intervals, how far beyond `within`) it weighs
    below 0.6, from 0; then 0.6 rising to 1 one margin further: ORDER_SCALE for an order,
    `within` itself for a window."""
    if reason == "outside window" and within is not None:
        excess, margin = gap - within, (within if within > timedelta(0) else ORDER_SCALE)
    else:
        excess, margin = max(reversed_by, gap), ORDER_SCALE
    if excess < ORDER_SCALE:
        return round(_AT_CRITERION * max(0.0, excess / ORDER_SCALE), 4)
    return round(_AT_CRITERION + (1 - _AT_CRITERION) * min(1.0, (excess - ORDER_SCALE) / margin), 4)


def counter_evidence(relations: list[RelationSpec], by_event: Mapping[str, list[EvidenceItem]],
                     grounding: Mapping[str, list[EvidenceItem]], spans: Mapping[str, Span | None],
                     stated: Iterable[StatedItem], coverage: Iterable[CoverageRow] = ()) -> Counter:
    """Every piece of counter-evidence in the bundle, weighed and combined. `coverage`: the
    bundle's rows (core.coverage); without them no order or absence piece can be complete."""
    rows = tuple(coverage)
    complete = complete_units(rows)
    grounded: dict[str, set[str]] = {}
    for e, u, _, total in rows:
        if total:
            grounded.setdefault(e, set()).add(u)
    items = {i.occurrence: i for group in by_event.values() for i in group}
    pieces = [*_absence_pieces(relations, by_event, grounding, spans, complete),
              *_order_pieces(relations, grounding, spans, complete, grounded),
              *_stated_pieces(relations, stated, items)]
    if not pieces:
        return Counter(0.0, frozenset(), None, ())
    top = min(pieces, key=lambda p: (-p.weight, _PRIORITY["stated" if p.stated else p.failure]))
    ids = frozenset(i for p in pieces for i in p.ids)
    return Counter(combine_weights(p.weight for p in pieces), ids, top.failure, tuple(pieces))


def _absence_pieces(relations, by_event, grounding, spans, complete) -> list[Piece]:
    absent: dict[str, EvidenceItem] = {}
    for r in relations:
        for negated_event, other_event in ((r.target, r.source), (r.source, r.target)):
            anchors = grounding.get(other_event, [])
            given_units = {i.unit for i in grounding.get(negated_event, []) if i.unit and not i.assertion.uncertain}
            for item in by_event.get(negated_event, []):
                if not denies(item) or not item.unit or item.occurrence in absent:
                    continue
                if (negated_event, item.unit) not in complete or (other_event, item.unit) not in complete:
                    continue  # the bundle may lack the affirmed occurrence, or the anchor it would follow
                if _missed_instance(item) and item.unit in given_units:
                    continue
                if any(anchor.unit == item.unit and _negation_in_window(
                        r, negated_event == r.target, spans.get(anchor.occurrence), item) for anchor in anchors):
                    absent[item.occurrence] = item
    return [Piece(_piece_weight(1.0, uncertain=i.assertion.uncertain), FailureType.NEGATED, (o,))
            for o, i in sorted(absent.items())]


def _missed_instance(item: EvidenceItem) -> bool:
    """A structured not-done row (one skipped dose, one cancelled draw) records that *that*
    instance did not happen; a note's denial that states no time of its own ("no witnesses to his
    syncopal episodes", "no further chest pain") is read at the note's date, not at the event's.
    Either way, when the same event is affirmed without hedging in the same scope unit it is not
    documentation that the event was absent."""
    if item.origin is Origin.STRUCTURED:
        return item.status == "not-done" and not item.assertion.uncertain
    return item.origin is Origin.NOTE and not item.time.resolved


def _negation_in_window(r: RelationSpec, negated_is_target: bool, anchor: Span | None, item: EvidenceItem) -> bool:
    """Is the documented absence where the relation says the event should be?"""
    when = span_of(item.time, None) or span_of(item.documented or item.time, None)
    if anchor is None or when is None:
        return False
    if r.type is RelationType.OVERLAPS:
        return compare(anchor, when, RelationType.OVERLAPS, None).timing is Timing.COMPATIBLE
    # "A before B": B absent after A; "A after B": B absent before A (mirror for the source side).
    target_after = (r.type is RelationType.BEFORE) == negated_is_target
    first, second = (anchor, when) if target_after else (when, anchor)
    if not first.start.hi <= second.start.lo:
        return False
    return r.window is None or second.start.lo - first.start.hi <= r.window


def _mid(w: Window):
    return w.lo + min(w.hi - w.lo, _MID_CAP) / 2


def _pair_strength(r: RelationSpec, sa: Span, sb: Span, reason: str) -> float:
    """`_order_strength` of one contradicting pair (a is the relation's source, b its target)."""
    if r.type is RelationType.OVERLAPS:
        gap = max(sb.start.lo - sa.end.hi, sa.start.lo - sb.end.hi)
        return _order_strength(reason, gap=gap)
    first, then = (sa, sb) if r.type is RelationType.BEFORE else (sb, sa)  # the order the claim wants
    if reason == "outside window":
        return _order_strength(reason, gap=_mid(then.start) - _mid(first.start), within=r.window)
    return _order_strength(reason, reversed_by=_mid(first.start) - _mid(then.start))


def _order_pieces(relations, grounding, spans, complete, grounded) -> list[Piece]:
    return [p for r in relations if (p := _order_piece(r, grounding, spans, complete, grounded)) is not None]


def _order_piece(r: RelationSpec, grounding, spans, complete=frozenset(), grounded=None) -> Piece | None:
    """When every time-resolved pair of `r`, in every scope unit, contradicts it: one piece, as
    strong as the pair closest to satisfying it (the conservative reading). "Every" needs the
    bundle complete for both events in each unit the record grounds them both in, and in each
    unit its pairs are in: a pair left out may be the one in the stated order."""
    recorded = grounded or {}
    units = recorded.get(r.source, set()) & recorded.get(r.target, set())
    units |= {a.unit for a in grounding.get(r.source, [])} & {b.unit for b in grounding.get(r.target, [])}
    if any((e, u) not in complete for u in units if u for e in (r.source, r.target)):
        return None
    weights: list[float] = []
    reasons: set[str] = set()
    ids: set[str] = set()
    for a in grounding.get(r.source, []):
        for b in grounding.get(r.target, []):
            if not a.unit or a.unit != b.unit:
                continue
            sa, sb = spans.get(a.occurrence), spans.get(b.occurrence)
            if not (sa and sb and sa.resolved and sb.resolved):
                continue
            cmp = compare(sa, sb, r.type, r.window)
            if cmp.timing is not Timing.INCOMPATIBLE:
                return None
            hedged = a.assertion.uncertain or b.assertion.uncertain
            weights.append(_piece_weight(_pair_strength(r, sa, sb, cmp.reason), uncertain=hedged))
            reasons.add(cmp.reason)
            ids.update((a.occurrence, b.occurrence))
    if not weights:
        return None
    failure = FailureType.WINDOW if reasons == {"outside window"} else FailureType.OPPOSITE_ORDER
    return Piece(min(weights), failure, tuple(sorted(ids)))


def _stated_pieces(relations, stated: Iterable[StatedItem], items: Mapping[str, EvidenceItem]) -> list[Piece]:
    """A note sentence stating the reverse order between two grounding mentions."""
    out = []
    for s in stated:
        earlier, later = items.get(s.earlier), items.get(s.later)
        if earlier is None or later is None:
            continue
        _, ids, failure = stated_counter(relations, [s], {s.earlier: grounds(earlier), s.later: grounds(later)})
        if failure is not None:
            hedged = earlier.assertion.uncertain or later.assertion.uncertain
            out.append(Piece(_piece_weight(STATED_STRENGTH, uncertain=hedged), failure, tuple(sorted(ids)), stated=True))
    return out
