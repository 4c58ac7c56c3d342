"""Order stated in a note's words, as bundle evidence: found, re-checked and weighed.

A stated order is admitted only between two admitted note items of one note text, each bound
to one end of a query relation, with a cue the rule data (nlp/resources/order_rules.json)
knows at the cited span. The contract re-checks each from the item and the query alone
(`check_stated`). In the assessment a stated order establishes "before" for that pair when
the recorded times leave the order unknown; a stated reverse order is counter-evidence.
A stated overlap ("while on Coumadin she had a GI bleed") establishes `overlaps` the same
way, and says nothing about order. Only affirmed, current mentions take part: a negated or
hypothetical mention never grounds an event, so its stated relation counts for nothing.

`within` (a window): the words give the order, the window must come from somewhere too -
from a gap the cue states ("two days after": 1-3 days at day granularity; "the next
morning": within 2 days), or from the times the bundle holds (the earlier item's resolved
start and the later item's latest possible start, such as the note date that bounds a
mention). A stated relation in a note of the query's encounter is in that encounter: the
items' scope unit is the note's encounter, so `scope: encounter` needs nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from medeventgraph.core.evidence.timing import MIN_TIME, Comparison, Span, Timing, longest_gap
from medeventgraph.core.query.model import RelationSpec, RelationType, VerificationQuery
from medeventgraph.core.query.verdict import FailureType
from medeventgraph.model.occurrence import Kind, NoteDocument, Origin

__all__ = ["StatedItem", "check_stated", "find_stated", "stated_comparison", "stated_counter", "undefeated"]


@dataclass(frozen=True, slots=True)
class StatedItem:
    """`earlier` (an item grounding `earlier_event`) before `later`, as the cue says."""

    id: str  # "DocumentReference/9#s120-132" (the cue span)
    reference: str
    attachment: int
    earlier: str  # occurrence ids of the two admitted note items
    later: str
    earlier_event: str
    later_event: str
    earlier_span: tuple[int, int]
    later_span: tuple[int, int]
    cue_start: int
    cue_end: int
    cue: str
    rule: str

    @property
    def citation(self) -> str:
        """The cue's note span, "DocumentReference/9#s120-132"."""
        return _cue_id(self.reference, self.attachment, self.cue_start, self.cue_end)

    @property
    def overlap(self) -> bool:
        """The cue states an overlap ("while on"), not an order (read from the rule data)."""
        from medeventgraph.nlp.relations import rule_states_overlap

        return rule_states_overlap(self.rule)

    @property
    def holds_during(self) -> bool:
        """The cue states an order whose earlier event still holds during the later ("for her")."""
        from medeventgraph.nlp.relations import rule_holds_during

        return rule_holds_during(self.rule)

    @property
    def basis(self) -> str:
        """Where the order comes from, in words: "stated: 'subsequently'", "told in this order in
        the hospital course", "told as past history: 'status post'"."""
        from medeventgraph.nlp.narrative import (
            COUNTED_TIMES,
            EARLIER_SECTION,
            HISTORY_FIRST,
            PAST_BEFORE_PRESENT,
            TOLD_IN_ORDER,
        )
        from medeventgraph.nlp.present_state import BOTH_CURRENT

        cue = " ".join(self.cue.split())
        if self.rule == TOLD_IN_ORDER:
            return f"told in this order in the {cue.lower()}"
        if self.rule == HISTORY_FIRST:
            return f"told as past history: '{cue}'"
        if self.rule == PAST_BEFORE_PRESENT:
            return f"told as past history: '{cue}', before a current diagnosis"
        if self.rule == COUNTED_TIMES:
            return f"dated by the times told: '{cue}' first"
        if self.rule == EARLIER_SECTION:
            return f"told in the {cue.lower()}, an earlier part of the story"
        if self.rule == BOTH_CURRENT:
            return f"told as current when the note was written: '{cue}'"
        return f"stated: '{cue}'"

    @property
    def placement(self) -> bool:
        """Read from where the note places the mentions (order of telling, past history), not a cue."""
        from medeventgraph.nlp.relations import is_placement

        return is_placement(self.rule)


