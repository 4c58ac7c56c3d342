"""Order stated in words between two mentions of one passage (resources/order_rules.json).

"after starting X she developed Y", "X ... subsequently Y", "Y two days after X", "X followed
by Y", "Y prior to X", "since starting X", "Y, which began before X": within one sentence or
across two adjacent sentences. Overlap is stated too: "Y while on X", "while on X, Y", "Y during
X", "on X when Y" (the two intervals intersect). "X prior to / after / during the procedure"
relates X to the operation an operative note lists ("PROCEDURES PERFORMED:"), wherever it
stands. Where no cue relates them, where the note places them may (the order a narrative section
tells, the phases of its story: nlp/narrative.py), a weaker basis that only ever supports. Pure
functions over the note text, so the contract can re-check a stated order from the two spans and
the cue span alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Literal

from medeventgraph.model.packaged import packaged_built

from .narrative import (
    PLACEMENT_RULES,
    Placement,
    Sentence,
    counted_order,
    note_layout,
    phase_order,
    told_order,
    turns_back,
)
from .present_state import BOTH_CURRENT, both_current
from .values import ValueFind, find_values

__all__ = ["StatedOrder", "end_kinds", "find_order", "find_relation", "hedged", "is_placement"]

CUE_REACH = 600  # characters between two mentions that one passage's cue can relate
STATED_CHANGE = "stated-change"  # "creatinine has gone from 2.1 to 4.2": the values in the order stated
WINDOW_EXTREME = "window-extreme"  # "highest temperature over the past 24 hours was 102.1 ... temperature is 99.2"
CHANGE_END = "change-end"  # "His creatinine was 1. ... His creatinine was up slightly to 1.6"

Position = Literal["before_second", "between", "before_first", "opens_next", "names_operation"]
Order = Literal["first_earlier", "second_earlier", "overlap"]
# A sentence ends at . ! ? or ; followed by space, or at an MTSamples heading (",HISTORY:,").
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|,\s*[A-Z][A-Z /&]{2,}:")
_WORD = re.compile(r"[A-Za-z0-9/]+")
# "... and is also", "but was": a coordinated clause of its own between the first mention and a cue.
_NEW_CLAUSE = re.compile(r"\b(?:and|but)\s+(?:(?:he|she|they|it)\s+)?(?:is|was|are|were|has|had)\b", re.IGNORECASE)
# "The patient subsequently received ...": a short subject may stand before a sentence-opening cue.
_SUBJECT = r"(?:the\s+patient|patient|she|he|they|this|it)\s+(?:(?:was|were|had|has)\s+)?"
# A verb right after a mention: the mention is the subject of a clause of its own ("and AKI developed").
_VERB_NEXT = re.compile(r"\s*(?:(?:was|were|is|are|has|have|had|did|does|do|will|would|may|might|could|should|then|also|"
                        r"subsequently|later|soon|eventually|quickly|rapidly|slowly)\b|[a-z]+ed\b)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _OrderRule:
    id: str
    position: Position
    order: Order
    cue: re.Pattern[str]
    first_lead: re.Pattern[str] | None = None  # words that must end right before the first mention ("on X when Y")
    across_commas: bool = False  # before_second: the cue may follow clauses after the first mention
    holds_during: bool = False  # the earlier event still holds while the later is done: an overlap too
    max_lead_words: int | None = None  # before_second: words allowed from the first mention to the cue
    not_after_second: re.Pattern[str] | None = None  # words right after the second mention that undo it ("was held")
    between_list: bool = False  # the words between the two are a list's joins ("fever, cough and chills")
    ends: tuple[frozenset[str], frozenset[str]] | None = None  # kinds the earlier and the later end may be
    treatments: bool = False  # before_second: the cue opens a list of treatments ("treated with X and Y")


@dataclass(frozen=True, slots=True)
class _OrderRules:
    max_between_words: int
    max_words_before_cue: int
    fillers: str
    list_item: str  # one item of a list a cue opens: the cue governs every item up to the mention
    rules: tuple[_OrderRule, ...]
    hedge: re.Pattern[str]  # a hedge right before a mention, up to its own words ("possible ")
    window_extreme: re.Pattern[str]  # a value told as a past window's highest or lowest ("Tmax")
    operation_roles: frozenset[str] = frozenset()  # sections listing the procedures an operative note reports
    list_joins: re.Pattern[str] = re.compile(",")  # a word that joins a list's items ("and", "with", ",")
    list_stops: re.Pattern[str] = re.compile(r"(?!)")  # a word no list of findings has (a verb, "then", "no")
    list_readings: re.Pattern[str] = re.compile(r"(?!)")  # a finding's own reading in the list ("febrile to 102")

    def by_id(self, rule_id: str) -> _OrderRule | None:
        return next((r for r in self.rules if r.id == rule_id), None)


@dataclass(frozen=True, slots=True)
class StatedOrder:
    """`earlier` happened before `later`, as the words at [cue_start, cue_end) say; for an
    overlap rule ("while on X, Y") the two intervals intersect and earlier/later are only the
    text order (`overlap`)."""

    earlier: tuple[int, int]
    later: tuple[int, int]
    cue_start: int
    cue_end: int
    cue: str
    rule: str

    @property
    def overlap(self) -> bool:
        return rule_states_overlap(self.rule)


def is_placement(rule_id: str) -> bool:
    """Is this relation read from where the note places the two mentions (the order of telling,
    the past history) rather than from a cue? Such a basis supports an order, never refutes one."""
    return rule_id in PLACEMENT_RULES or rule_id == BOTH_CURRENT


def find_relation(text: str, a: tuple[int, int], b: tuple[int, int],
                  admits: Callable[[StatedOrder], bool] = lambda _: True) -> StatedOrder | None:
    """What the note says of the mentions at spans `a` and `b`: a cue's order or overlap when one
    relates them (the stronger basis), else where the note places them (nlp/narrative.py). The
    first reading `admits` takes: a cue whose rule cannot relate these two ends (findings told
    together are no procedures: "was irrigated and the skin was closed") says nothing of them, and
    the readings after it still may."""
    return next((found for found in _readings(text, a, b) if found is not None and admits(found)), None)


def _readings(text: str, a: tuple[int, int], b: tuple[int, int]) -> Iterator[StatedOrder | None]:
    """Each reading of the two mentions, strongest basis first (computed only when asked for)."""
    yield _stated_change(text, a, b)
    yield _window_extreme(text, a, b)
    yield _change_end(text, a, b)
    if abs(a[0] - b[0]) <= CUE_REACH:
        yield find_order(text, a, b)
    yield _the_operation(text, a, b)
    for place in (counted_order, told_order, both_current, phase_order):
        placed = place(text, a, b)
        yield None if placed is None else _from_placement(text, placed)


def _the_operation(text: str, a: tuple[int, int], b: tuple[int, int]) -> StatedOrder | None:
    """A mention told relative to "the procedure", "the surgery", "the operation" ("stopped her
    Coumadin five days prior to the procedures", "fenoldopam throughout the procedure") and a
    mention in the note's list of the procedures it reports ("PROCEDURES PERFORMED:"), which is
    what those words name in the note. The cue stands after the mention in its clause, as a
    before_second cue does; a rule of position names_operation says how the two relate (first: the
    mention, second: the operation)."""
    rules = _load_order_rules()
    layout = note_layout(text)
    for mention, operation in ((a, b), (b, a)):
        index = layout.sentence_at(mention[0])
        if index is None or not in_operation_list(text, operation) or in_operation_list(text, mention):
            continue
        after = text[mention[1]:layout.sentences[index].end]
        for rule in rules.rules:
            if rule.position != "names_operation":
                continue
            m = re.match(rf"(?P<lead>(?:[\s,]*[\w/'-]+){{0,{rules.max_words_before_cue}}}?)\s+(?P<cue>{rule.cue.pattern})"
                         r"(?![\w-])", after, re.IGNORECASE)
            if m is None or _NEW_CLAUSE.search(m.group("lead")) or re.search(r"[,;:()]", m.group("lead")):
                continue
            start, end = mention[1] + m.start("cue"), mention[1] + m.end("cue")
            earlier, later = (operation, mention) if rule.order == "second_earlier" else (mention, operation)
            return StatedOrder(earlier, later, start, end, text[start:end], rule.id)
    return None


def names_operation(rule_id: str) -> bool:
    """Does this rule read a mention against the note's own operation ("prior to the procedure")?"""
    rule = _load_order_rules().by_id(rule_id)
    return rule is not None and rule.position == "names_operation"


def in_operation_list(text: str, span: tuple[int, int]) -> bool:
    """Does the mention at `span` stand in the note's list of the procedures it reports?"""
    layout = note_layout(text)
    index = layout.sentence_at(span[0])
    return index is not None and layout.role(index) in _load_order_rules().operation_roles


def _stated_change(text: str, a: tuple[int, int], b: tuple[int, int]) -> StatedOrder | None:
    """Two values of one stated change in one sentence ("white count is down from 20,000 to
    12.5", "troponin 2.3 from 1.9 yesterday"), in the order the change states; the cue is the
    whole change as written."""
    layout = note_layout(text)
    index = layout.sentence_at(a[0])
    if index is None or index != layout.sentence_at(b[0]):
        return None
    sentence = layout.sentences[index]
    values = {(v.start, v.end): v for v in find_values(text[sentence.start:sentence.end], sentence.start) if v.change}
    va, vb = values.get(a), values.get(b)
    if va is None or vb is None or va.series != vb.series or va.time_rank == vb.time_rank:
        return None
    earlier, later = (va, vb) if va.time_rank < vb.time_rank else (vb, va)
    lo, hi = min(va.start, vb.start), max(va.end, vb.end)
    return StatedOrder((earlier.start, earlier.end), (later.start, later.end), lo, hi, text[lo:hi], STATED_CHANGE)


_EXTREME_SENTENCES = 2  # sentences apart a window's extreme and the reading it is told beside may stand
_CLAUSE_START = re.compile(r"[,;:]")
_TOLD_AS_PAST = re.compile(r"\b(?:was|were|had|admission|initially|previously|yesterday|prior)\b", re.IGNORECASE)


def _window_extreme(text: str, a: tuple[int, int], b: tuple[int, int]) -> StatedOrder | None:
    """Two readings of one analyte in one section, a few sentences apart, one told as the highest
    or lowest of a past window ("highest temperature over the past 24 hours was 102.1"), the other
    told as it is ("temperature is 99.2"), with other numbers: the window's extreme came first."""
    layout = note_layout(text)
    ia, ib = layout.sentence_at(a[0]), layout.sentence_at(b[0])
    if ia is None or ib is None or abs(ia - ib) > _EXTREME_SENTENCES or \
            layout.sentences[ia].section != layout.sentences[ib].section:
        return None
    pattern = _load_order_rules().window_extreme
    sa, sb = layout.sentences[ia], layout.sentences[ib]
    if not (pattern.search(text, sa.start, sa.end) or pattern.search(text, sb.start, sb.end)):
        return None  # most pairs: no window's extreme told, so no values to read (this runs for every pair)
    va, vb = _value_at(text, sa, a), _value_at(text, sb, b)
    if va is None or vb is None or va.analyte != vb.analyte or va.quantity is None or va.quantity == vb.quantity:
        return None
    clauses = [_clause_of(text, layout.sentences[i].start, v) for i, v in ((ia, va), (ib, vb))]
    marks = [pattern.search(text, lo, hi) for lo, hi in clauses]
    if (marks[0] is None) == (marks[1] is None):
        return None
    k = 0 if marks[0] is not None else 1
    mark, (lo, hi) = marks[k], clauses[1 - k]
    if mark is None or _TOLD_AS_PAST.search(text, lo, hi):
        return None  # the other reading is told as a past one too: which came first is not said
    earlier, later = (a, b) if k == 0 else (b, a)
    return StatedOrder(earlier, later, mark.start(), mark.end(), mark.group(), WINDOW_EXTREME)


# A value told as where it went: "was up slightly to", "is already down to", "rose to", "has dropped to";
# not "up to" alone ("temperatures of up to 103", "albuterol up to 4 times a day": a most, not a change).
_CHANGED_TO = re.compile(r"\b(?:(?:was|were|is|are|has|have|had|been|went|gone|go|came|come)\s+(?:(?:already|now|back|then|"
                         r"\w+ly)\s+)?(?:up|down)|rose|risen|increased|decreased|fell|fallen|dropped|climbed|jumped|"
                         r"trended\s+(?:up|down))(?:\s+\w+ly)?\s+to\b", re.IGNORECASE)


def _change_end(text: str, a: tuple[int, int], b: tuple[int, int]) -> StatedOrder | None:
    """One analyte's value told as where it rose or fell to ("his creatinine on this hospitalization
    was up slightly to 1.6"), and a value of it told a few sentences before in the same section
    with no change of its own ("His creatinine was 1."): the change went from the earlier-told one.
    Not when the later sentence steps back in time ("previously", "had been")."""
    layout = note_layout(text)
    ia, ib = layout.sentence_at(a[0]), layout.sentence_at(b[0])
    if ia is None or ib is None or ia == ib:
        return None
    (i, first), (j, second) = sorted(((ia, a), (ib, b)))
    sa, sb = layout.sentences[i], layout.sentences[j]
    if j - i > _EXTREME_SENTENCES or sa.section != sb.section or not _CHANGED_TO.search(text, sb.start, second[1]):
        return None  # most pairs: no change told before the later value (this runs for every pair)
    va, vb = _value_at(text, sa, first), _value_at(text, sb, second)
    if va is None or vb is None or va.analyte != vb.analyte or va.change or vb.change or va.quantity == vb.quantity:
        return None
    mark = _CHANGED_TO.search(text, vb.start, vb.end)
    if mark is None or turns_back(text[sb.start:sb.end]):
        return None
    return StatedOrder(first, second, mark.start(), mark.end(), mark.group(), CHANGE_END)


def _value_at(text: str, sentence: Sentence, span: tuple[int, int]) -> ValueFind | None:
    return next((v for v in find_values(text[sentence.start:sentence.end], sentence.start)
                 if (v.start, v.end) == span), None)


def _clause_of(text: str, sentence_start: int, value: ValueFind) -> tuple[int, int]:
    """The value's clause: from the last comma, semicolon or colon before its words to its end."""
    marks = list(_CLAUSE_START.finditer(text, sentence_start, value.start))
    return (marks[-1].end() if marks else sentence_start), value.end


def _from_placement(text: str, p: Placement) -> StatedOrder:
    return StatedOrder(p.earlier, p.later, p.cue_start, p.cue_end, text[p.cue_start:p.cue_end], p.rule)


def rule_states_overlap(rule_id: str) -> bool:
    """Does this order rule state an overlap (not an order)? Read from the rule data."""
    if rule_id == BOTH_CURRENT:
        return True
    rule = _load_order_rules().by_id(rule_id)
    return rule is not None and rule.order == "overlap"


def end_kinds(rule_id: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The kinds the earlier and the later end of this rule's relation may be ("X for Y": a drug
    or an act for a condition), which the evidence contract checks; None: any kind."""
    rule = _load_order_rules().by_id(rule_id)
    return None if rule is None else rule.ends


def rule_holds_during(rule_id: str) -> bool:
    """Does this order rule also state an overlap ("X for her Y": Y first, and still there during X)?"""
    rule = _load_order_rules().by_id(rule_id)
    return rule is not None and rule.holds_during


@cache
def _load_order_rules() -> _OrderRules:
    return packaged_built("medeventgraph.nlp", "order_rules.json", _order_rules)


def _order_rules(raw: dict) -> _OrderRules:
    rules = []
    for r in raw["rules"]:
        if r["position"] not in Position.__args__ or r["order"] not in Order.__args__:  # type: ignore[attr-defined]
            raise ValueError(f"order rule {r['id']}: unknown position or order")
        lead = re.compile(rf"(?:^|[\s,(])(?:{r['first_lead']})\s+$", re.IGNORECASE) if r.get("first_lead") else None
        rules.append(_OrderRule(str(r["id"]), r["position"], r["order"], re.compile(r["cue"], re.IGNORECASE), lead,
                               bool(r.get("across_commas", False)), bool(r.get("holds_during", False)),
                               int(r["max_lead_words"]) if "max_lead_words" in r else None,
                               re.compile(r["not_after_second"], re.IGNORECASE) if r.get("not_after_second") else None,
                               bool(r.get("between_list", False)),
                               (frozenset(r["ends"]["earlier"]), frozenset(r["ends"]["later"])) if "ends" in r else None,
                               bool(r.get("treatments", False))))
    hedge = re.compile(rf"\b(?:{raw['hedge']})\s+(?:[\w/'-]+\s+){{0,{int(raw['hedge_words_between'])}}}$",
                       re.IGNORECASE)
    return _OrderRules(int(raw["max_between_words"]), int(raw["max_words_before_cue"]), str(raw["fillers"]),
                      str(raw["list_item"]), tuple(rules), hedge, re.compile(raw["window_extreme"], re.IGNORECASE),
                      frozenset(raw.get("operation_roles", ())),
                      re.compile(raw["list_joins"], re.IGNORECASE), re.compile(raw["list_stops"], re.IGNORECASE),
                      re.compile(raw.get("list_readings", "(?!)"), re.IGNORECASE))


_HEDGE_REACH = 60  # characters before a mention a hedge may stand


def hedged(text: str, span: tuple[int, int]) -> bool:
    """Is the mention at `span` hedged by the words right before it ("possible pneumonia",
    "suspected pertussis")? A hedge further back, across a clause, is ConText's scope, not this."""
    lead = text[max(0, span[0] - _HEDGE_REACH):span[0]]
    lead = lead[max(lead.rfind("."), lead.rfind(";"), lead.rfind(",")) + 1:]
    return _load_order_rules().hedge.search(lead) is not None


def _ends(text: str) -> list[int]:
    return [m.start() for m in _SENTENCE_END.finditer(text)]


def find_order(text: str, a: tuple[int, int], b: tuple[int, int]) -> StatedOrder | None:
    """The order the text states between the mentions at spans `a` and `b`, or None."""
    if a == b or not (a[1] <= b[0] or b[1] <= a[0]):
        return None
    first, second = (a, b) if a[0] < b[0] else (b, a)
    rules = _load_order_rules()
    between = text[first[1]:second[0]]
    breaks = _ends(between)
    if len(breaks) > 1 or len(_WORD.findall(between)) > 2 * rules.max_between_words:
        return None
    for rule in rules.rules:
        if rule.position == "names_operation":
            continue  # read by _the_operation: its second end is not beside the cue
        if rule.not_after_second is not None and rule.not_after_second.match(text, second[1]):
            continue
        hit = _match(rule, rules, text, first, second, between, breaks)
        if hit is not None:
            start, end = hit
            earlier, later = (second, first) if rule.order == "second_earlier" else (first, second)
            return StatedOrder(earlier, later, start, end, text[start:end], rule.id)
    return None


def _match(rule: _OrderRule, rules: _OrderRules, text: str, first, second, between: str,
           breaks: list[int]) -> tuple[int, int] | None:
    base = first[1]
    if rule.position == "before_second":
        if breaks:
            return None
        # a list of treatments may join its last item by a bare "and" ("treated with ceftriaxone and
        # azithromycin") where no verb of its own follows it ("... and azithromycin was added"); any
        # other cue's list needs a comma ("after surgery and AKI", "a fever after X and a rash": the
        # item may be the first mention's)
        items = 0 if rule.treatments and not _VERB_NEXT.match(text, second[1]) else 1
        m = re.search(rf"(?<![\w-])(?P<cue>{rule.cue.pattern})\s+{rules.fillers}{_listed(rules, items)}$", between,
                      re.IGNORECASE)
        if m is None:
            return None
        lead = between[: m.start("cue")]
        if not rule.across_commas and _NEW_CLAUSE.search(lead):
            return None  # "X since 1993 and is also status post Y": the cue opens another clause's statement
        # a comma may open "which ..." or the cue's own phrase ("a fall, resulting in a hip fracture")
        commas = [i for i, ch in enumerate(lead) if ch == "," and lead[i + 1:].strip()]
        # "admitted with pneumonia and started on heparin": "on" is the later act's; a comma alone
        # is an apposition ("Diabetes, on insulin"), not another clause
        if rule.max_lead_words is not None and (len(_WORD.findall(lead)) > rule.max_lead_words or (
                re.search(r",|\b(?:and|but)\b", lead, re.IGNORECASE) and lead.strip() != ",")):
            return None
        if len(_WORD.findall(lead)) > rules.max_words_before_cue or (not rule.across_commas and any(
                not re.match(r",\s*which\b", between[i:], re.IGNORECASE) for i in commas)):
            return None  # the cue belongs to another clause than the first mention's
        return (base + m.start("cue"), base + m.end("cue"))
    if rule.position == "between":
        # Up to max_between_words words in all, or a cue that opens the second mention's clause:
        # at most max_between_words words and no clause break from the cue to it, and as many
        # from the first mention to the cue ("X, which caused loose stools, and then three days
        # prior to admission was given daily 1 g Y").
        if breaks:
            return None
        if rule.first_lead is not None:
            sentence_start = max([e + 1 for e in _ends(text[: first[0]])], default=0)
            if rule.first_lead.search(text[sentence_start:first[0]]) is None:
                return None
        short = len(_WORD.findall(between)) <= rules.max_between_words
        for m in re.finditer(rf"(?<![\w-])(?:{rule.cue.pattern})(?![\w-])", between, re.IGNORECASE):
            rest = between[m.end():]
            if _NEW_CLAUSE.search(rest):
                continue  # "pain due to a fall and she was given X": the cue's object ends where a clause opens
            if short or (len(_WORD.findall(between[:m.start()])) <= rules.max_between_words
                         and len(_WORD.findall(rest)) <= rules.max_between_words and not re.search(r"[,;:()]", rest)):
                return (base + m.start(), base + m.end())
        return None
    if rule.position == "before_first":
        if breaks or len(_WORD.findall(between)) > rules.max_between_words:
            return None
        if rule.between_list and not _a_list(rules, between):
            return None
        sentence_start = max([e + 1 for e in _ends(text[: first[0]])], default=0)
        lead = text[sentence_start:first[0]]
        # a prefix joined to the first mention by its hyphen ("post-transfusion hemoglobin") is a cue too
        m = re.search(rf"(?:^|[\s,(])(?P<cue>{rule.cue.pattern})(?:\s+{rules.fillers}{_listed(rules, 0)}|(?<=-))$", lead,
                      re.IGNORECASE)
        return (sentence_start + m.start("cue"), sentence_start + m.end("cue")) if m else None
    # opens_next: the first mention's sentence ends between them and the next one opens with the cue
    if len(breaks) != 1:
        return None
    rest = between[breaks[0] + 1:]
    m = re.match(rf"[\s,]*(?:{_SUBJECT})?(?P<cue>{rule.cue.pattern})(?![\w-])", rest, re.IGNORECASE)
    if m is None:
        return None
    offset = base + breaks[0] + 1
    return (offset + m.start("cue"), offset + m.end("cue"))


def _listed(rules: _OrderRules, commas: int) -> str:
    """The items of a list before the mention, its last: 'vancomycin and ', 'cefazolin, vancomycin and '
    (at least `commas` commas: right before a second mention, 'after surgery and AKI developed'
    may join a clause, not an item)."""
    item = rules.list_item
    return rf"(?:{item}(?:\s*,\s*{item}){{{commas},3}},?\s+(?:and|or)\s+(?:(?:an?|the|his|her|their)\s+)?)?"


_LIST_TOKEN = re.compile(r"[\w'/&-]+|[^\w\s]")


def _a_list(rules: _OrderRules, between: str) -> bool:
    """Are the words between two mentions only the joins of one list and other items of it
    ("fever, cough and chills"; "headache with vomiting"; an item's own reading, "febrile to 102
    and tachycardic"), with no verb, time word or negation
    that would make the second a clause of its own ("fever and was given", "fever, then rash")?"""
    joined = False
    for token in _LIST_TOKEN.findall(rules.list_readings.sub(" ", between)):
        if rules.list_joins.fullmatch(token):
            joined = True
        elif not token[0].isalnum() or rules.list_stops.fullmatch(token):
            return False
    return joined


def check_order(text: str, order: StatedOrder, admits: Callable[[StatedOrder], bool] = lambda _: True) -> bool:
    """Re-read a stated order from the text: the cue is where it says, in the rule data (or the
    placement it names), and reading the two spans again, with the same `admits`, gives the same
    relation."""
    if not (0 <= order.cue_start < order.cue_end <= len(text)) or text[order.cue_start:order.cue_end] != order.cue:
        return False
    if not is_placement(order.rule) and order.rule not in (STATED_CHANGE, WINDOW_EXTREME, CHANGE_END):
        rule = _load_order_rules().by_id(order.rule)
        if rule is None or not rule.cue.fullmatch(order.cue):
            return False
    return find_relation(text, order.earlier, order.later, admits) == order
