"""The isolated assessor: sees only the frozen EvidenceBundle and returns (S+, S-, label).

S+ = 0.45 S_tim + 0.22 S_num + 0.33 S_jdg+ and S- = S_jdg- (paper Eq. 6), mapped to the
four verdicts by thresholds frozen in resources/thresholds.json (Eq. 7: supported when
S+ >= tau+ and S- < tau-, conflicting when both, refuted when only S- >= tau-). Deterministic:
the same bundle always gives the same assessment (Eq. 8).

The scale
  S_tim   1 when one scope-consistent chain of items satisfies every relation from resolved
          times (0.8 when an order rests on a note's documentation bound), else 0.
  S_num   mean over the chain's items of what their values say (`value_strength`): a coded
          structured row or a measured value 1; a derived finding by how far its value is past
          its criterion, read from the item's value fields (`quantity`, and `reference`: the
          lowest prior value for a rise, the limit for above/below) and the packaged rule it
          names by code (`_past_criterion`): 0.6 at the criterion up to 1 at twice its margin (a
          KDIGO rise of 0.3 mg/dL over the lowest prior value is just past; 0.9 mg/dL is well
          past); a note mention 0.5.
  S_jdg+  mean over the chain's items of assertion certainty (certain 1, uncertain 0.5), times
          0.8 for each relation decided by an order a note states in words rather than by
          recorded times (a sentence is weaker evidence of order than two time stamps).
  S_jdg-  explicit, source-grounded counter-evidence, graded in `core.counter`: documented
          absence, a resolved reverse order (by how far past the contradiction), a note-stated
          reverse order (0.8), each times its certainty (uncertain weighs half), independent
          pieces combined as a noisy-OR; one uncertain negation alone (0.5) never reaches tau-.

Worked examples (the functions are the ones `assess` uses):

>>> score_plus(s_tim=1.0, s_num=1.0, s_jdg=1.0, complete=True)  # two coded, time-stamped rows
1.0
>>> score_plus(s_tim=1.0, s_num=1.0, s_jdg=0.75, complete=True)  # one endpoint uncertain
0.9175
>>> score_plus(s_tim=0.8, s_num=0.75, s_jdg=1.0, complete=True)  # a note mention, ordered by its date
0.855
>>> score_plus(s_tim=0.0, s_num=1.0, s_jdg=1.0, complete=False)  # both events, but no ordered chain
0.55
>>> _past_criterion(1.3, 1.0, "kdigo_rise", rise=0.3, ratio=1.5)  # creatinine 1.0 -> 1.3: just past KDIGO
0.6
>>> _past_criterion(1.45, 1.0, "kdigo_rise", rise=0.3, ratio=1.5)  # +0.45: half a margin further
0.8
>>> _past_criterion(1.9, 1.0, "kdigo_rise", rise=0.3, ratio=1.5)  # +0.9, three times the rise
1.0
>>> _past_criterion(5.8, 5.5, "above")  # potassium 5.8 over a 5.5 limit: 5.5% past it
0.8182
>>> _past_criterion(6.1, 5.5, "above"), _past_criterion(60.0, 70.0, "below")  # 11% over; glucose 60 under 70
(1.0, 1.0)
>>> from medeventgraph.core.decide.counter import combine_weights
>>> combine_weights([0.5]), combine_weights([0.5, 0.5]), combine_weights([1.0])  # S-: see core.counter
(0.5, 0.75, 1.0)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cache

from medeventgraph.core.decide.counter import counter_evidence, denies, grounds
from medeventgraph.core.evidence.contract import EvidenceBundle, EvidenceItem
from medeventgraph.core.evidence.coverage import CoverageRow
from medeventgraph.core.evidence.stated import StatedItem, stated_comparison, undefeated
from medeventgraph.core.evidence.timing import Comparison, Span, Timing, compare, span_of
from medeventgraph.core.index.derive import DeriveRule, load_rules
from medeventgraph.core.query.model import RelationSpec, Scope
from medeventgraph.core.query.verdict import FailureType, Label
from medeventgraph.model.occurrence import Origin
from medeventgraph.model.packaged import packaged_model

__all__ = ["Assessment", "RelationFinding", "Structure", "Thresholds", "assess", "combine", "load_thresholds", "score_plus", "structure", "value_strength"]

ALPHA_TIM, ALPHA_NUM, ALPHA_JDG = 0.45, 0.22, 0.33


@dataclass(frozen=True)
class Thresholds:
    tau_plus: float
    tau_minus: float


@cache
def load_thresholds() -> Thresholds:
    return packaged_model("medeventgraph.core", "thresholds.json", Thresholds)


@dataclass(frozen=True)
class RelationFinding:
    relation: RelationSpec
    timing: Timing
    pair: tuple[str, ...]
    explanation: str
    stated: str | None = None  # id of the note-stated order that decided it (core.stated)


@dataclass(frozen=True)
class Assessment:
    label: Label
    s_plus: float
    s_minus: float
    failure: FailureType | None
    relations: tuple[RelationFinding, ...]
    supporting: tuple[str, ...]  # occurrence ids of the chosen chain
    countering: tuple[str, ...]  # occurrence ids of counter-evidence


@dataclass(frozen=True)
class Structure:
    """What every assessor shares, computed from the bundle alone: items per event, spans,
    grounding, the chosen chain and its timing findings, S_tim and S_num."""

    by_event: dict[str, list[EvidenceItem]]
    spans: dict[str, Span | None]
    stated: dict[tuple[str, str], StatedItem]  # (earlier, later) occurrence ids -> the stated order
    grounding: dict[str, list[EvidenceItem]]
    missing: list[str]
    chain: dict[str, EvidenceItem] | None
    findings: list[RelationFinding]
    complete: bool
    members: list[EvidenceItem]
    s_tim: float
    s_num: float
    elsewhere: bool = False  # the record grounds every event, but no scope unit all of them (bundle coverage)


def structure(bundle: EvidenceBundle) -> Structure:
    query = bundle.query
    by_event: dict[str, list[EvidenceItem]] = defaultdict(list)
    for item in bundle.items:
        for e in item.events:
            by_event[e].append(item)
    spans = _untime_episode_mentions(by_event, {i.occurrence: span_of(i.time, i.documented, i.open_end)
                                                for i in bundle.items})
    grounding = {e.id: [i for i in by_event[e.id] if grounds(i)] for e in query.events}
    missing = [e for e, items in grounding.items() if not items]
    grounded = {i.occurrence: grounds(i) for i in bundle.items}
    stated = {(s.earlier, s.later): s for s in undefeated(bundle.stated)
              if grounded.get(s.earlier) and grounded.get(s.later)}

    chain, findings, complete = _best_chain(query.relations, grounding, spans, stated)
    s_tim = 0.0
    if complete and chain is not None:
        s_tim = 1.0 if all((sp := spans[i.occurrence]) is not None and sp.resolved for i in chain.values()) else 0.8
    members = list(chain.values()) if chain else []
    s_num = _mean([value_strength(i) for i in members])
    elsewhere = query.scope is not Scope.PATIENT and _only_apart(bundle.coverage, [e.id for e in query.events
                                                                                  if not e.hidden])
    return Structure(by_event, spans, stated, grounding, missing, chain, findings, complete, members, s_tim, s_num,
                     elsewhere)


def _only_apart(coverage: tuple[CoverageRow, ...], events: list[str]) -> bool:
    """The record grounds each event in some scope unit, and no unit grounds them all: read from
    the bundle's coverage rows (what exhaustive grounding found), not from what discovery tried."""
    units: dict[str, set[str]] = {e: set() for e in events}
    for e, u, _, total in coverage:
        if e in units and total:
            units[e].add(u)
    return bool(events) and all(units.values()) and not set.intersection(*units.values())