def _text(documents: Mapping[str, NoteDocument], reference: str, attachment: int) -> str | None:
    doc = documents.get(reference)
    if doc is None:
        return None
    return next((t.text for t in doc.texts if t.attachment == attachment), None)


_TOLD = (Origin.NOTE, Origin.DERIVED)


def _note_items(items: Iterable, event: str) -> list:
    """Items told at a span of a note: its mentions, and findings derived from a value it states
    ("potassium was 6.1" for hyperkalemia), which are told where the value is."""
    return [i for i in items if i.origin in _TOLD and event in i.events and i.source.start is not None
            and i.source.end is not None]


def _cue_id(reference: str, attachment: int, start: int, end: int) -> str:
    prefix = f"a{attachment}" if attachment else ""
    return f"{reference}#{prefix}s{start}-{end}"


def find_stated(query: VerificationQuery, items: Iterable, documents: Mapping[str, NoteDocument]) -> list[StatedItem]:
    """Every stated order between admitted note items bound to the two ends of a relation."""
    from medeventgraph.nlp.relations import find_relation  # the note pipeline loads only when notes are used

    items = list(items)
    out: dict[str, StatedItem] = {}
    for r in query.relations:
        for a in _note_items(items, r.source):
            for b in _note_items(items, r.target):
                same_text = a.source.reference == b.source.reference and a.source.attachment == b.source.attachment
                if a.occurrence == b.occurrence or not same_text:
                    continue
                attachment = a.source.attachment or 0
                text = _text(documents, a.source.reference, attachment)
                if text is None:
                    continue
                spans = {a.occurrence: (a.source.start, a.source.end), b.occurrence: (b.source.start, b.source.end)}
                found = find_relation(text, spans[a.occurrence], spans[b.occurrence], _admits(a, b, text))
                if found is None:
                    continue
                a_first = found.earlier == spans[a.occurrence]
                earlier, later = (a, b) if a_first else (b, a)
                events = (r.source, r.target) if a_first else (r.target, r.source)
                item = StatedItem(
                    _cue_id(a.source.reference, attachment, found.cue_start, found.cue_end)
                    + f"/{earlier.occurrence}/{later.occurrence}",
                    a.source.reference, attachment, earlier.occurrence, later.occurrence, events[0], events[1],
                    found.earlier, found.later, found.cue_start, found.cue_end, found.cue, found.rule)
                out.setdefault(item.id, item)
    return [out[k] for k in sorted(out)]


def _admits(a, b, text: str):
    """The readings two note items may take part in (`_ends_take_part`, whichever is earlier)."""
    def admits(found) -> bool:
        a_first = found.earlier == (a.source.start, a.source.end)
        return _ends_take_part(found.rule, *((a, b) if a_first else (b, a)), text)
    return admits


def _ends_take_part(rule: str, earlier, later, text: str) -> bool:
    """A mention read uncertain with its hedge right before it ("possible pneumonia, continue
    vancomycin") is not told as having happened: it takes part in no stated relation. A
    present-state overlap says the two events hold now: both mentions must be affirmed, current and
    certain. The past before a present state: a procedure an assessment names is a state it left
    ("a nonhealing amputation"), its act in the past, so it is not the present end. An earlier
    section or the order of telling: a procedure named as a purpose ("venogram for lead placement",
    "consent was obtained for a colonoscopy") is done or planned after the words naming it, not an
    earlier act, so it is not the earlier end. A rule that names the
    kinds of its ends (`ends` in the rule data) relates only those: an indication ("X for Y") a drug
    or an act to a condition; findings told together ("presented with fever and cough") no
    procedure, which is an act done for them. An overlap joins two mentions of one time: not one the
    note tells as past history and one it does not. "Prior to the procedure":
    the end the note lists as its operation is that operation only if it is a procedure, in a cue
    or a phase cue ("preoperatively")."""
    from medeventgraph.nlp.narrative import (
        EARLIER_SECTION,
        PAST_BEFORE_PRESENT,
        PHASE_CUE,
        TOLD_IN_ORDER,
        names_purpose,
    )
    from medeventgraph.nlp.present_state import BOTH_CURRENT
    from medeventgraph.nlp.relations import (
        end_kinds,
        hedged,
        in_operation_list,
        names_operation,
        rule_states_overlap,
    )

    if any(i.assertion.uncertain and hedged(text, (i.source.start, i.source.end)) for i in (earlier, later)):
        return False
    if rule_states_overlap(rule) and earlier.assertion.historical != later.assertion.historical:
        return False  # a problem of the past overlaps nothing given now ("History of pneumonia. Continue ceftriaxone")
    if rule == BOTH_CURRENT:
        return all(i.assertion.affirmed_current and not i.assertion.uncertain for i in (earlier, later))
    if rule == PAST_BEFORE_PRESENT:
        return later.kind is not Kind.PROCEDURE
    kinds = end_kinds(rule)
    if kinds is not None and not (_of_kinds(earlier, kinds[0], text) and _of_kinds(later, kinds[1], text)):
        return False
    if rule in (EARLIER_SECTION, TOLD_IN_ORDER) and earlier.kind is Kind.PROCEDURE:
        return not names_purpose(text, (earlier.source.start, earlier.source.end))
    if names_operation(rule):  # "prior to the procedure": the end in the operation list is that operation
        return all(i.kind is Kind.PROCEDURE for i in (earlier, later)
                   if in_operation_list(text, (i.source.start, i.source.end)))
    if rule == PHASE_CUE and later.kind is not Kind.PROCEDURE:
        # "prior to the procedure" as a phase, as in a cue: the operation list's act, not a problem
        # it names ("excision of a breast mass"), which was there before it
        return not in_operation_list(text, (later.source.start, later.source.end))
    return True


def _of_kinds(item, kinds: frozenset[str], text: str) -> bool:
    """Is the item of one of a rule end's kinds ("value": a lab or vital mention that states its number)?"""
    if item.kind.value in kinds:
        return True
    said = text[item.source.start:item.source.end]
    return "value" in kinds and item.kind in (Kind.LAB, Kind.VITAL) and any(c.isdigit() for c in said)


def check_stated(item: StatedItem, query: VerificationQuery, items: Mapping[str, object],
                 documents: Mapping[str, NoteDocument]) -> bool:
    """Re-check from the item and the query alone: both mentions are admitted items bound to the
    query's events, both spans and the cue lie in the note text, the cue is in the rule data and
    still reads the same order."""
    from medeventgraph.nlp.relations import StatedOrder, check_order

    ids = {e.id for e in query.events}
    if item.earlier_event not in ids or item.later_event not in ids:
        return False
    related = any({r.source, r.target} == {item.earlier_event, item.later_event} for r in query.relations)
    earlier, later = items.get(item.earlier), items.get(item.later)
    if not related or earlier is None or later is None:
        return False
    for ev, it, span in ((item.earlier_event, earlier, item.earlier_span), (item.later_event, later, item.later_span)):
        src = it.source  # type: ignore[attr-defined]
        if ev not in it.events or src.reference != item.reference or (src.start, src.end) != span:  # type: ignore[attr-defined]
            return False
    text = _text(documents, item.reference, item.attachment)
    if text is None or not _ends_take_part(item.rule, earlier, later, text):
        return False
    order = StatedOrder(item.earlier_span, item.later_span, item.cue_start, item.cue_end, item.cue, item.rule)
    return all(0 <= s < e <= len(text) for s, e in (item.earlier_span, item.later_span)) \
        and check_order(text, order, _admits(earlier, later, text))


def _order_words(hit: StatedItem) -> str:
    """'stated order: 'subsequently'' for a cue; the placement's words for a placement."""
    return f"stated order: '{hit.cue}'" if not hit.placement else f"order {hit.basis}"


def _before_pair(r: RelationSpec, source: str, target: str) -> tuple[str, str] | None:
    """The (earlier, later) occurrence pair that makes relation `r` hold (source/target items)."""
    if r.type is RelationType.OVERLAPS:
        return None  # a stated order says nothing about an overlap
    return (source, target) if r.type is RelationType.BEFORE else (target, source)