def _untime_episode_mentions(
    by_event: dict[str, list[EvidenceItem]], spans: dict[str, Span | None]
) -> dict[str, Span | None]:
    """A note mention of an event made while a recorded, still-open episode of it (a structured
    condition without an end) is under way, in the same scope unit, is that episode: the time
    in its sentence ("... attributed to sepsis, and death was confirmed at 00:52") says when
    the condition was present, not when it began, so it cannot time the event. Such mentions
    keep no span; the recorded episode decides."""
    out = dict(spans)
    for items in by_event.values():
        episodes = [(i.unit, spans[i.occurrence]) for i in items
                    if i.open_end and i.origin is Origin.STRUCTURED and i.unit and grounds(i) and spans[i.occurrence]]
        for i in items:
            s = spans[i.occurrence]
            if i.origin is not Origin.NOTE or s is None or not s.resolved:
                continue
            if any(unit == i.unit and e.start.lo <= s.start.lo <= e.end.hi for unit, e in episodes if e):
                out[i.occurrence] = None
    return out


def combine(
    st: Structure,
    s_jdg_plus: float,
    counter: float,
    counter_failure: FailureType | None,
    supporting: tuple[str, ...],
    countering: tuple[str, ...],
    th: Thresholds,
) -> Assessment:
    """Eq. 6-7 from the shared structure and the judgment axes, whoever judged."""
    s_plus = score_plus(st.s_tim, st.s_num, s_jdg_plus, st.complete)
    s_minus = round(counter, 4)
    label = _label(s_plus, s_minus, th)
    failure = None
    if label is not Label.SUPPORTED:
        failure = counter_failure if s_minus >= th.tau_minus else _failure(st.missing, st.by_event, st.findings, st.chain)
        if failure is FailureType.MISSING_ENDPOINT and st.elsewhere:
            failure = FailureType.SCOPE  # the endpoint exists, but only in another scope unit
    return Assessment(label, s_plus, s_minus, failure, tuple(st.findings), supporting, countering)