_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_STATED_GAP = re.compile(r"\b(?P<n>\d+|one|two|three|four|five|six|seven)\s+(?P<u>hour|day|week)s?\b", re.IGNORECASE)
_NEXT_DAY = re.compile(r"\bthe\s+(?:next|following)\s+(?:day|morning)\b", re.IGNORECASE)
_UNITS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}


def _stated_gap(cue: str) -> tuple[timedelta, timedelta, timedelta] | None:
    """(shortest, as told, longest) gap a cue states, the ends at the granularity of its unit, or None.

    >>> _stated_gap("two days after")
    (datetime.timedelta(days=1), datetime.timedelta(days=2), datetime.timedelta(days=3))
    >>> _stated_gap("the next morning")
    (datetime.timedelta(0), datetime.timedelta(days=1), datetime.timedelta(days=2))
    >>> _stated_gap("subsequently") is None
    True
    """
    m = _STATED_GAP.search(cue)
    if m is not None:
        n = int(m.group("n")) if m.group("n").isdigit() else _NUMBER_WORDS[m.group("n").lower()]
        unit = _UNITS[m.group("u").lower()]
        return max(timedelta(0), (n - 1) * unit), n * unit, (n + 1) * unit
    if _NEXT_DAY.search(cue):
        return timedelta(0), timedelta(days=1), timedelta(days=2)
    return None


def _window(r: RelationSpec, hit: StatedItem, earlier: Span | None, later: Span | None) -> Comparison:
    """A stated order under `within`: compatible when the gap is known to fit, incompatible
    when the stated gap cannot, else unknown."""
    window = r.window
    assert window is not None
    gap = _stated_gap(hit.cue)
    # a window asked as the gap the note tells ("five days prior to", within P5D) is that gap: the
    # gap as told decides, not the day's spread at its ends
    if gap is not None and gap[1] <= window:
        return Comparison(Timing.COMPATIBLE, f"{_order_words(hit)} within {r.within} at {hit.citation}")
    if gap is not None and gap[0] > window:
        return Comparison(Timing.INCOMPATIBLE, f"stated gap outside {r.within}: '{hit.cue}' at {hit.citation}")
    if earlier is not None and later is not None and earlier.resolved and earlier.start.lo > MIN_TIME \
            and longest_gap(earlier, later, window) <= window:
        return Comparison(Timing.COMPATIBLE, f"{_order_words(hit)} at {hit.citation}; within {r.within} "
                                             "by the recorded times")
    return Comparison(Timing.UNKNOWN, f"{_order_words(hit)} at {hit.citation}; window {r.within} unresolved")


def stated_comparison(r: RelationSpec, source: str, target: str, stated: Mapping[tuple[str, str], StatedItem],
                      source_span: Span | None = None, target_span: Span | None = None,
                      ) -> tuple[Comparison, StatedItem] | None:
    """What the note's words say about `source r target`, or None when they say nothing.
    The spans (the bundle's times of the two items) can bound a `within` window."""
    if r.type is RelationType.OVERLAPS:
        hit = stated.get((source, target)) or stated.get((target, source))
        if hit is not None and (hit.overlap or hit.holds_during):
            words = f"overlap {hit.basis}" if hit.placement else f"stated overlap: '{hit.cue}'"
            return Comparison(Timing.COMPATIBLE, f"{words} at {hit.citation}"), hit
        return None
    pair = _before_pair(r, source, target)
    assert pair is not None
    spans = {source: source_span, target: target_span}
    hit = stated.get(pair)
    if hit is not None and not hit.overlap:
        if r.within is not None:
            return _window(r, hit, spans[pair[0]], spans[pair[1]]), hit
        return Comparison(Timing.COMPATIBLE, f"{_order_words(hit)} at {hit.citation}"), hit
    hit = stated.get((pair[1], pair[0]))
    if hit is not None and not hit.overlap:
        return Comparison(Timing.INCOMPATIBLE, f"stated reverse order: '{hit.cue}' at {hit.citation}"), hit
    return None


def undefeated(stated: Iterable[StatedItem]) -> list[StatedItem]:
    """The stated orders that stand: the order in which a section tells two events is weaker than
    words, so it yields to a cue in the same note text that states the reverse order of the same two
    events with a mention inside the stretch the telling spans ("After 60 minutes of heparin infusion,
    the pain persisted. After two doses of aspirin, ... a heparin infusion was started"). A cue about
    later mentions only (the event told again) leaves the telling standing: events recur."""
    from medeventgraph.nlp.narrative import TOLD_IN_ORDER

    stated = list(stated)
    cues = [s for s in stated if not s.placement and not s.overlap]

    def defeated(told: StatedItem) -> bool:
        lo, hi = min(told.earlier_span[0], told.later_span[0]), max(told.earlier_span[1], told.later_span[1])
        return any((c.earlier_event, c.later_event) == (told.later_event, told.earlier_event)
                   and (c.reference, c.attachment) == (told.reference, told.attachment)
                   and any(lo <= start and end <= hi for start, end in (c.earlier_span, c.later_span))
                   for c in cues)

    return [s for s in stated if s.rule != TOLD_IN_ORDER or not defeated(s)]


def stated_counter(relations: list[RelationSpec], stated: Iterable[StatedItem],
                   grounds: Mapping[str, bool]) -> tuple[float, set[str], FailureType | None]:
    """A stated reverse order between two grounding mentions refutes the relation's order."""
    ids: set[str] = set()
    for s in stated:
        if s.overlap or s.placement or not (grounds.get(s.earlier) and grounds.get(s.later)):
            continue
        for r in relations:
            wanted = _before_pair(r, r.source, r.target)
            if wanted is not None and (s.later_event, s.earlier_event) == wanted:
                ids.update((s.id, s.earlier, s.later))
    return (1.0, ids, FailureType.OPPOSITE_ORDER) if ids else (0.0, ids, None)


def stated_evidence(item: StatedItem, documents: Mapping[str, NoteDocument], polarity: str):
    """The stated order as a verdict evidence row: it cites the cue span; its context is the
    passage from the first mention to the second."""
    from medeventgraph.core.query.verdict import EvidenceOut, SourceOut, TimeOut

    text = _text(documents, item.reference, item.attachment) or ""
    if item.placement:  # the two sentences, wherever the section heading or cue stands
        context = " … ".join(" ".join(text[s:e].split()) for s, e in _sentences(text, item))
    else:
        lo = min(item.earlier_span[0], item.later_span[0], item.cue_start)
        hi = max(item.earlier_span[1], item.later_span[1], item.cue_end)
        context = " ".join(text[lo:hi].split())
    path = ("presentedForm" if item.reference.startswith("DiagnosticReport/") else "content")
    json_path = f"{path}[{item.attachment}].data" if path == "presentedForm" else f"content[{item.attachment}].attachment.data"
    return EvidenceOut(
        occurrence=item.id,
        events=[item.earlier_event, item.later_event],
        kind="relation",
        origin="note",
        concept=f"{item.earlier_event} {'overlaps' if item.overlap else 'before'} {item.later_event} ({item.basis})",
        context=context,
        time=TimeOut(start=None, type="occurrence", granularity="unknown"),
        scope="valid",
        source=SourceOut(reference=item.reference, json_path=json_path, attachment=item.attachment,
                         start=item.cue_start, end=item.cue_end),
        derived_from=[item.earlier, item.later],
        basis=[f"relation:{item.rule}"],
        polarity=polarity,
    )


def _sentences(text: str, item: StatedItem) -> list[tuple[int, int]]:
    """The sentences of the earlier and the later mention, in text order, each once."""
    from medeventgraph.nlp.narrative import note_layout

    layout = note_layout(text)
    found = []
    for start, end in sorted((item.earlier_span, item.later_span)):
        i = layout.sentence_at(start)
        span = (layout.sentences[i].start, layout.sentences[i].end) if i is not None else (start, end)
        if span not in found:
            found.append(span)
    return found