def assess(bundle: EvidenceBundle, thresholds: Thresholds | None = None) -> Assessment:
    th = thresholds or load_thresholds()
    st = structure(bundle)
    s_jdg_plus = _judged_plus(st)
    counter = counter_evidence(bundle.query.relations, st.by_event, st.grounding, st.spans, st.stated.values(),
                               bundle.coverage)
    supporting = tuple(sorted(i.occurrence for i in st.members)) if st.complete else ()
    if st.complete:
        supporting = tuple(sorted({*supporting, *(f.stated for f in st.findings if f.stated)}))
    return combine(st, s_jdg_plus, counter.s_minus, counter.failure, supporting, tuple(sorted(counter.ids)), th)


def score_plus(s_tim: float, s_num: float, s_jdg: float, complete: bool) -> float:
    """Eq. 6; without a complete chain there is no timing term."""
    return round((ALPHA_TIM * s_tim if complete else 0.0) + ALPHA_NUM * s_num + ALPHA_JDG * s_jdg, 4)


_STATED_FACTOR = 0.8  # per relation decided by a note-stated order instead of recorded times


def _judged_plus(st: Structure) -> float:
    """S_jdg+: assertion certainty of the chain's items, weakened per stated-order decision."""
    certainty = _mean([0.5 if i.assertion.uncertain else 1.0 for i in st.members])
    stated = sum(1 for f in st.findings if f.stated) if st.complete else 0
    return round(certainty * _STATED_FACTOR ** stated, 4)


@cache
def _derive_rules() -> dict[str, DeriveRule]:
    return {r.id: r for r in load_rules()}


def _past_criterion(value: float, reference: float, test: str, *, rise: float = 0.0, ratio: float = 0.0) -> float:
    """How far a derived finding's value is past its criterion, from its structured fields:
    the value, the reference it was compared with (the lowest prior value for a rise, the
    limit for above/below) and the rule's test. 0.6 exactly at the criterion, rising
    linearly to 1: at twice the criterion's margin for a rise (KDIGO: +0.3 mg/dL or 1.5x),
    at 10% past the limit for above/below."""
    if test == "kdigo_rise":
        past = max((value - reference) / rise if rise else 0.0, (value / reference) / ratio if reference > 0 and ratio else 0.0)
        return round(min(1.0, 0.6 + 0.4 * max(0.0, past - 1.0)), 4)
    if reference <= 0 or value <= 0:
        return 0.6
    beyond = value / reference if test == "above" else reference / value
    return round(min(1.0, 0.6 + 0.4 * max(0.0, beyond - 1.0) / 0.1), 4)


def value_strength(item: EvidenceItem) -> float:
    """S_num for one item: what its content and values say about the event (see the scale).
    A derived finding is read from its value fields (quantity, reference) and the packaged
    rule it names by code; 0.6 (just at the criterion) when a field is missing."""
    if item.origin is Origin.NOTE:
        return 0.5
    if item.origin is Origin.DERIVED:
        rule = next((_derive_rules().get(c.split("|", 1)[1]) for c in item.codes if c.startswith(_DERIVE_SYSTEM)), None)
        v = item.value
        if rule is None or v is None or v.quantity is None or v.reference is None:
            return 0.6
        return _past_criterion(v.quantity, v.reference, rule.test, rise=rule.abs_rise or 0.0, ratio=rule.ratio or 0.0)
    return 1.0


_DERIVE_SYSTEM = "urn:medeventgraph:derive|"


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _label(s_plus: float, s_minus: float, th: Thresholds) -> Label:
    if s_plus >= th.tau_plus:
        return Label.CONFLICTING if s_minus >= th.tau_minus else Label.SUPPORTED
    return Label.REFUTED if s_minus >= th.tau_minus else Label.INSUFFICIENT


def _unit_groups(grounding: dict[str, list[EvidenceItem]]) -> dict[str, dict[str, list[EvidenceItem]]]:
    """Items per scope unit per event; scope-unknown items cannot by themselves support."""
    units: dict[str, dict[str, list[EvidenceItem]]] = defaultdict(lambda: defaultdict(list))
    for event, items in grounding.items():
        for i in items:
            if i.unit:
                units[i.unit][event].append(i)
    return units


def _best_chain(
    relations: list[RelationSpec],
    grounding: dict[str, list[EvidenceItem]],
    spans: dict[str, Span | None],
    stated: dict[tuple[str, str], StatedItem] | None = None,
) -> tuple[dict[str, EvidenceItem] | None, list[RelationFinding], bool]:
    """A chain (one item per event, all in one scope unit) satisfying every relation, if any
    (then the flag is True); otherwise the unit whose best pairs satisfy the most relations,
    for the explanation only: those pairs may use different items for one event, so they can
    never make a complete chain.

    Units and items are visited in id order, so the choice depends on the bundle only.
    """
    events = list(grounding)
    units = [(u, per) for u, per in sorted(_unit_groups(grounding).items()) if all(per.get(e) for e in events)]
    if not units:
        return None, [RelationFinding(r, Timing.UNKNOWN, (), "no scope unit grounds every event") for r in relations], False
    said = stated or {}
    for _, per_event in units:
        chain = _complete_chain(relations, events, per_event, spans, said)
        if chain is not None:
            return chain, [_finding(r, chain[r.source], chain[r.target], spans, said) for r in relations], True
    best: tuple[int, dict[str, EvidenceItem], list[RelationFinding]] | None = None
    for _, per_event in units:
        findings = [_alone(_best_pair(r, per_event, spans, said)) for r in relations]
        score = sum(f.timing is Timing.COMPATIBLE for f in findings)
        if best is None or score > best[0]:
            chain = {e: min(per_event[e], key=lambda i: _preference(i, spans)) for e in events}
            best = (score, chain, findings)
    assert best is not None
    return best[1], best[2], False


_RANK = {Timing.COMPATIBLE: 0, Timing.UNKNOWN: 1, Timing.INCOMPATIBLE: 2}
_SEARCH_BUDGET = 200_000  # comparisons per unit; bounds pathological compositional searches


def _preference(item: EvidenceItem, spans: dict[str, Span | None]) -> tuple[int, int, str]:
    """Try time-resolved structured items first: the most precise evidence decides."""
    span = spans.get(item.occurrence)
    return (0 if span is not None and span.resolved else 1, 1 if item.origin is Origin.NOTE else 0, item.occurrence)


def _alone(f: RelationFinding) -> RelationFinding:
    note = "; best pair for this relation alone, no one chain satisfies every relation"
    return replace(f, explanation=f.explanation + note) if f.relation is not None else f


def _compare(r: RelationSpec, a: EvidenceItem, b: EvidenceItem, spans, stated) -> tuple[Comparison, str | None]:
    """Recorded times first; where they leave the order unknown, the note's stated order."""
    cmp = compare(spans[a.occurrence], spans[b.occurrence], r.type, r.window)
    if cmp.timing is Timing.UNKNOWN and stated:
        said = stated_comparison(r, a.occurrence, b.occurrence, stated, spans[a.occurrence], spans[b.occurrence])
        if said is not None:
            return said[0], said[1].id
    return cmp, None


def _finding(r: RelationSpec, a: EvidenceItem, b: EvidenceItem, spans, stated=None) -> RelationFinding:
    cmp, said = _compare(r, a, b, spans, stated)
    pair = (a.occurrence, b.occurrence)
    return RelationFinding(r, cmp.timing, pair, _explain(r, a, b, cmp), said)


def _best_pair(r: RelationSpec, per_event, spans, stated=None) -> RelationFinding:
    best = None
    for a in sorted(per_event[r.source], key=lambda i: _preference(i, spans)):
        for b in sorted(per_event[r.target], key=lambda i: _preference(i, spans)):
            f = _finding(r, a, b, spans, stated)
            if best is None or _RANK[f.timing] < _RANK[best.timing]:
                best = f
                if f.timing is Timing.COMPATIBLE:
                    return f
    assert best is not None
    return best


def _complete_chain(relations, events, per_event, spans, stated=None) -> dict[str, EvidenceItem] | None:
    """Depth-first search for an assignment where every relation is compatible."""
    options = {e: sorted(per_event[e], key=lambda i: _preference(i, spans)) for e in events}
    budget = [_SEARCH_BUDGET]
    assign: dict[str, EvidenceItem] = {}

    def closed_ok(event: str) -> bool:
        for r in relations:
            if event in (r.source, r.target) and r.source in assign and r.target in assign:
                budget[0] -= 1
                a, b = assign[r.source], assign[r.target]
                if _compare(r, a, b, spans, stated)[0].timing is not Timing.COMPATIBLE:
                    return False
        return True

    def walk(k: int) -> bool:
        if k == len(events):
            return True
        for item in options[events[k]]:
            if budget[0] <= 0:
                return False
            assign[events[k]] = item
            if closed_ok(events[k]) and walk(k + 1):
                return True
        assign.pop(events[k], None)
        return False

    return dict(assign) if walk(0) else None


def _explain(r: RelationSpec, a: EvidenceItem, b: EvidenceItem, cmp: Comparison) -> str:
    def when(i: EvidenceItem) -> str:
        t = i.time
        if t.resolved and t.start:
            return f"{t.start.isoformat()} ({t.granularity.value})"
        if i.documented and i.documented.start:
            return f"no later than {i.documented.start.isoformat()} (note date)"
        return "unknown time"

    window = f" within {r.within}" if r.within else ""
    return f"{a.occurrence} at {when(a)} {r.type.value}{window} {b.occurrence} at {when(b)}: {cmp.timing.value} ({cmp.reason})"


def _failure(missing, by_event, findings, chain) -> FailureType:
    if missing:
        only_denied = all(by_event.get(e) and all(denies(i) for i in by_event[e]) for e in missing)
        return FailureType.NEGATED if only_denied else FailureType.MISSING_ENDPOINT
    if chain is None:
        return FailureType.SCOPE
    if len(findings) > 1 and any(f.timing is Timing.COMPATIBLE for f in findings):
        return FailureType.UNRESOLVED_TRANSITION
    return FailureType.UNRESOLVED_TIME
